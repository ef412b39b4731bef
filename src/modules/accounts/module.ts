// The accounts module assembled (src/module.ts): organizations, users, tenants and API keys.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { accountsRoutes } from './routes.js';
import { createAccountsService, type AccountsService } from './service.js';

export function createAccountsModule(deps: { pool: Pool; clock: Clock }): Module<AccountsService> {
  const service = createAccountsService(deps);
  return { routes: accountsRoutes(service), api: service };
}
