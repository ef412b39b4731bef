import type { Pool } from '../../db/pool.js';
import { loadMetricDefinition } from '../metrics/index.js';
import { toUsageMetric } from './metrics.js';
import { customerRefsOf, metricUsage, type MetricUsageResult } from './query-service.js';

/**
 * Usage of one customer (id or alias) for one metric over the half-open period
 * [periodStart, periodEnd), grouped by the metric's group-by dimensions, values as plain decimal
 * strings and before unit conversion. This is the code path of the usage API, so invoicing and
 * metered entitlements bill and show the same figures. Undefined when the customer or the metric
 * is not the tenant's. Reads in its own snapshot: pass the pool, not a transaction.
 */
export async function customerMetricUsage(
  pool: Pool,
  tenantId: string,
  query: { customerId: string; metricId: string; periodStart: Date; periodEnd: Date },
): Promise<MetricUsageResult | undefined> {
  const [refs, def] = await Promise.all([customerRefsOf(pool, tenantId, query.customerId), loadMetricDefinition(pool, tenantId, query.metricId)]);
  if (!refs || !def) return undefined;
  return metricUsage(pool, tenantId, toUsageMetric(def), refs, query.periodStart, query.periodEnd);
}
