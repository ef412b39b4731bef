import type pg from 'pg';
import type { NamedStatement, Pool, PoolClient, Queryable } from './pool.js';

/** A connection inside a transaction. Only `query` is offered: the transaction owns the rest. */
export type Tx = Queryable;

/**
 * One connection runs one statement at a time. Services sometimes start several reads at once
 * (`Promise.all`); chaining them here keeps that correct without relying on pg's deprecated
 * implicit queue.
 */
function serialized(client: PoolClient): Tx {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | NamedStatement, params?: unknown[]) {
      const run = tail.then(() => (typeof statement === 'string' ? client.query<R>(statement, params) : client.query<R>(statement)));
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

/** Runs `work` in one transaction: commit when it resolves, roll back when it throws. */
export async function withTx<T>(pool: Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(serialized(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** PostgreSQL error code of a unique violation, for mapping to 409 CONFLICT. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
