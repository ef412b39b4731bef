export type { FeaturesService } from './service.js';
export { createFeaturesModule } from './module.js';
// In the caller's transaction: add-ons list a product's features, subscriptions read the active ones.
export { featureRefOfJson, findFeature, listActiveFeatures } from './lookup.js';
export { activeFeatureOfRefSql, featureIdsOfProduct } from './repository.js';
export type { FeatureRow } from './repository.js';
export type { FeatureRef } from './lookup.js';
export { parseEntitlementValue, parseResetPeriod, FEATURE_STATUSES, FEATURE_TYPES, RESET_PERIOD_TYPES, CALENDAR_UNITS, OVERAGE_POLICIES } from './values.js';
export type { EntitlementValue, ResetPeriod, FeatureStatus, FeatureType, FeatureTypeName, CalendarUnit, OveragePolicy } from './values.js';
/** Wire schemas of an entitlement, for modules that return entitlements (plans, add-ons, subscriptions). */
export { EntitlementSchema, EntitlementValueSchema, ResetPeriodSchema } from './schemas.js';
