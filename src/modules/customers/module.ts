// The customers module assembled (src/module.ts): customers and their credit balance.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { customerRoutes } from './routes.js';
import { createCustomersService, type CustomerConnectedAccountCheck, type CustomerEntityCheck, type CustomerSubscriptionCheck, type CustomersService } from './service.js';
import type { TestClockTime } from './test-clocks.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';

/**
 * `subscriptions`, `entities`, `connectedAccounts` and `testClockTime` come from later modules: a customer with live
 * subscriptions is not archived, its invoicing entity is checked or defaulted by invoices, its
 * connected account must be one of the tenant's (oauth), and a
 * customer created on a test clock takes the clock's time (test-clocks).
 */
export function createCustomersModule(deps: {
  pool: Pool; clock: Clock; properties: CustomPropertiesPort; subscriptions: CustomerSubscriptionCheck; entities: CustomerEntityCheck; connectedAccounts: CustomerConnectedAccountCheck;
  testClockTime?: TestClockTime;
}): Module<CustomersService> {
  const service = createCustomersService(deps);
  return { routes: customerRoutes(service), api: service };
}
