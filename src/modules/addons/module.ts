// The add-ons module assembled (src/module.ts): add-ons and their prices.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { ProductsService } from '../catalog/index.js';
import { addOnRoutes } from './routes.js';
import { createAddOnsService, type AddOnsService } from './service.js';

export function createAddOnsModule(deps: { pool: Pool; clock: Clock; products: Pick<ProductsService, 'findProduct'> }): Module<AddOnsService> {
  const service = createAddOnsService(deps);
  return { routes: addOnRoutes(service), api: service };
}
