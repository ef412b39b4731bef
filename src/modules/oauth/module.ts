// The oauth module assembled (src/module.ts): OAuth apps and tokens, connected accounts, and the
// user and consent services the sign-in pages (web) use.
import type { Module } from '../../module.js';
import { createOAuthAppsService } from './apps-service.js';
import { createAuthorizeService, type AuthorizeService } from './authorize-service.js';
import { createConnectService, type ConnectDeps, type ConnectService } from './connect-service.js';
import { connectedAccountRoutes, oauthAppRoutes } from './routes.js';
import { oauthTokenRoutes } from './token-routes.js';
import { createTokenService, type TokenService } from './token-service.js';
import { createUsersService, type UsersService } from './users-service.js';

export interface OAuthApi {
  tokens: TokenService;
  connect: ConnectService;
  users: UsersService;
  authorize: AuthorizeService;
}

export function createOAuthModule(deps: ConnectDeps): Module<OAuthApi> {
  const { pool, clock } = deps;
  const apps = createOAuthAppsService({ pool, clock });
  const tokens = createTokenService({ pool, clock });
  const connect = createConnectService(deps);
  return {
    routes: async (app) => {
      for (const register of [oauthAppRoutes(apps), connectedAccountRoutes(connect), oauthTokenRoutes(tokens)]) await register(app);
    },
    api: { tokens, connect, users: createUsersService({ pool, clock }), authorize: createAuthorizeService({ pool, clock }) },
  };
}
