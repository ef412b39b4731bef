// Public surface of the add-ons module.
export { createAddOnsService } from './service.js';
export type { AddOnsService, AddOnView } from './service.js';
export { addOnRoutes } from './routes.js';
// Lookups in the caller's transaction: subscriptions read an add-on with its price; plans (earlier
// in the module order) check attached add-ons and prices through functions the composition root passes.
export { findAddOn as findAddOnWithPrice, existingAddOnIds, existingPriceIds } from './repository.js';
export type { AddOnWithPrice, PriceRow } from './repository.js';
