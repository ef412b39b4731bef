// The subscriptions module assembled (src/module.ts): subscriptions, their fees and lifecycle.
import type { Module } from '../../module.js';
import { subscriptionRoutes } from './routes.js';
import { createSubscriptionsService, type SubscriptionsDeps, type SubscriptionsService } from './service.js';

/**
 * `catalog` reads plans, add-ons and features (`plansCatalog` is the one built on their modules);
 * `nextInvoiceDate` is the billing engine's, through invoices (a later module).
 */
export function createSubscriptionsModule(deps: SubscriptionsDeps): Module<SubscriptionsService> {
  const service = createSubscriptionsService(deps);
  return { routes: subscriptionRoutes(service), api: service };
}
