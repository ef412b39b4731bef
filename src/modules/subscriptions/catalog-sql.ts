// Default SubscriptionCatalog: reads the catalog tables (migrations 0101, 0150, 0151) directly,
// tenant-scoped, read-only. It exists because the plans/add-ons modules did not export loaders
// yet when subscriptions were written; main.ts may wire their index.ts exports instead.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { CatalogAddOn, CatalogFee, CatalogFeature, CatalogPlanVersion, EntitlementValue, SubscriptionCatalog } from './catalog.js';

interface VersionJoin {
  plan_id: string;
  name: string;
  description: string | null;
  plan_type: CatalogPlanVersion['planType'];
  status: string;
  id: string;
  version: number;
  is_draft: boolean;
  currency: string;
  net_terms: number;
  period_start_day: number | null;
  trial_duration_days: number | null;
  trial_is_free: boolean;
  trialing_plan_id: string | null;
}

async function loadVersion(db: Queryable, tenantId: string, where: string, params: unknown[]): Promise<CatalogPlanVersion | undefined> {
  const s = scoped(db, tenantId);
  const row = await s.one<VersionJoin>(
    `SELECT p.id AS plan_id, p.name, p.description, p.plan_type, p.status, v.id, v.version, v.is_draft, v.currency, v.net_terms,
            v.period_start_day, v.trial_duration_days, v.trial_is_free, v.trialing_plan_id
     FROM plan_versions v JOIN plans p ON p.id = v.plan_id AND p.tenant_id = v.tenant_id
     WHERE v.tenant_id = $1 AND ${where}`,
    params,
  );
  if (!row) return undefined;
  const components = await s.query<{ id: string; name: string; product_id: string; fee: CatalogFee }>(
    `SELECT id, name, product_id, fee FROM price_components WHERE tenant_id = $1 AND plan_version_id = $2 ORDER BY position`,
    [row.id],
  );
  const addOns = await s.query<{ add_on_id: string; price_id: string | null; max_instances: number | null }>(
    `SELECT add_on_id, price_id, max_instances FROM plan_version_add_ons WHERE tenant_id = $1 AND plan_version_id = $2`,
    [row.id],
  );
  return {
    planId: row.plan_id,
    planName: row.name,
    planDescription: row.description,
    planType: row.plan_type,
    planStatus: row.status,
    versionId: row.id,
    version: row.version,
    isDraft: row.is_draft,
    currency: row.currency,
    netTerms: row.net_terms,
    periodStartDay: row.period_start_day,
    trialDurationDays: row.trial_duration_days,
    trialIsFree: row.trial_is_free,
    trialingPlanId: row.trialing_plan_id,
    components: components.map((c) => ({ id: c.id, name: c.name, productId: c.product_id, fee: c.fee })),
    addOns: addOns.map((a) => ({ addOnId: a.add_on_id, priceId: a.price_id, maxInstances: a.max_instances })),
  };
}

export const sqlCatalog: SubscriptionCatalog = {
  findPlanVersion(db, tenantId, selector) {
    if ('planVersionId' in selector) return loadVersion(db, tenantId, 'v.id = $2', [selector.planVersionId]);
    if (selector.version !== undefined) return loadVersion(db, tenantId, 'v.plan_id = $2 AND v.version = $3', [selector.planId, selector.version]);
    return loadVersion(db, tenantId, 'v.plan_id = $2 AND v.id = p.active_version_id', [selector.planId]);
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
    const column = owner === 'plan_version' ? 'plan_version_id' : 'add_on_id';
    const rows = await scoped(db, tenantId).query<{ owner_id: string; feature_id: string; value: EntitlementValue }>(
      `SELECT ${column} AS owner_id, feature_id, value FROM catalog_entitlements WHERE tenant_id = $1 AND ${column} = ANY($2)`,
      [ownerIds],
    );
    const result = new Map<string, Map<string, EntitlementValue>>();
    for (const row of rows) {
      if (!result.has(row.owner_id)) result.set(row.owner_id, new Map());
      result.get(row.owner_id)!.set(row.feature_id, row.value);
    }
    return result;
  },

  async features(db, tenantId): Promise<CatalogFeature[]> {
    const rows = await scoped(db, tenantId).query<{ id: string; code: string; name: string; status: string; metric_id: string | null; product_id: string | null; product_name: string | null; default_entitlement_value: EntitlementValue | null }>(
      `SELECT f.id, f.code, f.name, f.status, f.metric_id, f.product_id, p.name AS product_name, f.default_entitlement_value
       FROM features f LEFT JOIN products p ON p.id = f.product_id
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
