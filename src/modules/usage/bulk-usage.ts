// Usage of one metric over one window for MANY customers at once (the billing run), with the same
// aggregation as `aggregateUsage` (rollups for whole hours up to their watermark, raw events for
// the rest, one repeatable-read snapshot), only with every statement returning `customer_ref` so
// the rows can be split per customer. Figures are identical to `customerMetricUsage` per customer.
import type { Pool } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { aggregateEvents, emptyPartial, mergeGroups, summarize, type UsageMetric, type UsagePartial } from '../../domain/usage/index.js';
import { loadMetricDefinition } from '../metrics/index.js';
import { toUsageMetric } from './metrics.js';
import { findRawEvents, findRollupState, type RawEventRow, type RollupGroupRow } from './repository.js';
import { definitionHash } from './rollups.js';
import { ceilHour, floorHour, keyOf, partialOfRollup } from './aggregate.js';
import type { MetricUsageResult } from './query-service.js';

export interface BulkUsageCustomer {
  /** Key of the answer (the customer id). */
  key: string;
  /** Stored references meaning this customer: its id and its alias. */
  refs: readonly string[];
}

/**
 * Usage of `metricId` over [periodStart, periodEnd) per customer, values before unit conversion
 * (like `customerMetricUsage`). Undefined when the metric is not the tenant's. A customer with no
 * event gets the metric's empty figures.
 */
export async function customersMetricUsage(
  pool: Pool,
  tenantId: string,
  query: { customers: readonly BulkUsageCustomer[]; metricId: string; periodStart: Date; periodEnd: Date },
): Promise<Map<string, MetricUsageResult> | undefined> {
  const def = await loadMetricDefinition(pool, tenantId, query.metricId);
  if (!def) return undefined;
  const metric = toUsageMetric(def);
  const keyByRef = new Map<string, string>();
  for (const customer of query.customers) for (const ref of customer.refs) keyByRef.set(ref, customer.key);
  const perCustomer = new Map<string, Map<string, UsagePartial>>();
  if (query.periodEnd > query.periodStart && keyByRef.size > 0) {
    await aggregateBulk(pool, tenantId, metric, [...keyByRef.keys()], query.periodStart, query.periodEnd, (ref, groups) => {
      const key = keyByRef.get(ref);
      if (key === undefined) return;
      perCustomer.set(key, mergeGroups(perCustomer.get(key) ?? new Map(), groups));
    });
  }
  const result = new Map<string, MetricUsageResult>();
  for (const customer of query.customers) {
    const figures = summarize(metric.aggregation, perCustomer.get(customer.key) ?? new Map());
    result.set(customer.key, { metricId: metric.id, metricName: metric.name, metricCode: metric.code, totalValue: figures.totalValue, groups: figures.groups });
  }
  return result;
}

async function aggregateBulk(
  pool: Pool, tenantId: string, metric: UsageMetric, refs: string[], from: Date, to: Date,
  add: (ref: string, groups: Map<string, UsagePartial>) => void,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const db = scoped(client, tenantId);
    const raw = (range: { from: Date; to: Date; watermark?: string }) => findRawEvents(client, tenantId, { code: metric.code, customerRefs: refs, ...range });
    const state = await findRollupState(client, tenantId, metric.id);
    const fullFrom = ceilHour(from);
    const fullTo = floorHour(to);
    let rawRows: RawEventRow[];
    if (state && state.definition_hash === definitionHash(metric) && fullFrom < fullTo) {
      const rollups = await db.query<RollupGroupRow & { customer_ref: string }>(
        `SELECT customer_ref, (array_agg(dimensions))[1] AS dimensions, sum(event_count)::int8 AS event_count, sum(value_sum)::text AS value_sum,
                min(value_min)::text AS value_min, max(value_max)::text AS value_max,
                (array_agg(latest_ts ORDER BY latest_ts DESC NULLS LAST, latest_event_id COLLATE "C" DESC NULLS LAST))[1] AS latest_ts,
                (array_agg(latest_event_id ORDER BY latest_ts DESC NULLS LAST, latest_event_id COLLATE "C" DESC NULLS LAST))[1] AS latest_event_id,
                (array_agg(latest_value::text ORDER BY latest_ts DESC NULLS LAST, latest_event_id COLLATE "C" DESC NULLS LAST))[1] AS latest_value
         FROM usage_rollups
         WHERE tenant_id = $1 AND metric_id = $2 AND customer_ref = ANY($3::text[]) AND hour >= $4 AND hour < $5
         GROUP BY customer_ref, group_key`,
        [metric.id, refs, fullFrom, fullTo],
      );
      const byRef = new Map<string, Map<string, UsagePartial>>();
      const groupsOf = (ref: string) => byRef.get(ref) ?? byRef.set(ref, new Map()).get(ref)!;
      for (const row of rollups) {
        const groups = groupsOf(row.customer_ref);
        byRef.set(row.customer_ref, mergeGroups(groups, new Map([[keyOf(metric, row.dimensions), partialOfRollup(row)]])));
      }
      if (metric.aggregation === 'COUNT_DISTINCT') {
        const distinct = await db.query<{ customer_ref: string; dimensions: Record<string, string>; distinct_value: string }>(
          `SELECT DISTINCT ON (customer_ref, group_key, distinct_value) customer_ref, dimensions, distinct_value FROM usage_rollup_distinct
           WHERE tenant_id = $1 AND metric_id = $2 AND customer_ref = ANY($3::text[]) AND hour >= $4 AND hour < $5`,
          [metric.id, refs, fullFrom, fullTo],
        );
        for (const row of distinct) {
          const groups = groupsOf(row.customer_ref);
          const key = keyOf(metric, row.dimensions);
          const partial = groups.get(key) ?? emptyPartial(row.dimensions);
          partial.distinct.add(row.distinct_value);
          groups.set(key, partial);
        }
      }
      for (const [ref, groups] of byRef) add(ref, groups);
      rawRows = [
        ...(await raw({ from: fullFrom, to: fullTo, watermark: state.watermark })),
        ...(from < fullFrom ? await raw({ from, to: fullFrom }) : []),
        ...(fullTo < to ? await raw({ from: fullTo, to }) : []),
      ];
    } else {
      rawRows = await raw({ from, to });
    }
    await client.query('COMMIT');
    const eventsByRef = new Map<string, { eventId: string; timestamp: Date; properties: Record<string, string> }[]>();
    for (const row of rawRows) {
      const list = eventsByRef.get(row.customer_ref) ?? eventsByRef.set(row.customer_ref, []).get(row.customer_ref)!;
      list.push({ eventId: row.event_id, timestamp: row.ts, properties: row.properties });
    }
    for (const [ref, events] of eventsByRef) add(ref, aggregateEvents(metric, events));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
