// The SubscriptionCatalog wired by main.ts, from the catalog modules' exports: plan versions and
// their entitlements from plans, an add-on with its price from add-ons, the tenant's active
// features with their default entitlement from features. All run in the caller's transaction.
import { findAddOnWithPrice } from '../addons/index.js';
import { listActiveFeatures } from '../features/index.js';
import { entitlementsOf as planEntitlementsOf, loadPlanVersionSnapshot, resolvePublishedVersionId, type PlanVersionSnapshot } from '../plans/index.js';
import type { CatalogAddOn, CatalogFeature, CatalogPlanVersion, EntitlementValue, SubscriptionCatalog } from './catalog.js';

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

  async entitlementsOf(db, tenantId, owner, ownerIds) {
    const result = new Map<string, Map<string, EntitlementValue>>();
    if (ownerIds.length === 0) return result;
    const rows = await planEntitlementsOf(db, tenantId, owner === 'plan_version' ? 'plan_version_id' : 'add_on_id', ownerIds);
    for (const row of rows) {
      if (!result.has(row.owner_id)) result.set(row.owner_id, new Map());
      result.get(row.owner_id)!.set(row.feature_id, row.value as EntitlementValue);
    }
    return result;
  },

  async features(db, tenantId): Promise<CatalogFeature[]> {
    const features = await listActiveFeatures(db, tenantId);
    return features.map((f) => ({
      id: f.id,
      code: f.code,
      name: f.name,
      status: f.status,
      metricId: f.feature_type.type === 'METERED' ? f.feature_type.metric_id : null,
      product: f.product,
      defaultValue: f.default_entitlement?.value ?? null,
    }));
  },
};
