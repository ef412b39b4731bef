import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkerUtils } from 'graphile-worker';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/db/migrate.js';
import { enqueueJob } from '../../src/jobs/queue.js';
import { recoverDeadWorkers, startWorker, type JobContext, type Worker } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

// Beats of a few hundred milliseconds stand for the default 15 s, so the test runs in seconds.
const HEARTBEAT_MS = 200;

let db: TestDatabase;
let child: ChildProcess | undefined;
let worker: Worker | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await worker?.stop();
  await db.drop();
});

async function lockedBy(task: string): Promise<string | null | undefined> {
  const { rows } = await db.pool.query<{ locked_by: string | null }>(`SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = $1`, [task]);
  return rows[0]?.locked_by;
}

describe('jobs of a crashed worker', () => {
  it('frees a dead process\'s jobs within a minute by default', () => {
    const { workerHeartbeatMs } = loadConfig({});
    // dead after three missed beats, noticed at the next beat of a live process, taken at its next poll (1 s)
    expect(workerHeartbeatMs * 4 + 1000).toBeLessThanOrEqual(60_000);
  });

  it('runs again on a live worker after the worker holding it is killed with SIGKILL, and the job record names the process', async () => {
    await enqueueJob(db.pool, 'test.render_pdf', { invoice_id: 'inv_1' });
    const spawned = spawn(process.execPath, ['--import', 'tsx', new URL('./fixtures/stuck-worker.ts', import.meta.url).pathname, db.url, String(HEARTBEAT_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = spawned;
    let output = '';
    spawned.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await expect.poll(() => output, { timeout: 60_000, interval: 100 }).toContain('job started');

    // The job record names the worker holding it: hostname:pid:random of the child, then its slot.
    const holder = await lockedBy('test.render_pdf');
    expect(holder).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${spawned.pid}:[0-9a-f]{8}/1$`));
    expect(output).toContain(`worker ${holder!.slice(0, -2)}`);

    // While the child beats, nobody takes its job away.
    const utils = await makeWorkerUtils({ pgPool: db.pool, logger: silentLogger() });
    expect(await recoverDeadWorkers(db.pool, utils, 60_000)).toEqual([]);
    await utils.release();
    expect(await lockedBy('test.render_pdf')).toBe(holder);

    const exited = new Promise((resolve) => spawned.once('exit', resolve));
    spawned.kill('SIGKILL');
    await exited;

    const ran: { payload: Record<string, unknown>; context: JobContext | undefined }[] = [];
    worker = await startWorker(db.pool, { 'test.render_pdf': async (payload, context) => void ran.push({ payload, context }) }, { concurrency: 2, heartbeatMs: HEARTBEAT_MS });
    await expect.poll(() => ran.length, { timeout: 30_000, interval: 100 }).toBe(1);
    expect(ran[0]!.payload).toEqual({ invoice_id: 'inv_1' });
    expect(ran[0]!.context?.workerId).toMatch(new RegExp(`^${worker.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[12]$`));
    expect(ran[0]!.context?.attempt).toBe(2);
    await expect.poll(() => lockedBy('test.render_pdf')).toBeUndefined();
    const registered = await db.pool.query<{ worker_id: string }>('SELECT worker_id FROM job_workers');
    expect(registered.rows.map((r) => r.worker_id)).toEqual([worker.id]);
  });
});
