// What data export (src/modules/exports) reads of usage: per UTC day, each customer's figure of
// each metric, through the one aggregation path of stored usage (aggregateByKey), so an export
// shows the numbers the usage API and invoices show.
import type { Pool } from '../../db/pool.js';
import { MS_PER_DAY } from '../../kernel/clock.js';
import { summarize } from '../../domain/usage/index.js';
import { findCustomer } from '../customers/index.js';
import { aggregateByKey } from './aggregate.js';
import type { UsageMetricSource } from './metrics.js';
import { TENANT_KEY } from './repository.js';
import { scoped } from '../../db/tenant-scope.js';

export interface DailyUsageRow {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** The customer reference the events named: a customer id or its alias. */
  customer_ref: string;
  /** The customer it resolves to now; null when none has that id or alias. */
  customer_id: string | null;
  metric_id: string;
  metric_code: string;
  aggregation: string;
  /** The metric's aggregation over the day, decimal string, before unit conversion. */
  value: string;
  /** Events that counted (COUNT) or carried a valid value (the other aggregations). */
  event_count: bigint;
}

export interface DailyUsageReader {
  /** Start of the UTC day of the tenant's earliest event before `before`; undefined without any. */
  firstDay(tenantId: string, before: Date): Promise<Date | undefined>;
  /** Every customer's figure of every metric (archived ones too) for the UTC day starting at `day`. */
  day(tenantId: string, day: Date): Promise<DailyUsageRow[]>;
}

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / MS_PER_DAY) * MS_PER_DAY);

export function dailyUsageReader(pool: Pool, metrics: UsageMetricSource): DailyUsageReader {
  return {
    async firstDay(tenantId, before) {
      const row = await scoped(pool, tenantId).one<{ first: Date | null }>(
        `SELECT min(ts) AS first FROM usage_events WHERE tenant_key = ${TENANT_KEY} AND ts < $2`,
        [before],
      );
      return row?.first ? startOfUtcDay(row.first) : undefined;
    },
    async day(tenantId, day) {
      const from = startOfUtcDay(day);
      const to = new Date(from.getTime() + MS_PER_DAY);
      const label = from.toISOString().slice(0, 10);
      const customerIds = new Map<string, string | null>();
      const out: DailyUsageRow[] = [];
      for (const metric of await metrics.all(tenantId)) {
        const { groups } = await aggregateByKey(pool, tenantId, { metric, customerRefs: null, from, to }, (ref) => ref);
        for (const ref of [...groups.keys()].sort()) {
          const partials = groups.get(ref)!;
          let events = 0n;
          for (const partial of partials.values()) events += partial.count;
          if (!customerIds.has(ref)) customerIds.set(ref, (await findCustomer(pool, tenantId, ref))?.id ?? null);
          out.push({
            day: label, customer_ref: ref, customer_id: customerIds.get(ref) ?? null, metric_id: metric.id, metric_code: metric.code,
            aggregation: metric.aggregation, value: summarize(metric.aggregation, partials).totalValue, event_count: events,
          });
        }
      }
      return out;
    },
  };
}
