import { createHash } from 'node:crypto';
import pg from 'pg';

// int8 (COUNT, minor-unit amounts) as bigint, never a lossy number; numeric and date stay text.
pg.types.setTypeParser(20, (value) => BigInt(value));
pg.types.setTypeParser(1082, (value) => value);

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/** Anything that can run a query: the pool or a client inside a transaction. */
export interface Queryable {
  /** `statement` may be a named statement, prepared once per connection (see TenantScope.query). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | NamedStatement, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface NamedStatement {
  name: string;
  text: string;
  values: unknown[];
}

export function createPool(url: string, max = 20): Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/** Connections whose statements are planned once (see `createPlannedOncePool`). */
export interface PlannedOncePool extends Queryable {
  /** The connections themselves (the bench counts the statements sent through them). */
  readonly pool: Pool;
  end(): Promise<void>;
}

/**
 * Connections of their own for the hot reads whose planning costs more than their execution
 * (the entitlement check's reads: docs/credits-and-alerts.md). Every statement is prepared
 * once per connection (under its own name, or one derived from its text), and these sessions
 * plan prepared statements once for all values (`plan_cache_mode = force_generic_plan`, a
 * startup parameter).
 * PostgreSQL's default would keep planning the usage read for each call: a plan for any values of
 * a statement over monthly partitions is costed with every partition, so it never looks cheaper
 * than a plan made for the values, though it runs as fast.
 *
 * Only texts written for such plans may come here (no `($n IS NULL OR ...)` conditions, which a
 * plan for any value cannot use as index conditions), and only texts from a bounded set (each is
 * prepared on every connection): the usage read's text depends on the metric's shape, never on
 * its values. The setting is per session, so it cannot reach the main pool's statements.
 */
export function createPlannedOncePool(from: Pool, max: number): PlannedOncePool {
  const { options } = from as unknown as { options: pg.PoolConfig };
  const pool = new pg.Pool({ ...options, max, options: '-c plan_cache_mode=force_generic_plan' });
  pool.on('error', () => {});
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) {
      name = `once_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    pool,
    query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | NamedStatement, params?: unknown[]) {
      if (typeof statement !== 'string') return pool.query<R>(statement);
      return pool.query<R>({ name: nameOf(statement), text: statement, values: params ?? [] });
    },
    end: () => pool.end(),
  };
}
