// What an evaluation changes, pure: given an alert's threshold states and the value measured now,
// which thresholds resolve and which trigger. The repository applies each as a conditional
// UPDATE, so a transition computed from a stale read by a racing evaluation changes nothing.
import { parseDecimal } from '../../kernel/money.js';

export const ALERT_KINDS = ['USAGE_UNITS', 'SPEND', 'CREDIT_BALANCE'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface ThresholdState {
  /** Decimal string as stored. */
  threshold: string;
  triggered: boolean;
  /** The period the threshold triggered in; null for CREDIT_BALANCE (no period) or never triggered. */
  periodStart: Date | null;
}

/** The value of an alert now: null when there is none (no serving subscription, a balance not known). */
export interface Measured {
  value: string | null;
  /** The current period [start, end) the value belongs to; null for CREDIT_BALANCE. */
  periodStart: Date | null;
  periodEnd: Date | null;
}

export type Transition =
  | { kind: 'RESOLVE'; threshold: string; /** the period it had triggered in */ triggeredIn: Date | null }
  | { kind: 'TRIGGER'; threshold: string };

/**
 * Usage and spend rise through a threshold (value >= threshold is over); a credit balance falls
 * through one (value < threshold is over).
 */
export function isOver(kind: AlertKind, value: string, threshold: string): boolean {
  const v = parseDecimal(value);
  const t = parseDecimal(threshold);
  return kind === 'CREDIT_BALANCE' ? v.lt(t) : v.gte(t);
}

const samePeriod = (a: Date | null, b: Date | null) => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/**
 * Per threshold: a triggered one resolves when the value is back on the safe side, or when a new
 * period began (its usage starts again from zero, so the crossing it fired for is over); an
 * untriggered one (or one just resolved for a past period) triggers when the value is over it.
 * Resolutions come first, so a period rollover whose first value is already over gives
 * `alert.resolved` for the old period, then `alert.triggered` for the new one.
 */
export function transitionsOf(kind: AlertKind, states: readonly ThresholdState[], measured: Measured): Transition[] {
  const out: Transition[] = [];
  for (const state of states) {
    const over = measured.value !== null && isOver(kind, measured.value, state.threshold);
    const current = samePeriod(state.periodStart, measured.periodStart);
    if (state.triggered && (!over || !current)) out.push({ kind: 'RESOLVE', threshold: state.threshold, triggeredIn: state.periodStart });
    if (over && (!state.triggered || !current)) out.push({ kind: 'TRIGGER', threshold: state.threshold });
  }
  return out;
}
