// The accounts module assembled (src/module.ts): organizations, users, tenants, API keys and members.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { membersRoutes } from './members-routes.js';
import { createMembersService } from './members.js';
import { accountsRoutes } from './routes.js';
import { createAccountsService, type AccountsService } from './service.js';

export function createAccountsModule(deps: { pool: Pool; clock: Clock }): Module<AccountsService> {
  const service = createAccountsService(deps);
  const members = createMembersService(deps);
  return {
    routes: (app) => {
      accountsRoutes(service)(app);
      membersRoutes(members)(app);
    },
    api: service,
  };
}
