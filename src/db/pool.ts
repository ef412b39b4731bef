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
  keepConnectionsAfterStatementErrors(pool);
  return pool;
}

/**
 * `pool.query` of pg-pool closes its connection after any error, also an error PostgreSQL answers
 * about the statement itself (severity ERROR): a unique violation the caller expects (the fast
 * path of every re-sent usage batch), a conflict answered 409. The session is sound after such an
 * error (the statement ran on its own and was rolled back), and closing it made the next statement
 * wait for a new backend to start and authenticate. Here the connection goes back to the pool
 * after a statement's error; any other error (FATAL, a broken socket) still removes it, and so
 * does pg-pool for a connection that is ending. Callback and submittable forms (graphile-worker
 * may use them) keep pg-pool's own behaviour.
 */
function keepConnectionsAfterStatementErrors(pool: pg.Pool): void {
  // ERROR ends the statement; FATAL and PANIC (a terminated backend, a shutdown) end the session
  const isStatementError = (error: unknown) => error instanceof pg.DatabaseError && error.severity === 'ERROR';
  const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const query = async (statement: unknown, values?: unknown) => {
    const client = await pool.connect();
    // as pg-pool does: an error the connection raises during the statement must not go unhandled
    const onError = () => {};
    client.on('error', onError);
    let failure: unknown;
    try {
      return await client.query(statement as string, values as unknown[]);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(failure === undefined || isStatementError(failure) ? undefined : (failure as Error));
    }
  };
  pool.query = ((...args: unknown[]) => {
    const [statement] = args;
    const submittable = typeof (statement as { submit?: unknown } | null)?.submit === 'function';
    if (submittable || args.some((arg) => typeof arg === 'function')) return original(...args);
    return query(statement, args[1]);
  }) as typeof pool.query;
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
  keepConnectionsAfterStatementErrors(pool);
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
