// The catalog module assembled (src/module.ts): product families and products.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { createProductsService, type MetricExists, type ProductsService } from './products-service.js';
import { productRoutes } from './routes.js';

/** `metricExists` comes from metrics, a later module: a product's metric must exist in the tenant. */
export function createCatalogModule(deps: { pool: Pool; clock: Clock; metricExists: MetricExists; properties: CustomPropertiesPort }): Module<ProductsService> {
  const service = createProductsService(deps);
  return { routes: productRoutes(service), api: service };
}
