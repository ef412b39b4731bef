import type pg from 'pg';
import type { Queryable } from './pool.js';

const MENTIONS_TENANT = /\btenant_id\b/;
const USES_FIRST_PARAM = /\$1(?!\d)/;

/**
 * The one way repositories reach tenant data. The tenant id is always bound as `$1`, and a
 * statement that does not mention `tenant_id` is refused before it reaches the database, so a
 * query cannot forget its tenant.
 */
export class TenantScope {
  constructor(
    private readonly db: Queryable,
    readonly tenantId: string,
  ) {}

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
    if (!MENTIONS_TENANT.test(text) || !USES_FIRST_PARAM.test(text)) {
      throw new Error('tenant-scoped SQL must filter or insert tenant_id = $1');
    }
    const result = await this.db.query<R>(text, [this.tenantId, ...params]);
    return result.rows;
  }

  async one<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R | undefined> {
    const rows = await this.query<R>(text, params);
    return rows[0];
  }
}

export function scoped(db: Queryable, tenantId: string): TenantScope {
  return new TenantScope(db, tenantId);
}
