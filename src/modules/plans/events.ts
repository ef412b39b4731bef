import type { PlanRow, VersionRow } from './repository.js';

/** `data` of plan.* events, in the reference's PlanEventData shape; `version` is the version concerned. */
export function planEventData(plan: PlanRow, version: VersionRow): Record<string, unknown> {
  return {
    plan_id: plan.id,
    name: plan.name,
    description: plan.description,
    plan_type: plan.plan_type,
    status: plan.status,
    currency: version.currency,
    version: version.version,
    custom_properties: plan.custom_properties,
    created_at: plan.created_at.toISOString(),
  };
}
