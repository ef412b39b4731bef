// The custom-properties module assembled (src/module.ts): definitions of typed properties and the
// one validator of their values, which the owning modules reach through the port in `api.port`.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { customPropertyRoutes } from './routes.js';
import { createCustomPropertiesService, type CustomPropertiesService } from './service.js';

export function createCustomPropertiesModule(deps: { pool: Pool; clock: Clock }): Module<CustomPropertiesService> {
  const service = createCustomPropertiesService(deps);
  return { routes: customPropertyRoutes(service), api: service };
}
