// What subscriptions and invoicing read of a plan: a version frozen as a typed snapshot.
// Published versions never change, so a snapshot of one stays true for its subscriptions.
import type { Queryable } from '../../db/pool.js';
import type { EntitlementValue } from './entitlements.js';
import type { PlanFee } from './fees.js';
import type { TrialSettings, VersionTerms } from './plan-input.js';
import * as repo from './repository.js';
import type { PlanStatus, PlanType } from './repository.js';

export interface PlanVersionSnapshot extends VersionTerms {
  plan: { id: string; name: string; plan_type: PlanType; status: PlanStatus; product_family_id: string };
  plan_version_id: string;
  version: number;
  is_draft: boolean;
  /** In position order; `fee` prices are decimal strings (see fees.ts for each shape). */
  components: { id: string; name: string; product_id: string; fee: PlanFee }[];
  add_ons: { add_on_id: string; price_id: string | null; max_instances: number | null; self_serviceable: boolean | null }[];
  entitlements: { id: string; feature_id: string; value: EntitlementValue }[];
}

export async function loadPlanVersionSnapshot(db: Queryable, tenantId: string, planVersionId: string): Promise<PlanVersionSnapshot | undefined> {
  const version = await repo.findVersion(db, tenantId, planVersionId);
  if (!version) return undefined;
  const plan = (await repo.findPlan(db, tenantId, version.plan_id))!;
  const [components, addOns, entitlements] = [
    await repo.componentsOf(db, tenantId, [version.id]),
    await repo.planAddOnsOf(db, tenantId, [version.id]),
    await repo.entitlementsOf(db, tenantId, 'plan_version_id', [version.id]),
  ];
  return {
    plan: { id: plan.id, name: plan.name, plan_type: plan.plan_type, status: plan.status, product_family_id: plan.product_family_id },
    plan_version_id: version.id,
    version: version.version,
    is_draft: version.is_draft,
    currency: version.currency,
    net_terms: version.net_terms,
    billing_cycles: version.billing_cycles,
    period_start_day: version.period_start_day,
    tax_inclusive: version.tax_inclusive,
    trial: trialOf(version),
    minimum_commitment: version.minimum_commitment,
    usage_thresholds: version.usage_thresholds,
    components: components.map((c) => ({ id: c.id, name: c.name, product_id: c.product_id, fee: c.fee })),
    add_ons: addOns.map(({ plan_version_id: _v, ...a }) => a),
    entitlements: entitlements.map((e) => ({ id: e.id, feature_id: e.feature_id, value: e.value })),
  };
}

/**
 * The version new subscriptions of a plan get: its published version, or undefined when the plan
 * is missing, archived, or was never published. `version` picks a specific published version.
 */
export async function resolvePublishedVersionId(db: Queryable, tenantId: string, planId: string, version?: number): Promise<string | undefined> {
  const plan = await repo.findPlan(db, tenantId, planId);
  if (!plan || plan.status === 'ARCHIVED' || !plan.active_version_id) return undefined;
  if (version === undefined) return plan.active_version_id;
  const row = await repo.findVersionByNumber(db, tenantId, planId, version);
  return row && !row.is_draft ? row.id : undefined;
}

function trialOf(version: repo.VersionRow): TrialSettings | null {
  return version.trial_duration_days === null
    ? null
    : { duration_days: version.trial_duration_days, is_free: version.trial_is_free, trialing_plan_id: version.trialing_plan_id };
}

/** Trial settings of a plan version (null = no trial). */
export async function loadTrialSettings(db: Queryable, tenantId: string, planVersionId: string): Promise<TrialSettings | null | undefined> {
  const version = await repo.findVersion(db, tenantId, planVersionId);
  return version ? trialOf(version) : undefined;
}
