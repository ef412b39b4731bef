// The web module assembled (src/module.ts): the server-rendered pages: sign-up/in/out, account
// (organizations, tenants, API keys), consent, connections, express onboarding.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { accountPages } from './account-pages.js';
import { apiKeysPages } from './api-keys-pages.js';
import { authPages } from './auth-pages.js';
import { connectionsPages } from './connections-pages.js';
import { consentPages } from './consent-pages.js';
import type { WebDeps } from './deps.js';
import { onboardingPages } from './onboarding-pages.js';
import { createSessions } from './sessions.js';
import { createSessionApi, sessionRoutes } from './session-api.js';

export function createWebModule(
  deps: Omit<WebDeps, 'sessions'> & { pool: Pool; clock: Clock; secretKey: string; secureCookies: boolean; publicBaseUrl: string | undefined },
): Module<ReturnType<typeof createSessionApi>> {
  const { pool, clock, secretKey, secureCookies, publicBaseUrl, ...services } = deps;
  const pages: WebDeps = { ...services, sessions: createSessions({ pool, clock, secretKey, secureCookies }) };
  // The sign-in session as an API credential for same-origin pages (docs/dashboard-api.md).
  const sessionApi = { sessions: pages.sessions, users: services.users, accounts: services.accounts, publicBaseUrl };
  return {
    routes: async (app) => {
      for (const register of [authPages, accountPages, apiKeysPages, consentPages, connectionsPages, onboardingPages]) await register(pages)(app);
      sessionRoutes(sessionApi)(app);
    },
    api: createSessionApi(sessionApi),
  };
}
