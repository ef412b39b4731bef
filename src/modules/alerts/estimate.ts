// Crossings seen from a batch's own events, before any read: the fast lane of trigger.ts.
//
// Each USAGE_UNITS alert this process has measured keeps the value measured (`base`) and an upper
// bound of what the events told since add to it. When base + that bound reaches the alert's next
// threshold above base, the batch may have crossed it, and the alert is evaluated at once in a
// small round of its own instead of waiting among the alerts that did not cross. The bound only
// ever errs high (a filtered-out event still counts, a negative value adds nothing), so a real
// crossing is never missed by it; a false alarm costs one small evaluation. It decides nothing:
// the round measures through the one aggregation path and applies transitions as every round
// does. An alert this process has not measured yet (base unknown) goes through the usual rounds.
//
// The same bound also says when a batch cannot have changed an alert's state at all: its value
// cannot have reached the next threshold, and cannot have fallen (COUNT, COUNT_DISTINCT and MAX
// never fall; SUM falls only by a negative value; MIN, MEAN and LATEST may fall with any event).
// Such an alert is `QUIET`: trigger.ts holds it back from the usual round for a while instead of
// measuring it again.
import { Dec } from '../../kernel/money.js';
import { isPlainDecimal, type Aggregation } from '../../domain/usage/index.js';

/** What the bound needs of an alert's metric. */
export interface WatchedMetric {
  aggregation: Aggregation;
  /** The property aggregated; null for COUNT. */
  property: string | null;
}

/** The part of a stored event the bound reads. */
export interface ContributingEvent {
  properties?: Readonly<Record<string, string>>;
}

/** Aggregations whose value grows by at most the events' count (COUNT, COUNT_DISTINCT) or their positive values (SUM); the others never exceed the largest value seen. */
const additive = (aggregation: Aggregation) => aggregation === 'COUNT' || aggregation === 'COUNT_DISTINCT' || aggregation === 'SUM';

/** Whether these events may lower the value: a negative SUM value, any event of MIN, MEAN and LATEST. */
export function mayLower(metric: WatchedMetric, events: readonly ContributingEvent[]): boolean {
  switch (metric.aggregation) {
    case 'COUNT':
    case 'COUNT_DISTINCT':
    case 'MAX':
      return false;
    case 'SUM':
      return events.some((event) => {
        const raw = metric.property === null ? undefined : event.properties?.[metric.property];
        return raw !== undefined && raw.startsWith('-') && isPlainDecimal(raw);
      });
    default:
      return events.length > 0;
  }
}

/**
 * What a batch may have done to an alert, by this process's count: `MAY_CROSS` (its next
 * threshold may be reached: evaluate now), `QUIET` (it can neither have reached the next threshold
 * nor fallen), `UNKNOWN` (not measured here yet, or it may have fallen: the usual rounds).
 */
export type Told = 'MAY_CROSS' | 'QUIET' | 'UNKNOWN';

/** How much these events may raise an additive value, or the largest value among them (the others); null when none counts. */
export function contributionBound(metric: WatchedMetric, events: readonly ContributingEvent[]): Dec | null {
  if (metric.aggregation === 'COUNT' || metric.aggregation === 'COUNT_DISTINCT') return new Dec(events.length);
  let sum = new Dec(0);
  let peak: Dec | null = null;
  for (const event of events) {
    const raw = metric.property === null ? undefined : event.properties?.[metric.property];
    if (raw === undefined || !isPlainDecimal(raw)) continue;
    const value = new Dec(raw);
    if (metric.aggregation === 'SUM') {
      if (value.isPositive()) sum = sum.plus(value);
    } else if (peak === null || value.gt(peak)) peak = value;
  }
  return metric.aggregation === 'SUM' ? sum : peak;
}

interface Estimate {
  /** The value measured; null while the first evaluation of the alert runs. */
  base: Dec | null;
  /** The lowest threshold above base; null when none. */
  next: Dec | null;
  /** Bound of what the events since base's evaluation started add (additive) or their largest value (the others). */
  added: Dec | null;
  /** Whether an event told since base's evaluation started may have lowered the value (`mayLower`). */
  lowered: boolean;
  /** An evaluation started and not finished yet: its number, and the bound of the events since it started. */
  pending: { seq: number; added: Dec | null; lowered: boolean } | null;
}

const merge = (aggregation: Aggregation, into: Dec | null, more: Dec): Dec => {
  if (into === null) return more;
  if (additive(aggregation)) return into.plus(more);
  return more.gt(into) ? more : into;
};

export function createEstimates() {
  const byAlert = new Map<string, Estimate>();
  let seq = 0;
  return {
    /**
     * An evaluation of these alerts starts (before it measures): what is told from now on counts
     * against its measurement. Returns its number for `measured`/`failed`.
     */
    starts(alertIds: readonly string[]): number {
      seq += 1;
      for (const id of alertIds) {
        const estimate = byAlert.get(id);
        if (estimate) estimate.pending = { seq, added: null, lowered: false };
        else byAlert.set(id, { base: null, next: null, added: null, lowered: false, pending: { seq, added: null, lowered: false } });
      }
      return seq;
    },
    /**
     * The evaluation `started` measured `value` for an alert with these thresholds. Kept unless
     * a later evaluation of the alert started meanwhile (its reading will be newer). Events told
     * since it started stay counted: they may or may not be in its reading, so counting them errs
     * high, never low.
     */
    measured(started: number, alertId: string, value: string | null, thresholds: readonly string[]): void {
      const estimate = byAlert.get(alertId);
      if (estimate?.pending?.seq !== started) return;
      if (value === null) {
        byAlert.delete(alertId);
        return;
      }
      const base = new Dec(value);
      let next: Dec | null = null;
      for (const t of thresholds) {
        const threshold = new Dec(t);
        if (threshold.gt(base) && (next === null || threshold.lt(next))) next = threshold;
      }
      byAlert.set(alertId, { base, next, added: estimate?.pending?.added ?? null, lowered: estimate?.pending?.lowered ?? false, pending: null });
    },
    /** The evaluation did not measure this alert (not a usage alert, or it failed): the estimate keeps its base and everything told since. */
    failed(started: number, alertId: string): void {
      const estimate = byAlert.get(alertId);
      if (estimate?.pending?.seq !== started) return;
      if (estimate.base === null) byAlert.delete(alertId);
      else estimate.pending = null;
    },
    /** Events of an alert's customer and metric were stored: what they may have done to it (`Told`). */
    told(alertId: string, metric: WatchedMetric, events: readonly ContributingEvent[]): Told {
      const estimate = byAlert.get(alertId);
      if (!estimate) return 'UNKNOWN';
      const bound = contributionBound(metric, events);
      if (bound !== null) {
        estimate.added = merge(metric.aggregation, estimate.added, bound);
        if (estimate.pending) estimate.pending.added = merge(metric.aggregation, estimate.pending.added, bound);
      }
      if (mayLower(metric, events)) {
        estimate.lowered = true;
        if (estimate.pending) estimate.pending.lowered = true;
      }
      if (estimate.base === null) return 'UNKNOWN';
      if (estimate.next !== null && estimate.added !== null) {
        const reach = additive(metric.aggregation) ? estimate.base.plus(estimate.added) : estimate.added;
        if (reach.gte(estimate.next)) return 'MAY_CROSS';
      }
      return estimate.lowered ? 'UNKNOWN' : 'QUIET';
    },
    forget(alertId: string): void {
      byAlert.delete(alertId);
    },
  };
}

export type Estimates = ReturnType<typeof createEstimates>;
