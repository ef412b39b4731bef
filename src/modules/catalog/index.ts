export type { ProductsService, MetricExists } from './products-service.js';
export { createCatalogModule } from './module.js';
export { parseFeeStructure, FEE_TYPES, USAGE_MODELS } from './fees.js';
export type { FeeStructure, FeeType, UsageModel } from './fees.js';
export type { ProductRow, ProductFamilyRow } from './repository.js';
// Lookups in the caller's transaction, for modules after this one (metrics, features).
export { findProduct, findFamily as findProductFamily, PRODUCT_NAMES_RELATION } from './repository.js';
