// SQL of the entitlements module's own table: customer-level overrides.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { EntitlementValue } from '../features/index.js';

export interface CustomerOverrideRow {
  id: string;
  customer_id: string;
  feature_id: string;
  value: EntitlementValue;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, customer_id, feature_id, value, created_at, updated_at';

export async function customerOverridesOf(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<CustomerOverrideRow[]> {
  if (customerIds.length === 0) return [];
  return scoped(db, tenantId).query<CustomerOverrideRow>(`SELECT ${COLUMNS} FROM customer_entitlement_overrides WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}

export async function upsertCustomerOverride(db: Queryable, tenantId: string, row: CustomerOverrideRow): Promise<CustomerOverrideRow> {
  const saved = await scoped(db, tenantId).one<CustomerOverrideRow>(
    `INSERT INTO customer_entitlement_overrides (tenant_id, id, customer_id, feature_id, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, customer_id, feature_id) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
     RETURNING ${COLUMNS}`,
    [row.id, row.customer_id, row.feature_id, JSON.stringify(row.value), row.created_at, row.updated_at],
  );
  return saved!;
}

export async function deleteCustomerOverride(db: Queryable, tenantId: string, customerId: string, featureId: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(`DELETE FROM customer_entitlement_overrides WHERE tenant_id = $1 AND customer_id = $2 AND feature_id = $3 RETURNING id`, [customerId, featureId]);
  return rows.length > 0;
}
