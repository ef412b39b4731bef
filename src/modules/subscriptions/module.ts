// The subscriptions module assembled (src/module.ts): subscriptions, their fees and lifecycle.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { SubscriptionCatalog } from './catalog.js';
import { subscriptionRoutes } from './routes.js';
import { createSubscriptionsService, type SubscriptionsService } from './service.js';

/** `catalog` reads plans, add-ons and features (`plansCatalog` is the one built on their modules). */
export function createSubscriptionsModule(deps: { pool: Pool; clock: Clock; catalog: SubscriptionCatalog }): Module<SubscriptionsService> {
  const service = createSubscriptionsService(deps);
  return { routes: subscriptionRoutes(service), api: service };
}
