import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { EntitlementValue } from './resolve.js';

export interface OverrideRow {
  id: string;
  subscription_id: string;
  feature_id: string;
  value: EntitlementValue;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, subscription_id, feature_id, value, created_at, updated_at';

export async function overridesOf(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<OverrideRow[]> {
  if (subscriptionIds.length === 0) return [];
  return scoped(db, tenantId).query<OverrideRow>(
    `SELECT ${COLUMNS} FROM subscription_entitlement_overrides WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY created_at, feature_id`,
    [subscriptionIds],
  );
}

/** Sets the override of one feature (one per subscription and feature); returns the row. */
export async function upsertOverride(db: Queryable, tenantId: string, row: OverrideRow): Promise<OverrideRow> {
  const saved = await scoped(db, tenantId).one<OverrideRow>(
    `INSERT INTO subscription_entitlement_overrides (tenant_id, id, subscription_id, feature_id, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (subscription_id, feature_id) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
     RETURNING ${COLUMNS}`,
    [row.id, row.subscription_id, row.feature_id, JSON.stringify(row.value), row.created_at, row.updated_at],
  );
  return saved!;
}

export async function deleteOverride(db: Queryable, tenantId: string, subscriptionId: string, featureId: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `DELETE FROM subscription_entitlement_overrides WHERE tenant_id = $1 AND subscription_id = $2 AND feature_id = $3 RETURNING id`,
    [subscriptionId, featureId],
  );
  return rows.length > 0;
}
