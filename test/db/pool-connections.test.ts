// The main pool (db/pool.ts) keeps a connection after a statement's own error: closing it made
// the next statement wait for a new backend (every re-sent usage batch's fast path fails on
// purpose). A broken connection is still removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;
let pool: Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 1); // one connection: the backend asked below is the one that failed
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const backend = async () => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

describe('the pool', () => {
  it('keeps its connection after errors PostgreSQL answers about a statement, named ones too', async () => {
    const before = await backend();
    await expect(pool.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
    await expect(pool.query({ name: 'failing_insert', text: 'SELECT 1 / $1::int AS r', values: [0] })).rejects.toMatchObject({ code: '22012' });
    expect(await backend()).toBe(before);
    // the named statement is still prepared on that connection and runs with other values
    expect((await pool.query<{ r: number }>({ name: 'failing_insert', text: 'SELECT 1 / $1::int AS r', values: [1] })).rows).toEqual([{ r: 1 }]);
  });

  it('replaces a connection that broke', async () => {
    const before = await backend();
    await expect(pool.query('SELECT pg_terminate_backend(pg_backend_pid())')).rejects.toThrow();
    const after = await backend();
    expect(after).not.toBe(before);
  });
});
