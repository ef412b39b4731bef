// The checkout module assembled (src/module.ts): checkout sessions.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { SubscriptionCatalog } from '../subscriptions/index.js';
import { checkoutRoutes } from './routes.js';
import { createCheckoutService, type CheckoutService } from './service.js';
import { createCheckoutLinks } from './page-links.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';

export function createCheckoutModule(deps: { pool: Pool; clock: Clock; catalog: SubscriptionCatalog; properties: CustomPropertiesPort; secretKey: string; publicBaseUrl: string | undefined }): Module<CheckoutService> {
  // the hosted checkout page is served by payments (a later module); its links are the session's own
  const service = createCheckoutService({ ...deps, links: createCheckoutLinks(deps) });
  return { routes: checkoutRoutes(service), api: service };
}
