// What the composition root may use from the customer portal (docs/portal.md).
import type { RouteModule } from '../../http/app.js';
import { portalPage } from './page.js';
import { portalApiRoutes } from './routes.js';
import type { PortalTokensService } from './tokens-service.js';
import type { PortalViewsService } from './views-service.js';

export { createPortalTokensService, DEFAULT_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS, MAX_EXPIRES_IN_SECONDS } from './tokens-service.js';
export type { PortalTokensService, PortalPrincipal, IssuedPortalToken } from './tokens-service.js';
export { createPortalViewsService } from './views-service.js';
export type { PortalViewsService, PortalViewsDeps, SubscriptionUsageReport } from './views-service.js';

/** Token endpoints (API key), the portal JSON API (portal token) and the portal page. */
export function portalRoutes(tokens: PortalTokensService, views: PortalViewsService): RouteModule {
  return async (app) => {
    portalApiRoutes(tokens, views)(app);
    portalPage(tokens, views)(app);
  };
}
