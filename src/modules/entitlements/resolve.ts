// Effective entitlements, pure. Sources from lowest to highest priority:
//   1. feature default (the feature-level entitlement)
//   2. plan version (during a trial with a trialing plan: that plan's published version)
//   3. add-ons in force today
//   4. subscription overrides
//   5. customer overrides (the customer's own values, over all its subscriptions)
// A higher level replaces a lower one for the same feature (it can also disable it). Several
// values on one level (two add-ons, or a customer's two subscriptions) combine to the most
// generous one: enabled if any is enabled, and the highest limit (null = unlimited wins).
import { Dec, parseDecimal } from '../../kernel/money.js';
import type { EntitlementValue, ResetPeriod } from '../features/index.js';

export type { EntitlementValue, ResetPeriod };

export function mostGenerous(a: EntitlementValue, b: EntitlementValue): EntitlementValue {
  if (a.type === 'METERED' && b.type === 'METERED') {
    const limit = a.limit === null || b.limit === null ? null : parseDecimal(a.limit).gte(parseDecimal(b.limit)) ? a.limit : b.limit;
    const base = limit === a.limit ? a : b;
    // allowing overage is the more generous policy
    const overage = a.overage_policy === 'ALLOW_AND_BILL' || b.overage_policy === 'ALLOW_AND_BILL' ? { overage_policy: 'ALLOW_AND_BILL' as const } : {};
    return { ...base, enabled: a.enabled || b.enabled, limit, ...overage };
  }
  if (a.type === 'BOOLEAN' && b.type === 'BOOLEAN') return { type: 'BOOLEAN', enabled: a.enabled || b.enabled };
  // Mixed kinds cannot come from one feature; keep the first.
  return a;
}

/** Merges several feature -> value maps of the same priority. */
export function mergeSameLevel(maps: Iterable<Map<string, EntitlementValue>>): Map<string, EntitlementValue> {
  const out = new Map<string, EntitlementValue>();
  for (const map of maps) {
    for (const [featureId, value] of map) {
      const current = out.get(featureId);
      out.set(featureId, current ? mostGenerous(current, value) : value);
    }
  }
  return out;
}

/** Applies levels from lowest to highest priority: a higher level replaces a lower one. */
export function resolveLevels(levels: Map<string, EntitlementValue>[]): Map<string, EntitlementValue> {
  const out = new Map<string, EntitlementValue>();
  for (const level of levels) for (const [featureId, value] of level) out.set(featureId, value);
  return out;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function addUnits(date: Date, unit: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR', count: number): Date {
  const d = new Date(date.getTime());
  switch (unit) {
    case 'HOUR':
      return new Date(d.getTime() + count * HOUR_MS);
    case 'DAY':
      return new Date(d.getTime() + count * DAY_MS);
    case 'WEEK':
      return new Date(d.getTime() + count * 7 * DAY_MS);
    case 'MONTH':
      d.setUTCMonth(d.getUTCMonth() + count);
      return d;
    case 'YEAR':
      d.setUTCFullYear(d.getUTCFullYear() + count);
      return d;
  }
}

/** Whole units from `from` to `to` (from <= to). */
function unitsBetween(from: Date, to: Date, unit: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR'): number {
  if (unit === 'MONTH' || unit === 'YEAR') {
    let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
    if (addUnits(from, 'MONTH', months).getTime() > to.getTime()) months -= 1;
    return unit === 'YEAR' ? Math.floor(months / 12) : months;
  }
  const size = unit === 'HOUR' ? HOUR_MS : unit === 'DAY' ? DAY_MS : 7 * DAY_MS;
  return Math.floor((to.getTime() - from.getTime()) / size);
}

/** Calendar origin: 1970-01-01, except weeks, which start on Monday 1970-01-05. */
const CALENDAR_ORIGIN = { HOUR: 0, DAY: 0, WEEK: 4 * DAY_MS, MONTH: 0, YEAR: 0 } as const;

export interface UsageWindow {
  from: Date;
  /** When consumption starts again from zero; null when it never does or slides. */
  resetAt: Date | null;
}

/**
 * The window whose usage counts against a metered limit at `now`:
 * BILLING_CYCLE the current billing period; NEVER since the subscription started; CALENDAR the
 * calendar-aligned window (UTC) of `interval` units containing now; FIXED_WINDOW windows of
 * `interval` units counted from the subscription start; SLIDING_WINDOW the last `interval` units.
 */
export function usageWindow(reset: ResetPeriod, context: { periodStart: Date; periodEnd: Date | null; subscriptionStart: Date }, now: Date): UsageWindow {
  switch (reset.type) {
    case 'BILLING_CYCLE':
      return { from: context.periodStart, resetAt: context.periodEnd };
    case 'NEVER':
      return { from: context.subscriptionStart, resetAt: null };
    case 'SLIDING_WINDOW':
      return { from: addUnits(now, reset.unit, -reset.interval), resetAt: null };
    case 'CALENDAR':
    case 'FIXED_WINDOW': {
      const origin = reset.type === 'CALENDAR' ? new Date(CALENDAR_ORIGIN[reset.unit]) : context.subscriptionStart;
      if (now.getTime() < origin.getTime()) return { from: origin, resetAt: addUnits(origin, reset.unit, reset.interval) };
      const windows = Math.floor(unitsBetween(origin, now, reset.unit) / reset.interval);
      const from = addUnits(origin, reset.unit, windows * reset.interval);
      return { from, resetAt: addUnits(from, reset.unit, reset.interval) };
    }
  }
}

/** Remaining = limit - consumed, never below zero; null when unlimited or consumption unknown. */
export function remainingOf(limit: string | null, consumed: string | null): string | null {
  if (limit === null || consumed === null) return null;
  const rest = parseDecimal(limit).minus(parseDecimal(consumed));
  return (rest.isNegative() ? new Dec(0) : rest).toFixed();
}
