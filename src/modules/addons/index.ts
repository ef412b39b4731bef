// Public surface of the add-ons module.
export type { AddOnsService, AddOnView } from './service.js';
export { createAddOnsModule } from './module.js';
// Lookups in the caller's transaction: subscriptions read an add-on with its price; plans (earlier
// in the module order) check attached add-ons and prices through functions the composition root passes.
export { findAddOn as findAddOnWithPrice, existingAddOnIds, existingPriceIds } from './repository.js';
export type { AddOnWithPrice, PriceRow } from './repository.js';
