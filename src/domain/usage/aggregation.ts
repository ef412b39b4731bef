// Usage figures from partial aggregates. The database aggregates events into partials, in the
// hourly rollups and in the read of the events not folded yet, with one SQL definition of what an
// event contributes (`contributionSql` and `groupAggregatesSql` in the usage module); these
// functions merge partials and turn them into figures, so the usage API, invoicing, alerts and
// metered entitlements all see one number.
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

const PLAIN_DECIMAL = /^-?\d{1,40}(\.\d{1,40})?$/;

/** True when `text` is a plain decimal the numeric aggregations accept ("12", "-0.5"). */
export function isPlainDecimal(text: string): boolean {
  return PLAIN_DECIMAL.test(text);
}

/** Group key: the JSON array of the dimension values, in the metric's group-by order. */
export function groupKeyOf(values: readonly string[]): string {
  return JSON.stringify(values);
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
