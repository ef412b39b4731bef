// The portal module assembled (src/module.ts): customer portal tokens, the portal JSON API and page.
import type { Module } from '../../module.js';
import { portalPage } from './page.js';
import { portalApiRoutes } from './routes.js';
import { createPortalTokensService } from './tokens-service.js';
import { createPortalViewsService, type PortalViewsDeps } from './views-service.js';
import type { PortalPayments } from './payments.js';

/** Token endpoints (API key), the portal JSON API (portal token) and the portal page. */
export function createPortalModule(deps: PortalViewsDeps & { publicBaseUrl: string | undefined; payments?: PortalPayments }): Module {
  const tokens = createPortalTokensService(deps);
  const views = createPortalViewsService(deps);
  return {
    routes: async (app) => {
      portalApiRoutes(tokens, views)(app);
      portalPage(tokens, views, deps.payments)(app);
    },
    api: {},
  };
}
