// The subscriptions module assembled (src/module.ts): subscriptions, their fees and lifecycle.
import type { Module } from '../../module.js';
import { subscriptionRoutes } from './routes.js';
import { createSubscriptionsService, type SubscriptionsDeps } from './service.js';
import { routedByTestClock, type RoutedSubscriptionsService } from './test-clocks.js';

/**
 * `catalog` reads plans, add-ons and features (`plansCatalog` is the one built on their modules);
 * `nextInvoiceDate` is the billing engine's, through invoices (a later module); `testClockTime`
 * (test-clocks) puts requests about a test clock's customers on that clock.
 */
export function createSubscriptionsModule(deps: Omit<SubscriptionsDeps, 'testClockId'>): Module<RoutedSubscriptionsService> {
  const service = routedByTestClock(deps, createSubscriptionsService(deps));
  return { routes: subscriptionRoutes(service), api: service };
}
