import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { withTx } from '../../src/db/tx.js';
import { enqueueJob } from '../../src/jobs/queue.js';
import { drainJobs } from '../../src/jobs/runtime.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('job queue', () => {
  it('enqueues a job only when the transaction that caused it commits', async () => {
    const ran: unknown[] = [];
    const tasks = { 'test.record': async (payload: Record<string, unknown>) => void ran.push(payload.n) };
    await expect(
      withTx(db.pool, async (tx) => {
        await enqueueJob(tx, 'test.record', { n: 1 });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    await withTx(db.pool, (tx) => enqueueJob(tx, 'test.record', { n: 2 }));
    await drainJobs(db.pool, tasks);
    expect(ran).toEqual([2]);
  });

  it('retries a failing job later with backoff, keeping the error', async () => {
    let calls = 0;
    const tasks = {
      'test.flaky': async () => {
        calls += 1;
        throw new Error('downstream unavailable');
      },
    };
    await enqueueJob(db.pool, 'test.flaky', {}, { maxAttempts: 3 });
    await drainJobs(db.pool, tasks);
    await drainJobs(db.pool, tasks); // not due yet: backoff pushed run_at into the future
    expect(calls).toBe(1);
    const job = await db.pool.query(`SELECT attempts, last_error, run_at > now() AS later FROM graphile_worker.jobs WHERE task_identifier = 'test.flaky'`);
    expect(job.rows[0]).toMatchObject({ attempts: 1, later: true });
    expect(job.rows[0].last_error).toContain('downstream unavailable');
  });

  it('runs a job once when two workers drain the queue at the same time', async () => {
    const ran: number[] = [];
    const tasks = { 'test.once': async (payload: Record<string, unknown>) => void ran.push(Number(payload.n)) };
    for (let n = 0; n < 20; n++) await enqueueJob(db.pool, 'test.once', { n });
    await Promise.all([drainJobs(db.pool, tasks), drainJobs(db.pool, tasks)]);
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});
