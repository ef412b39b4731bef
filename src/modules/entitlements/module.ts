// The entitlements module assembled (src/module.ts): effective entitlements and overrides.
import type { Module } from '../../module.js';
import { entitlementRoutes } from './routes.js';
import { createEntitlementsService, type EntitlementsDeps, type EntitlementsService } from './service.js';

export function createEntitlementsModule(deps: EntitlementsDeps): Module<EntitlementsService> {
  const service = createEntitlementsService(deps);
  return { routes: entitlementRoutes(service), api: service };
}
