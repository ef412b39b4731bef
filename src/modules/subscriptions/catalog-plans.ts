// The SubscriptionCatalog wired by main.ts, from the catalog modules' exports: plan versions and
// their entitlements from plans, an add-on with its price from add-ons, the tenant's active
// features with their default entitlement from features. All run in the caller's transaction.
import { findAddOnWithPrice } from '../addons/index.js';
import { listActiveFeatures, type FeatureRef } from '../features/index.js';
import { entitlementsOfOwners, loadPlanVersionSnapshot, resolvePublishedVersionId, type PlanVersionSnapshot } from '../plans/index.js';
import type { CatalogAddOn, CatalogFeature, CatalogPlanVersion, EntitlementValue, SubscriptionCatalog } from './catalog.js';

/** Plan versions' and add-ons' entitlement values: owner id -> feature id -> value. */
export type CatalogValues = Awaited<ReturnType<SubscriptionCatalog['entitlementsOf']>>;

function fromSnapshot(s: PlanVersionSnapshot): CatalogPlanVersion {
  return {
    planId: s.plan.id,
    planName: s.plan.name,
    planDescription: null,
    planType: s.plan.plan_type,
    planStatus: s.plan.status,
    versionId: s.plan_version_id,
    version: s.version,
    isDraft: s.is_draft,
    currency: s.currency,
    netTerms: s.net_terms,
    periodStartDay: s.period_start_day,
    trialDurationDays: s.trial?.duration_days ?? null,
    trialIsFree: s.trial?.is_free ?? false,
    trialingPlanId: s.trial?.trialing_plan_id ?? null,
    usageThresholds: s.usage_thresholds,
    components: s.components.map((c) => ({ id: c.id, name: c.name, productId: c.product_id, fee: c.fee })),
    addOns: s.add_ons.map((a) => ({ addOnId: a.add_on_id, priceId: a.price_id, maxInstances: a.max_instances })),
  };
}

export const plansCatalog: SubscriptionCatalog = {
  async findPlanVersion(db, tenantId, selector) {
    const versionId = 'planVersionId' in selector ? selector.planVersionId : await resolvePublishedVersionId(db, tenantId, selector.planId, selector.version);
    if (!versionId) return undefined;
    const snapshot = await loadPlanVersionSnapshot(db, tenantId, versionId);
    return snapshot ? fromSnapshot(snapshot) : undefined;
  },

  async findAddOn(db, tenantId, addOnId): Promise<CatalogAddOn | undefined> {
    const row = await findAddOnWithPrice(db, tenantId, addOnId);
    if (!row) return undefined;
    return {
      id: row.id,
      name: row.name,
      productId: row.product_id,
      priceId: row.price_id,
      currency: row.price.currency,
      fee: row.price.fee,
      maxInstances: row.max_instances_per_subscription,
      archived: row.archived_at !== null,
    };
  },

  async entitlementsOf(db, tenantId, owners) {
    return catalogValuesOf(await entitlementsOfOwners(db, tenantId, owners));
  },

  async features(db, tenantId): Promise<CatalogFeature[]> {
    return (await listActiveFeatures(db, tenantId)).map(catalogFeatureOf);
  },
};

/** Catalog entitlement rows (each of a plan version or an add-on) as `entitlementsOf` gives them: owner id -> feature id -> value. */
export function catalogValuesOf(rows: Iterable<{ plan_version_id: string | null; add_on_id: string | null; feature_id: string; value: unknown }>): CatalogValues {
  const values: CatalogValues = { planVersions: new Map(), addOns: new Map() };
  for (const row of rows) {
    const [byOwner, ownerId] = row.plan_version_id !== null ? [values.planVersions, row.plan_version_id] : [values.addOns, row.add_on_id!];
    if (!byOwner.has(ownerId)) byOwner.set(ownerId, new Map());
    byOwner.get(ownerId)!.set(row.feature_id, row.value as EntitlementValue);
  }
  return values;
}

/** A feature as the catalog gives it. */
export function catalogFeatureOf(f: FeatureRef): CatalogFeature {
  return {
    id: f.id,
    code: f.code,
    name: f.name,
    status: f.status,
    metricId: f.feature_type.type === 'METERED' ? f.feature_type.metric_id : null,
    product: f.product,
    defaultValue: f.default_entitlement?.value ?? null,
  };
}
