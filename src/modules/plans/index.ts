// Public surface of the plans module. Other modules import only from here.
//
// For subscriptions and invoicing (stable interface):
// - loadPlanVersionSnapshot(db, tenantId, planVersionId) -> PlanVersionSnapshot | undefined:
//   a version with its components (fees with decimal-string prices, in position order), add-ons,
//   entitlements, trial and minimum commitment. Published versions never change.
// - resolvePublishedVersionId(db, tenantId, planId, version?) -> plv id | undefined: the version
//   new subscriptions get (the plan's published version; undefined if archived/never published).
// - loadTrialSettings(db, tenantId, planVersionId) -> TrialSettings | null (no trial) | undefined (no version).
// - availableParameters(components): what a subscription must choose (billing period, capacity, slots).
// - PlanFee / UsagePricing / TierRow...: the stored fee and its parts (see docs/catalog-plans-addons.md).
export type { PlansService } from './plans-service.js';
export { createPlansModule } from './module.js';
export { loadPlanVersionSnapshot, resolvePublishedVersionId, loadTrialSettings } from './snapshot.js';
export { planExists, PLAN_DESCRIPTIONS_RELATION } from './repository.js';
export type { PlanVersionSnapshot } from './snapshot.js';
export type { TrialSettings } from './plan-input.js';
export { parsePlanFee, availableParameters, decimalString, BILLING_TERMS } from './fees.js';
export type { PlanFee, UsagePricing, TierRow, TermRate, CapacityThreshold, MatrixRow, AvailableParameters } from './fees.js';
export { parseEntitlements, entitlementToWire, resolvedToWire, featuresById } from './entitlements.js';
export type { EntitlementValue, EntitlementInput, EntitlementRow } from './entitlements.js';
export type { MinimumCommitment, PlanStatus, PlanType } from './repository.js';
// Spend thresholds: checked once here for plan versions and subscriptions.
export { parseUsageThresholds, UsageThresholdsSchema, type UsageThreshold } from './thresholds.js';
// Entitlement rows of plan versions and add-ons share one table (catalog_entitlements); the
// add-ons module writes its own through these.
export { insertEntitlements, deleteEntitlements, entitlementsOf, entitlementsOfOwners, entitlementsOfOwnersSql } from './repository.js';
// Wire schemas shared with the add-ons module.
export { FeeSchema, ResolvedEntitlementList, EntitlementInputSchema, Entitlement as EntitlementWireSchema } from './schemas.js';
