// The checkout module assembled (src/module.ts): checkout sessions.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { SubscriptionCatalog } from '../subscriptions/index.js';
import { checkoutRoutes } from './routes.js';
import { createCheckoutService, type CheckoutService } from './service.js';

export function createCheckoutModule(deps: { pool: Pool; clock: Clock; catalog: SubscriptionCatalog }): Module<CheckoutService> {
  const service = createCheckoutService(deps);
  return { routes: checkoutRoutes(service), api: service };
}
