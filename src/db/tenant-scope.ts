import type pg from 'pg';
import type { PageRequest } from '../kernel/paging.js';
import type { Queryable } from './pool.js';

const MENTIONS_TENANT = /\btenant_(?:id|key)\b/;
const USES_FIRST_PARAM = /\$1(?!\d)/;

/**
 * The one way repositories reach tenant data. The tenant id is always bound as `$1`, and a
 * statement that does not mention `tenant_id` (or `tenant_key`, the compact form of per-event
 * tables, looked up from `$1`) is refused before it reaches the database, so a
 * query cannot forget its tenant.
 */
export class TenantScope {
  constructor(
    private readonly db: Queryable,
    readonly tenantId: string,
  ) {}

  /**
   * `options.name` makes it a named statement: each connection parses it once, and PostgreSQL
   * may plan it once for all parameters (after five runs, when that plan costs no more than those
   * made for the parameters). For a fixed text read on a hot path whose plan does not depend on
   * the parameters' values (its planning can cost more than its execution); never for a text
   * built from data, which would prepare without bound on every connection.
   */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = [], options: { name?: string } = {}): Promise<R[]> {
    if (!MENTIONS_TENANT.test(text) || !USES_FIRST_PARAM.test(text)) {
      throw new Error('tenant-scoped SQL must filter or insert tenant_id = $1');
    }
    const values = [this.tenantId, ...params];
    const result = await this.db.query<R>(options.name ? { name: options.name, text, values } : text, options.name ? undefined : values);
    return result.rows;
  }

  async one<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R | undefined> {
    const rows = await this.query<R>(text, params);
    return rows[0];
  }

  /**
   * One page of `SELECT columns FROM from WHERE where ORDER BY orderBy`, and how many rows match
   * in all. `where` binds the tenant as $1 and `params` from $2; LIMIT and OFFSET follow them.
   */
  async page<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: { columns: string; from: string; where: string; orderBy: string },
    params: unknown[],
    page: PageRequest,
  ): Promise<{ rows: R[]; total: number }> {
    const limit = params.length + 2;
    const rows = await this.query<R>(
      `SELECT ${sql.columns} FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.orderBy} LIMIT $${limit} OFFSET $${limit + 1}`,
      [...params, page.perPage, page.page * page.perPage],
    );
    // A page that is not full is the last one: the total is known without counting every match
    // again (a search's second pass over its indexes; docs/dashboard.md, "Speed and size").
    const offset = page.page * page.perPage;
    if (rows.length > 0 && rows.length < page.perPage) return { rows, total: offset + rows.length };
    if (rows.length === 0 && offset === 0) return { rows, total: 0 };
    const count = await this.one<{ n: bigint }>(`SELECT count(*) AS n FROM ${sql.from} WHERE ${sql.where}`, params);
    return { rows, total: Number(count?.n ?? 0n) };
  }
}

export function scoped(db: Queryable, tenantId: string): TenantScope {
  return new TenantScope(db, tenantId);
}
