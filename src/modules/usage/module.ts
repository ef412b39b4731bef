// The usage module assembled (src/module.ts): event ingestion, rollups and usage queries.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import type { MetricsService } from '../metrics/index.js';
import type { TestClockTime } from '../customers/index.js';
import { customerMetricUsage } from './customer-usage.js';
import { createIngestService, type IngestService, type UsageSubscriber } from './ingest-service.js';
import { usageTasks } from './jobs.js';
import { metricSource } from './metrics.js';
import { createUsageQueryService, type FindSubscriptionScope, type UsageQueryService } from './query-service.js';
import { usageRoutes } from './routes.js';
import { dailyUsageReader, type DailyUsageReader } from './export-rows.js';

export interface UsageApi {
  ingest: IngestService;
  queries: UsageQueryService;
  /** One customer's total of one metric in [from, to) as a decimal string, undefined when unknown (metered entitlements). */
  consumed(tenantId: string, query: { customerId: string; metricId: string; from: Date; to: Date }): Promise<string | undefined>;
  /** Per UTC day, each customer's figure of each metric (data export, docs/export.md). */
  daily: DailyUsageReader;
}

/**
 * `findSubscription` comes from subscriptions (the usage API's subscription report);
 * `testClockTime` from test-clocks (events of a customer on a test clock are timed by the clock);
 * `subscribers`: later modules told of committed usage (alerts, spend thresholds; see UsageSubscriber).
 */
export function createUsageModule(deps: {
  pool: Pool; clock: Clock; metrics: MetricsService; findSubscription: FindSubscriptionScope; testClockTime?: TestClockTime;
  /** After a commit of usage, in this order; see UsageSubscriber for what is awaited and what a failure does. */
  subscribers?: readonly UsageSubscriber[];
  /** A subscriber failed; the events stay stored. */
  onSubscriberError?: (error: unknown, subscriber: string) => void;
}): Module<UsageApi> {
  const { pool, clock } = deps;
  const metrics = metricSource(pool, deps.metrics);
  const ingest = createIngestService({ pool, clock, metrics, testClockTime: deps.testClockTime, subscribers: deps.subscribers, onError: deps.onSubscriberError });
  const queries = createUsageQueryService({ pool, metrics, findSubscription: deps.findSubscription });
  return {
    routes: usageRoutes(ingest, queries),
    tasks: usageTasks({ pool, clock, metrics }),
    api: {
      ingest,
      queries,
      consumed: async (tenantId, q) => (await customerMetricUsage(pool, tenantId, { customerId: q.customerId, metricId: q.metricId, periodStart: q.from, periodEnd: q.to }))?.totalValue,
      daily: dailyUsageReader(pool, metrics),
    },
  };
}
