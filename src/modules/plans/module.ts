// The plans module assembled (src/module.ts): plans, versions, their fees and entitlements.
import type { Module } from '../../module.js';
import { createPlansService, type PlansDeps, type PlansService } from './plans-service.js';
import { planRoutes } from './routes.js';

/** `deps.addOns` comes from add-ons, a later module: the add-ons a version offers must exist. */
export function createPlansModule(deps: PlansDeps): Module<PlansService> {
  const service = createPlansService(deps);
  return { routes: planRoutes(service), api: service };
}
