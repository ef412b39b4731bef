// The features module assembled (src/module.ts): features and their default entitlement.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { featureRoutes } from './routes.js';
import { createFeaturesService, type FeaturesService, type MetricExists } from './service.js';

export function createFeaturesModule(deps: { pool: Pool; clock: Clock; metricExists: MetricExists }): Module<FeaturesService> {
  const service = createFeaturesService(deps);
  return { routes: featureRoutes(service), api: service };
}
