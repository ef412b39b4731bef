// Removing the usage of customers that are deleted (a test clock's deletion, docs/test-clocks.md):
// their events, the dedup ledger entries of those events, and their rollups.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { ROLLUP_TABLES, TENANT_KEY } from './repository.js';

/**
 * Deletes every usage event stored under these customer references (ids and aliases) with its
 * event id (a later event may use the id again) and the rollups folded from them, in the caller's
 * transaction.
 */
export async function deleteUsageOfCustomers(db: Queryable, tenantId: string, customerRefs: readonly string[]): Promise<void> {
  if (customerRefs.length === 0) return;
  const s = scoped(db, tenantId);
  await s.query(
    `WITH gone AS (DELETE FROM usage_events WHERE tenant_key = ${TENANT_KEY} AND customer_ref = ANY($2::text[]) RETURNING event_id)
     DELETE FROM usage_event_ids WHERE tenant_key = ${TENANT_KEY} AND event_id IN (SELECT event_id FROM gone)`,
    [customerRefs],
  );
  for (const table of ROLLUP_TABLES) await s.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND customer_ref = ANY($2::text[])`, [customerRefs]);
}
