import type { Pool } from '../../db/pool.js';
import { MS_PER_HOUR } from '../../kernel/clock.js';
import { Dec } from '../../kernel/money.js';
import {
  aggregateEvents,
  emptyPartial,
  groupKeyOf,
  mergeGroups,
  summarize,
  type UsageFigures,
  type UsageMetric,
  type UsagePartial,
} from '../../domain/usage/index.js';
import { findRawEvents, findRollupDistinct, findRollupState, sumRollups, type RawEventRow, type RollupGroupRow } from './repository.js';
import { definitionHash } from './rollups.js';

/** A rollup row (merged hours of one group) as a mergeable partial aggregate. */
export function partialOfRollup(row: RollupGroupRow): UsagePartial {
  const partial = emptyPartial(row.dimensions);
  partial.count = row.event_count;
  partial.sum = new Dec(row.value_sum);
  partial.min = row.value_min === null ? null : new Dec(row.value_min);
  partial.max = row.value_max === null ? null : new Dec(row.value_max);
  if (row.latest_ts && row.latest_event_id !== null && row.latest_value !== null) {
    partial.latest = { at: row.latest_ts, eventId: row.latest_event_id, value: new Dec(row.latest_value) };
  }
  return partial;
}

export interface UsageWindow {
  metric: UsageMetric;
  /** Stored customer references to include (a customer's id and alias); null = every customer. */
  customerRefs: readonly string[] | null;
  /** Half-open period [from, to). */
  from: Date;
  to: Date;
}

export const ceilHour = (at: Date) => new Date(Math.ceil(at.getTime() / MS_PER_HOUR) * MS_PER_HOUR);
export const floorHour = (at: Date) => new Date(Math.floor(at.getTime() / MS_PER_HOUR) * MS_PER_HOUR);

function toEvents(rows: RawEventRow[]) {
  return rows.map((r) => ({ eventId: r.event_id, timestamp: r.ts, properties: r.properties }));
}

/** The domain's group key of a rollup row's dimensions. */
export function keyOf(metric: UsageMetric, dimensions: Record<string, string>): string {
  return groupKeyOf(metric.groupBy.map((k) => dimensions[k] ?? ''));
}

/**
 * Usage of one metric over [from, to): whole hours come from the rollups (up to their
 * transaction watermark) plus the raw events written since, partial hours at the edges come from
 * raw events. All reads share one repeatable-read snapshot, so an event is counted once even
 * while the rollup worker commits. Without valid rollups (new or changed metric) it reads raw
 * events only: slower, same figures.
 */
export async function aggregateUsage(pool: Pool, tenantId: string, window: UsageWindow): Promise<UsageFigures> {
  const { metric, customerRefs, from, to } = window;
  if (to.getTime() <= from.getTime()) return summarize(metric.aggregation, new Map());
  const client = await pool.connect();
  let groups = new Map<string, UsagePartial>();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const base = { code: metric.code, customerRefs };
    const state = await findRollupState(client, tenantId, metric.id);
    const fullFrom = ceilHour(from);
    const fullTo = floorHour(to);
    if (state && state.definition_hash === definitionHash(metric) && fullFrom < fullTo) {
      const rollupFilter = { metricId: metric.id, customerRefs, fromHour: fullFrom, toHour: fullTo };
      for (const row of await sumRollups(client, tenantId, rollupFilter)) {
        groups = mergeGroups(groups, new Map([[keyOf(metric, row.dimensions), partialOfRollup(row)]]));
      }
      if (metric.aggregation === 'COUNT_DISTINCT') {
        for (const row of await findRollupDistinct(client, tenantId, rollupFilter)) {
          const key = keyOf(metric, row.dimensions);
          const partial = groups.get(key) ?? emptyPartial(row.dimensions);
          partial.distinct.add(row.distinct_value);
          groups.set(key, partial);
        }
      }
      const raw = [
        ...(await findRawEvents(client, tenantId, { ...base, from: fullFrom, to: fullTo, watermark: state.watermark })),
        ...(from < fullFrom ? await findRawEvents(client, tenantId, { ...base, from, to: fullFrom }) : []),
        ...(fullTo < to ? await findRawEvents(client, tenantId, { ...base, from: fullTo, to }) : []),
      ];
      groups = mergeGroups(groups, aggregateEvents(metric, toEvents(raw)));
    } else {
      groups = aggregateEvents(metric, toEvents(await findRawEvents(client, tenantId, { ...base, from, to })));
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return summarize(metric.aggregation, groups);
}
