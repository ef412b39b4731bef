// The one aggregation path of stored usage (issue 14, "one path"): the usage API, invoicing (all
// customers of a billing batch at once) and metered entitlements all read through
// `aggregateByKey`. One customer, or every customer together, is the case of one answer key.
import type { Queryable } from '../../db/pool.js';
import { MS_PER_DAY, MS_PER_HOUR } from '../../kernel/clock.js';
import { Dec } from '../../kernel/money.js';
import {
  emptyPartial,
  groupKeyOf,
  mergePartials,
  summarize,
  type UsageFigures,
  type UsageMetric,
  type UsagePartial,
} from '../../domain/usage/index.js';
import { readUsageRows, usageReadJsonSql, usageReadRowsOfJson, type RollupGroupRow, type UsageReadRow, type UsageReadWindow } from './repository.js';
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
// UTC days, as the fold cuts them (date_trunc('day', hour, 'UTC'))
const ceilDay = (at: Date) => new Date(Math.ceil(at.getTime() / MS_PER_DAY) * MS_PER_DAY);
const floorDay = (at: Date) => new Date(Math.floor(at.getTime() / MS_PER_DAY) * MS_PER_DAY);

/** The domain's group key of a rollup row's dimensions. */
function keyOfDimensions(metric: UsageMetric, dimensions: Record<string, string>): string {
  return groupKeyOf(metric.groupBy.map((k) => dimensions[k] ?? ''));
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
 * rollups (up to their transaction watermark) plus the events written since, partial hours at
 * the edges from events; the database aggregates those events per customer reference and group as
 * the fold does, so the service merges partial aggregates only. It is one statement
 * (`readUsageRows`), so one round trip and one snapshot: an event is counted once even while the
 * rollup worker commits. Without valid rollups (new or changed metric) every event of the window
 * is aggregated that way: slower, same figures.
 */
export async function aggregateByKey(pool: Queryable, tenantId: string, window: UsageWindow, keyOf: (customerRef: string) => string | undefined): Promise<KeyedUsage> {
  return keyedUsageOf(window.metric, await readUsageRows(pool, tenantId, readWindowOf(window)), keyOf);
}

/**
 * `aggregateByKey`'s read as a part of a caller's statement (`usageReadJsonSql`: parameters from
 * `firstParam`, `$1` the tenant), and the usage its one `jsonb` value gives.
 */
export function embeddedAggregateByKey(window: UsageWindow, keyOf: (customerRef: string) => string | undefined, firstParam: number) {
  return { ...usageReadJsonSql(readWindowOf(window), firstParam), usageOf: (json: unknown): KeyedUsage => keyedUsageOf(window.metric, usageReadRowsOfJson(json), keyOf) };
}

/** The bounds `readUsageRows` reads a window in: whole days, whole hours around them, partial hours at the edges. */
function readWindowOf({ metric, customerRefs, from, to }: UsageWindow): UsageReadWindow {
  let fullFrom = ceilHour(from);
  let fullTo = floorHour(to);
  // no whole hour inside: the whole window is an edge
  if (!(fullFrom < fullTo)) fullFrom = fullTo = to;
  // an empty or inverted window reads no event: its edge [from, to) is empty
  let dayFrom = ceilDay(fullFrom);
  let dayTo = floorDay(fullTo);
  // no whole day inside: the whole hours are all read hourly
  if (!(dayFrom < dayTo)) dayFrom = dayTo = fullTo;
  return { metric, definitionHash: definitionHash(metric), customerRefs, from, fullFrom, dayFrom, dayTo, fullTo, to };
}

function keyedUsageOf(metric: UsageMetric, rows: readonly UsageReadRow[], keyOf: (customerRef: string) => string | undefined): KeyedUsage {
  const out: GroupsByKey = new Map();
  let snapshot = '';
  for (const row of rows) {
    if (row.kind === 's') {
      snapshot = row.snapshot;
      continue;
    }
    const key = keyOf(row.customer_ref);
    if (key === undefined) continue;
    if (row.kind === 'r') add(out, key, keyOfDimensions(metric, row.dimensions), partialOfRollup(row));
    else if (row.kind === 'd') {
      const partial = emptyPartial(row.dimensions);
      partial.distinct.add(row.distinct_value);
      add(out, key, keyOfDimensions(metric, row.dimensions), partial);
    }
  }
  return { groups: out, snapshot };
}

/** Usage of one metric over one window, every included customer together: a batch of one answer key. */
export async function aggregateUsage(pool: Queryable, tenantId: string, window: UsageWindow): Promise<UsageFigures> {
  const { groups } = await aggregateByKey(pool, tenantId, window, () => '');
  return summarize(window.metric.aggregation, groups.get('') ?? new Map());
}
