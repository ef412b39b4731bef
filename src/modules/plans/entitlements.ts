// Entitlements granted by a plan version or an add-on. Values are the features module's
// EntitlementValue (reference shape): BOOLEAN {enabled} or METERED {enabled, limit, reset_period}.
import type { Queryable } from '../../db/pool.js';
import { badRequest } from '../../kernel/errors.js';
import { findFeature, parseEntitlementValue, type EntitlementValue, type FeatureRef, type ResetPeriod } from '../features/index.js';

export type { EntitlementValue, ResetPeriod };

export interface EntitlementInput {
  feature_id: string;
  value: EntitlementValue;
}

export interface EntitlementRow {
  id: string;
  feature_id: string;
  value: EntitlementValue;
  created_at: Date;
  updated_at: Date;
}

/**
 * Validates entitlement inputs against their features (features module rules: BOOLEAN takes
 * {enabled}; METERED takes {enabled, limit, reset_period}). One entitlement per feature; an
 * archived feature cannot be granted.
 */
export async function parseEntitlements(db: Queryable, tenantId: string, raw: unknown, path: string): Promise<EntitlementInput[]> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest(`${path} must be an array`);
  const seen = new Set<string>();
  const out: EntitlementInput[] = [];
  for (const [i, item] of raw.entries()) {
    const p = `${path}[${i}]`;
    if (typeof item !== 'object' || item === null || typeof item.feature_id !== 'string' || !item.feature_id) throw badRequest(`${p}.feature_id is required`);
    const featureId: string = item.feature_id;
    const feature = await findFeature(db, tenantId, featureId);
    if (!feature || feature.id !== featureId) throw badRequest(`${p}.feature_id '${featureId}' is not a feature of this tenant`);
    if (feature.status === 'ARCHIVED') throw badRequest(`${p}.feature_id '${featureId}' is archived`);
    if (seen.has(featureId)) throw badRequest(`${p}.feature_id ${featureId} is entitled twice`);
    seen.add(featureId);
    out.push({ feature_id: featureId, value: parseEntitlementValue(feature.feature_type.type, item.value, `${p}.value`) });
  }
  return out;
}

/** Features by id, for showing resolved entitlements. */
export async function featuresById(db: Queryable, tenantId: string, ids: string[]): Promise<Map<string, FeatureRef>> {
  const out = new Map<string, FeatureRef>();
  for (const id of new Set(ids)) {
    const feature = await findFeature(db, tenantId, id);
    if (feature) out.set(id, feature);
  }
  return out;
}

/** Wire shape of an entitlement row (reference Entitlement). */
export function entitlementToWire(row: EntitlementRow) {
  return { id: row.id, feature_id: row.feature_id, value: row.value, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** Reference ResolvedEntitlement: the feature reference with the granted value. */
export function resolvedToWire(row: EntitlementRow, feature: FeatureRef | undefined) {
  const value =
    row.value.type === 'METERED'
      ? { type: 'METERED' as const, enabled: row.value.enabled, limit: row.value.limit, reset_period: row.value.reset_period, metric_id: feature?.feature_type.type === 'METERED' ? feature.feature_type.metric_id : null }
      : row.value;
  return {
    feature: { id: row.feature_id, code: feature?.code ?? '', name: feature?.name ?? '', product: feature?.product ?? null },
    value,
  };
}
