// The SubscriptionCatalog wired by main.ts: plan versions and their entitlements come from the
// plans module's exports (loadPlanVersionSnapshot, resolvePublishedVersionId, entitlementsOf).
// Two small reads stay here because their modules export no loader usable inside a caller's
// transaction: an add-on with its price (the add-ons module exports only its service), and the
// tenant's active features with their default entitlement (the features module exports only
// findFeature by id or code). Both are tenant-scoped and read-only.
import { scoped } from '../../db/tenant-scope.js';
import { entitlementsOf as planEntitlementsOf, loadPlanVersionSnapshot, resolvePublishedVersionId, type PlanVersionSnapshot } from '../plans/index.js';
import type { CatalogAddOn, CatalogFee, CatalogFeature, CatalogPlanVersion, EntitlementValue, SubscriptionCatalog } from './catalog.js';

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
    // PlanFee and CatalogFee describe the same stored JSON; CatalogFee is the subset fees.ts reads.
    components: s.components.map((c) => ({ id: c.id, name: c.name, productId: c.product_id, fee: c.fee as CatalogFee })),
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
    const row = await scoped(db, tenantId).one<{ id: string; name: string; product_id: string; price_id: string; currency: string; fee: CatalogFee; max: number | null; archived_at: Date | null }>(
      `SELECT a.id, a.name, a.product_id, a.price_id, pr.currency, pr.fee, a.max_instances_per_subscription AS max, a.archived_at
       FROM add_ons a JOIN prices pr ON pr.id = a.price_id AND pr.tenant_id = a.tenant_id
       WHERE a.tenant_id = $1 AND a.id = $2`,
      [addOnId],
    );
    if (!row) return undefined;
    return { id: row.id, name: row.name, productId: row.product_id, priceId: row.price_id, currency: row.currency, fee: row.fee, maxInstances: row.max, archived: row.archived_at !== null };
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
    const rows = await scoped(db, tenantId).query<{ id: string; code: string; name: string; status: string; metric_id: string | null; product_id: string | null; product_name: string | null; default_entitlement_value: EntitlementValue | null }>(
      `SELECT f.id, f.code, f.name, f.status, f.metric_id, f.product_id, p.name AS product_name, f.default_entitlement_value
       FROM features f LEFT JOIN products p ON p.id = f.product_id AND p.tenant_id = f.tenant_id
       WHERE f.tenant_id = $1 AND f.status = 'ACTIVE' ORDER BY f.code`,
    );
    return rows.map((r) => ({
      id: r.id,
      code: r.code,
      name: r.name,
      status: r.status,
      metricId: r.metric_id,
      product: r.product_id ? { id: r.product_id, name: r.product_name ?? '' } : null,
      defaultValue: r.default_entitlement_value,
    }));
  },
};
