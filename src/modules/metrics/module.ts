// The metrics module assembled (src/module.ts): billable metrics.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { metricRoutes } from './routes.js';
import { createMetricsService, type MetricsService } from './service.js';

export function createMetricsModule(deps: { pool: Pool; clock: Clock }): Module<MetricsService> {
  const service = createMetricsService(deps);
  return { routes: metricRoutes(service), api: service };
}
