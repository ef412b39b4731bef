// Usage aggregation: the one place where events become usage figures. The same functions build
// the stored hourly rollups, aggregate the raw edge/tail events at query time and merge both, so
// the usage API, invoicing and metered entitlements all see one number.
import { Dec } from '../../kernel/money.js';

export const AGGREGATIONS = ['COUNT', 'SUM', 'MIN', 'MAX', 'MEAN', 'LATEST', 'COUNT_DISTINCT'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** What aggregation needs to know about a billable metric. */
export interface UsageMetric {
  id: string;
  name: string;
  code: string;
  aggregation: Aggregation;
  /** Event property aggregated (all aggregations but COUNT). */
  property: string | null;
  /** Event properties whose values split usage into groups, in this order. */
  groupBy: readonly string[];
  /** Allowed values per dimension; events outside them do not count. Absent = all values. */
  filters?: Readonly<Record<string, readonly string[]>>;
  /** Linked dimensions: the allowed `key2` values depend on the `key1` value. */
  linked?: { key1: string; key2: string; values: Readonly<Record<string, readonly string[]>> };
}

/** The aggregation-relevant part of a stored event. */
export interface UsageEvent {
  eventId: string;
  timestamp: Date;
  properties: Readonly<Record<string, string>>;
}

/** One event's contribution to one metric: its group and (except COUNT) its value. */
export interface Contribution {
  groupKey: string;
  dimensions: Record<string, string>;
  /** Plain decimal text for numeric aggregations, raw text for COUNT_DISTINCT, null for COUNT. */
  value: string | null;
}

const PLAIN_DECIMAL = /^-?\d{1,40}(\.\d{1,40})?$/;

/** True when `text` is a plain decimal the numeric aggregations accept ("12", "-0.5"). */
export function isPlainDecimal(text: string): boolean {
  return PLAIN_DECIMAL.test(text);
}

/** Group key: the JSON array of the dimension values, in the metric's group-by order. */
export function groupKeyOf(values: readonly string[]): string {
  return JSON.stringify(values);
}

/**
 * What one event adds to a metric, or null when it does not count: filtered out by a dimension,
 * or (all but COUNT) its property is missing, empty or, for numeric aggregations, not a decimal.
 * A missing group-by property groups under the empty string.
 */
export function contributionOf(metric: UsageMetric, properties: Readonly<Record<string, string>>): Contribution | null {
  if (metric.filters) {
    for (const [key, allowed] of Object.entries(metric.filters)) {
      if (allowed.length > 0 && !allowed.includes(properties[key] ?? '')) return null;
    }
  }
  if (metric.linked) {
    const seconds = Object.hasOwn(metric.linked.values, properties[metric.linked.key1] ?? '') ? metric.linked.values[properties[metric.linked.key1] ?? ''] : undefined;
    if (!seconds || !seconds.includes(properties[metric.linked.key2] ?? '')) return null;
  }
  let value: string | null = null;
  if (metric.aggregation !== 'COUNT') {
    const raw = metric.property === null ? undefined : properties[metric.property];
    if (raw === undefined || raw === '') return null;
    if (metric.aggregation !== 'COUNT_DISTINCT') {
      if (!isPlainDecimal(raw)) return null;
      value = new Dec(raw).toString();
    } else {
      value = raw;
    }
  }
  const values = metric.groupBy.map((key) => properties[key] ?? '');
  const dimensions: Record<string, string> = {};
  metric.groupBy.forEach((key, i) => (dimensions[key] = values[i]!));
  return { groupKey: groupKeyOf(values), dimensions, value };
}

/** Mergeable partial aggregate of one group; every field is exact. */
export interface UsagePartial {
  dimensions: Record<string, string>;
  /** Events that counted (for COUNT) or that carried a valid value (others). */
  count: bigint;
  sum: Dec;
  min: Dec | null;
  max: Dec | null;
  /** Latest value: greatest timestamp, then greatest event id on a tie. */
  latest: { at: Date; eventId: string; value: Dec } | null;
  /** Distinct raw values (COUNT_DISTINCT only). */
  distinct: Set<string>;
}

export function emptyPartial(dimensions: Record<string, string>): UsagePartial {
  return { dimensions, count: 0n, sum: new Dec(0), min: null, max: null, latest: null, distinct: new Set() };
}

function laterThan(a: { at: Date; eventId: string }, b: { at: Date; eventId: string }): boolean {
  const diff = a.at.getTime() - b.at.getTime();
  return diff > 0 || (diff === 0 && a.eventId > b.eventId);
}

/** Folds one contribution into a partial (mutates and returns it). */
export function addContribution(partial: UsagePartial, c: Contribution, event: { eventId: string; timestamp: Date }): UsagePartial {
  partial.count += 1n;
  if (c.value === null) return partial;
  if (!isPlainDecimal(c.value)) {
    partial.distinct.add(c.value);
    return partial;
  }
  const v = new Dec(c.value);
  partial.sum = partial.sum.plus(v);
  partial.min = partial.min === null || v.lessThan(partial.min) ? v : partial.min;
  partial.max = partial.max === null || v.greaterThan(partial.max) ? v : partial.max;
  const candidate = { at: event.timestamp, eventId: event.eventId, value: v };
  if (partial.latest === null || laterThan(candidate, partial.latest)) partial.latest = candidate;
  partial.distinct.add(c.value);
  return partial;
}

/** Combines two partials of the same group (rollup part + raw part); pure. */
export function mergePartials(a: UsagePartial, b: UsagePartial): UsagePartial {
  const min = a.min === null ? b.min : b.min === null ? a.min : Dec.min(a.min, b.min);
  const max = a.max === null ? b.max : b.max === null ? a.max : Dec.max(a.max, b.max);
  const latest = a.latest === null ? b.latest : b.latest === null ? a.latest : laterThan(b.latest, a.latest) ? b.latest : a.latest;
  return {
    dimensions: a.dimensions,
    count: a.count + b.count,
    sum: a.sum.plus(b.sum),
    min,
    max,
    latest,
    distinct: new Set([...a.distinct, ...b.distinct]),
  };
}

/** Aggregates events into per-group partials for one metric (raw path and tests). */
export function aggregateEvents(metric: UsageMetric, events: Iterable<UsageEvent>, into = new Map<string, UsagePartial>()): Map<string, UsagePartial> {
  for (const event of events) {
    const c = contributionOf(metric, event.properties);
    if (c === null) continue;
    let partial = into.get(c.groupKey);
    if (!partial) into.set(c.groupKey, (partial = emptyPartial(c.dimensions)));
    addContribution(partial, c, event);
  }
  return into;
}

/** Merges two group maps (e.g. rollups and raw tail) into a new one. */
export function mergeGroups(a: ReadonlyMap<string, UsagePartial>, b: ReadonlyMap<string, UsagePartial>): Map<string, UsagePartial> {
  const out = new Map(a);
  for (const [key, partial] of b) {
    const existing = out.get(key);
    out.set(key, existing ? mergePartials(existing, partial) : partial);
  }
  return out;
}

// MEAN keeps this many decimals (half-even); exact for every terminating mean below that scale.
const MEAN_DECIMALS = 12;

/** The usage figure of a partial, as a plain decimal string; null when nothing counted. */
export function finalValue(aggregation: Aggregation, p: UsagePartial): string | null {
  if (p.count === 0n && aggregation !== 'COUNT') return null;
  switch (aggregation) {
    case 'COUNT':
      return p.count.toString();
    case 'SUM':
      return p.sum.toString();
    case 'MIN':
      return p.min?.toString() ?? null;
    case 'MAX':
      return p.max?.toString() ?? null;
    case 'MEAN':
      return p.sum.dividedBy(p.count.toString()).toDecimalPlaces(MEAN_DECIMALS, Dec.ROUND_HALF_EVEN).toString();
    case 'LATEST':
      return p.latest?.value.toString() ?? null;
    case 'COUNT_DISTINCT':
      return String(p.distinct.size);
  }
}

export interface GroupedUsage {
  dimensions: Record<string, string>;
  value: string;
}

export interface UsageFigures {
  /** The metric's aggregation over all groups (not a sum of per-group maxima). */
  totalValue: string;
  groups: GroupedUsage[];
}

/** Final per-group values and the overall value, groups sorted by their key for stable output. */
export function summarize(aggregation: Aggregation, groups: ReadonlyMap<string, UsagePartial>): UsageFigures {
  let total = emptyPartial({});
  const out: GroupedUsage[] = [];
  for (const key of [...groups.keys()].sort()) {
    const partial = groups.get(key)!;
    total = mergePartials(total, partial);
    const value = finalValue(aggregation, partial);
    if (value !== null) out.push({ dimensions: partial.dimensions, value });
  }
  return { totalValue: finalValue(aggregation, total) ?? '0', groups: out };
}
