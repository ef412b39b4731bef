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
