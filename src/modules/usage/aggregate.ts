// The one aggregation path of stored usage (issue 14, "one path"): the usage API, invoicing (all
// customers of a billing batch at once) and metered entitlements all read through
// `aggregateByKey`. One customer, or every customer together, is the case of one answer key.
import type { Pool } from '../../db/pool.js';
import { MS_PER_HOUR } from '../../kernel/clock.js';
import { Dec } from '../../kernel/money.js';
import {
  aggregateEvents,
  emptyPartial,
  groupKeyOf,
  mergePartials,
  summarize,
  type UsageFigures,
  type UsageMetric,
  type UsagePartial,
} from '../../domain/usage/index.js';
import { findRawEvents, findRollupDistinct, readRollupState, sumRollups, type RawEventRow, type RollupGroupRow } from './repository.js';
import { definitionHash } from './rollups.js';

/** A rollup row (merged hours of one customer reference and group) as a mergeable partial aggregate. */
function partialOfRollup(row: RollupGroupRow): UsagePartial {
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

/** Partial aggregates per answer key, then per group key. */
export type GroupsByKey = Map<string, Map<string, UsagePartial>>;

export interface KeyedUsage {
  groups: GroupsByKey;
  /**
   * The snapshot (`pg_snapshot` text) every read ran in: an event not visible in it is not in
   * these figures. Invoicing records it with what it billed (docs/usage.md, "Late usage").
   */
  snapshot: string;
}

const ceilHour = (at: Date) => new Date(Math.ceil(at.getTime() / MS_PER_HOUR) * MS_PER_HOUR);
const floorHour = (at: Date) => new Date(Math.floor(at.getTime() / MS_PER_HOUR) * MS_PER_HOUR);

/** The domain's group key of a rollup row's dimensions. */
function keyOfDimensions(metric: UsageMetric, dimensions: Record<string, string>): string {
  return groupKeyOf(metric.groupBy.map((k) => dimensions[k] ?? ''));
}

/** Appends one by one: `push(...rows)` passes every row as an argument and overflows the stack past about 100,000 rows (a long tail above the watermark). */
function append<T>(into: T[], rows: readonly T[]): void {
  for (const row of rows) into.push(row);
}

function add(into: GroupsByKey, key: string, groupKey: string, partial: UsagePartial): void {
  let groups = into.get(key);
  if (!groups) into.set(key, (groups = new Map()));
  const existing = groups.get(groupKey);
  groups.set(groupKey, existing ? mergePartials(existing, partial) : partial);
}

/**
 * Usage of one metric over [from, to), split by answer key: `keyOf(customer_ref)` names the
 * answer a stored customer reference counts in (undefined: none). Whole hours come from the
 * rollups (up to their transaction watermark) plus the raw events written since, partial hours at
 * the edges from raw events. All reads share one repeatable-read snapshot, so an event is counted
 * once even while the rollup worker commits. Without valid rollups (new or changed metric) it
 * reads raw events only: slower, same figures.
 */
export async function aggregateByKey(pool: Pool, tenantId: string, window: UsageWindow, keyOf: (customerRef: string) => string | undefined): Promise<KeyedUsage> {
  const { metric, customerRefs, from, to } = window;
  const out: GroupsByKey = new Map();
  const client = await pool.connect();
  let snapshot: string;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // the first statement takes the transaction's snapshot, and reports it
    const state = await readRollupState(client, tenantId, metric.id);
    snapshot = state.snapshot;
    const raw: RawEventRow[] = [];
    if (to > from) {
      const base = { code: metric.code, customerRefs };
      const fullFrom = ceilHour(from);
      const fullTo = floorHour(to);
      if (state.definition_hash === definitionHash(metric) && state.watermark !== null && fullFrom < fullTo) {
        const rollupFilter = { metricId: metric.id, customerRefs, fromHour: fullFrom, toHour: fullTo };
        for (const row of await sumRollups(client, tenantId, rollupFilter)) {
          const key = keyOf(row.customer_ref);
          if (key !== undefined) add(out, key, keyOfDimensions(metric, row.dimensions), partialOfRollup(row));
        }
        if (metric.aggregation === 'COUNT_DISTINCT') {
          for (const row of await findRollupDistinct(client, tenantId, rollupFilter)) {
            const key = keyOf(row.customer_ref);
            if (key === undefined) continue;
            const partial = emptyPartial(row.dimensions);
            partial.distinct.add(row.distinct_value);
            add(out, key, keyOfDimensions(metric, row.dimensions), partial);
          }
        }
        append(raw, await findRawEvents(client, tenantId, { ...base, from: fullFrom, to: fullTo, watermark: state.watermark }));
        if (from < fullFrom) append(raw, await findRawEvents(client, tenantId, { ...base, from, to: fullFrom }));
        if (fullTo < to) append(raw, await findRawEvents(client, tenantId, { ...base, from: fullTo, to }));
      } else {
        append(raw, await findRawEvents(client, tenantId, { ...base, from, to }));
      }
    }
    await client.query('COMMIT');
    const eventsByKey = new Map<string, { eventId: string; timestamp: Date; properties: Record<string, string> }[]>();
    for (const row of raw) {
      const key = keyOf(row.customer_ref);
      if (key === undefined) continue;
      let list = eventsByKey.get(key);
      if (!list) eventsByKey.set(key, (list = []));
      list.push({ eventId: row.event_id, timestamp: row.ts, properties: row.properties });
    }
    for (const [key, events] of eventsByKey) {
      for (const [groupKey, partial] of aggregateEvents(metric, events)) add(out, key, groupKey, partial);
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return { groups: out, snapshot };
}

/** Usage of one metric over one window, every included customer together: a batch of one answer key. */
export async function aggregateUsage(pool: Pool, tenantId: string, window: UsageWindow): Promise<UsageFigures> {
  const { groups } = await aggregateByKey(pool, tenantId, window, () => '');
  return summarize(window.metric.aggregation, groups.get('') ?? new Map());
}
