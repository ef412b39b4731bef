import type { Queryable } from '../../db/pool.js';
import * as repo from './repository.js';
import type { FeatureRow } from './repository.js';
import type { EntitlementValue, FeatureStatus, FeatureType } from './values.js';

/** A feature as other modules (entitlements, plans, subscriptions) need it. */
export interface FeatureRef {
  id: string;
  code: string;
  name: string;
  status: FeatureStatus;
  feature_type: FeatureType;
  product: { id: string; name: string } | null;
  /** The feature-level (lowest-priority) entitlement, if any. */
  default_entitlement: { id: string; value: EntitlementValue; created_at: Date; updated_at: Date } | null;
}

/** The tenant's feature by id or code, or undefined; pass a transaction to read inside it. */
export async function findFeature(db: Queryable, tenantId: string, idOrCode: string): Promise<FeatureRef | undefined> {
  const row = await repo.findFeature(db, tenantId, idOrCode);
  return row ? featureRefOf(row) : undefined;
}

/** The tenant's active features, by code; pass a transaction to read inside it. */
export async function listActiveFeatures(db: Queryable, tenantId: string): Promise<FeatureRef[]> {
  return (await repo.listActiveFeatures(db, tenantId)).map(featureRefOf);
}

/** The feature of `activeFeatureOfRefSql`'s row, read as `to_jsonb` of it. */
export function featureRefOfJson(json: Record<string, unknown>): FeatureRef {
  return featureRefOf(repo.featureRowOfJson(json));
}

/** A stored feature with its type, product and default entitlement as tagged values (the wire shape's). */
export function featureRefOf(row: FeatureRow): FeatureRef {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    status: row.status,
    feature_type: row.feature_type === 'METERED' ? { type: 'METERED', metric_id: row.metric_id! } : { type: 'BOOLEAN' },
    product: row.product_id ? { id: row.product_id, name: row.product_name ?? '' } : null,
    default_entitlement:
      row.default_entitlement_id && row.default_entitlement_value
        ? {
            id: row.default_entitlement_id,
            value: row.default_entitlement_value,
            created_at: row.default_entitlement_created_at!,
            updated_at: row.default_entitlement_updated_at!,
          }
        : null,
  };
}
