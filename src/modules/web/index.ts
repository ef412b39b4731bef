import type { RouteModule } from '../../http/app.js';
import { accountPages } from './account-pages.js';
import { apiKeysPages } from './api-keys-pages.js';
import { authPages } from './auth-pages.js';
import { connectionsPages } from './connections-pages.js';
import { consentPages } from './consent-pages.js';
import type { WebDeps } from './deps.js';
import { onboardingPages } from './onboarding-pages.js';

export { createSessions, SESSION_COOKIE, SESSION_TTL_MS } from './sessions.js';
export type { Sessions } from './sessions.js';
export type { WebDeps } from './deps.js';

/** The server-rendered pages: sign-up/in/out, account (organizations, tenants, API keys), consent, connections, express onboarding. */
export function webRoutes(deps: WebDeps): RouteModule {
  return async (app) => {
    for (const register of [authPages, accountPages, apiKeysPages, consentPages, connectionsPages, onboardingPages]) await register(deps)(app);
  };
}
