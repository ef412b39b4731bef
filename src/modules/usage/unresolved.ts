// Customer references events were stored under while no customer had them (docs/usage.md,
// "Events before their customer"): the list that shows a typo instead of letting it go unnoticed.
import type { Pool } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { pageRequest, paginationMeta, parseOrderBy, type Page } from '../../kernel/paging.js';
import { CUSTOMER_NAMES_RELATION } from '../customers/index.js';

export interface UnresolvedCustomer {
  customer_ref: string;
  event_count: bigint;
  first_event_at: Date;
  last_event_at: Date;
  last_ingested_at: Date;
}

export const UNRESOLVED_ORDER_COLUMNS = ['event_count', 'customer_ref', 'last_ingested_at'] as const;
export const UNRESOLVED_DEFAULT_ORDER = 'event_count.desc';

/**
 * References still unresolved: counted at ingestion, less those a customer has taken as its alias
 * since (their events count for that customer now). A page, in the given order (customer_ref
 * breaks ties, so pages never overlap).
 */
export async function listUnresolvedCustomers(
  pool: Pool, tenantId: string, query: { page?: number; per_page?: number; order_by?: string },
): Promise<Page<UnresolvedCustomer>> {
  const page = pageRequest(query.page, query.per_page);
  const order = parseOrderBy(query.order_by, UNRESOLVED_ORDER_COLUMNS, { column: 'event_count', direction: 'desc' });
  const tieBreak = order.column === 'customer_ref' ? '' : ', u.customer_ref ASC';
  const { rows, total } = await scoped(pool, tenantId).page<UnresolvedCustomer>(
    {
      columns: 'u.customer_ref, u.event_count, u.first_event_at, u.last_event_at, u.last_ingested_at',
      from: 'usage_unresolved_customers u',
      where: `u.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM ${CUSTOMER_NAMES_RELATION} c WHERE c.tenant_id = $1 AND c.alias = u.customer_ref)`,
      orderBy: `u.${order.column} ${order.direction.toUpperCase()}${tieBreak}`,
    },
    [],
    page,
  );
  return { data: rows, pagination_meta: paginationMeta(page, total) };
}
