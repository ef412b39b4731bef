// Effective entitlements (customer and subscription) and subscription overrides.
// Priority, lowest first: feature default, plan version (trialing plan during a trial), add-ons, overrides.
export type { EntitlementsService, ConsumedUsage, EffectiveEntitlement } from './service.js';
export { createEntitlementsModule } from './module.js';
export { mostGenerous, mergeSameLevel, resolveLevels, usageWindow, remainingOf } from './resolve.js';
