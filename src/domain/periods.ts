// Billing periods: half-open [start, end) calendar ranges on a billing-day anchor grid.
import type { Decimal } from 'decimal.js';
import { Dec } from '../kernel/money.js';
import { addDays, addMonthsAnchored, anchoredDate, compareDates, daysBetween, parseLocalDate, type LocalDate } from './dates.js';
import { BillingRuleError } from './errors.js';

export type BillingTerm = 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';

export const TERM_MONTHS: Readonly<Record<BillingTerm, number>> = {
  MONTHLY: 1,
  QUARTERLY: 3,
  SEMIANNUAL: 6,
  ANNUAL: 12,
};

/** What fixes a subscription's (or one component's) periods. */
export interface BillingSchedule {
  /** First billable day (subscription start, or the day after a free trial). */
  readonly startDate: LocalDate;
  /** Day of month periods turn over, 1..31, clamped to shorter months. */
  readonly anchorDay: number;
  readonly term: BillingTerm;
  /** Exclusive end of billing (cancellation or end date); the last period is cut there. */
  readonly endDate?: LocalDate | null;
}

export interface BillingPeriod {
  /** First day covered (inclusive). */
  readonly start: LocalDate;
  /** First day NOT covered (exclusive): a January period ends on Feb 1. */
  readonly end: LocalDate;
  /** 0 for the first period of the schedule. */
  readonly cycleIndex: number;
  /** Days covered: end − start. */
  readonly days: number;
  /** Days of the full grid period that contains this one; equal to `days` unless partial. */
  readonly fullPeriodDays: number;
}

export function isPartialPeriod(period: BillingPeriod): boolean {
  return period.days < period.fullPeriodDays;
}

/**
 * Scales a full-period amount to `days` out of `fullPeriodDays`. Multiplies before dividing so
 * that amounts which divide evenly stay exact (no repeating decimals before the single rounding).
 */
export function prorateByDays(fullAmount: Decimal, days: number, fullPeriodDays: number): Decimal {
  if (fullPeriodDays <= 0 || days < 0) {
    throw new BillingRuleError('INVALID_PERIOD', `cannot prorate ${days} days of a ${fullPeriodDays}-day period`);
  }
  if (days === fullPeriodDays) return new Dec(fullAmount);
  return new Dec(fullAmount).times(days).div(fullPeriodDays);
}

/** Amount due for a (possibly partial) period, given the full-period price. */
export function amountForPeriod(fullAmount: Decimal, period: BillingPeriod): Decimal {
  return prorateByDays(fullAmount, period.days, period.fullPeriodDays);
}

function validateSchedule(schedule: BillingSchedule): void {
  const { anchorDay, startDate, endDate } = schedule;
  if (!Number.isInteger(anchorDay) || anchorDay < 1 || anchorDay > 31) {
    throw new BillingRuleError('INVALID_PERIOD', `billing day anchor must be 1..31, got ${anchorDay}`);
  }
  if (!(schedule.term in TERM_MONTHS)) {
    throw new BillingRuleError('INVALID_PERIOD', `unknown billing term ${String(schedule.term)}`);
  }
  parseLocalDate(startDate);
  if (endDate != null && compareDates(endDate, startDate) < 0) {
    throw new BillingRuleError('INVALID_PERIOD', `end date ${endDate} is before start date ${startDate}`);
  }
}

/** First anchor date on or after `date` (the date itself when it sits on the anchor). */
export function firstAnchorOnOrAfter(date: LocalDate, anchorDay: number): LocalDate {
  const { year, month } = parseLocalDate(date);
  const sameMonth = anchoredDate(year, month, anchorDay);
  return compareDates(sameMonth, date) >= 0 ? sameMonth : addMonthsAnchored(sameMonth, 1, anchorDay);
}

/**
 * The grid period with index `cycleIndex`, or null when the schedule has ended before it.
 * Grid: the first anchor date on or after the start is the origin; period k (k ≥ 1) runs from
 * origin + (k−1)·term to origin + k·term. When the start is not on the anchor, period 0 is the
 * stub [start, origin), prorated against the full grid period (origin − term, origin).
 * When the start is on the anchor, period 0 is the full [origin, origin + term).
 */
export function periodAt(schedule: BillingSchedule, cycleIndex: number): BillingPeriod | null {
  validateSchedule(schedule);
  if (!Number.isInteger(cycleIndex) || cycleIndex < 0) {
    throw new BillingRuleError('INVALID_PERIOD', `cycle index must be a whole number from 0, got ${cycleIndex}`);
  }
  const months = TERM_MONTHS[schedule.term];
  const { startDate, anchorDay } = schedule;
  const origin = firstAnchorOnOrAfter(startDate, anchorDay);
  const hasStub = origin !== startDate;
  const gridIndex = hasStub ? cycleIndex - 1 : cycleIndex;
  const gridStart = addMonthsAnchored(origin, gridIndex * months, anchorDay);
  const gridEnd = addMonthsAnchored(origin, (gridIndex + 1) * months, anchorDay);
  const start = cycleIndex === 0 ? startDate : gridStart;
  let end = gridEnd;
  if (schedule.endDate != null) {
    if (compareDates(schedule.endDate, start) <= 0) return null;
    if (compareDates(schedule.endDate, end) < 0) end = schedule.endDate;
  }
  return { start, end, cycleIndex, days: daysBetween(start, end), fullPeriodDays: daysBetween(gridStart, gridEnd) };
}

// Hard stop for loops over periods: 1,200 monthly periods is a century of billing.
const MAX_PERIODS = 1200;

/** Every period that has started on or before `asOf` (the current one included), in order. */
export function listPeriods(schedule: BillingSchedule, asOf: LocalDate): BillingPeriod[] {
  const periods: BillingPeriod[] = [];
  for (let index = 0; index < MAX_PERIODS; index += 1) {
    const period = periodAt(schedule, index);
    if (period === null || compareDates(period.start, asOf) > 0) break;
    periods.push(period);
  }
  return periods;
}

/** The period with start ≤ date < end, or null outside the schedule. */
export function periodContaining(schedule: BillingSchedule, date: LocalDate): BillingPeriod | null {
  const periods = listPeriods(schedule, date);
  const last = periods[periods.length - 1];
  return last !== undefined && compareDates(date, last.end) < 0 ? last : null;
}

/** The period that starts exactly on `date`, or null when `date` is not a boundary of this grid. */
export function periodStartingOn(schedule: BillingSchedule, date: LocalDate): BillingPeriod | null {
  const period = periodContaining(schedule, date);
  return period !== null && period.start === date ? period : null;
}

/** The period that ends exactly on `date` (its exclusive end, grid boundary or end date), or null. */
export function periodEndingOn(schedule: BillingSchedule, date: LocalDate): BillingPeriod | null {
  if (compareDates(date, schedule.startDate) <= 0) return null;
  const period = periodContaining(schedule, addDays(date, -1));
  return period !== null && period.end === date ? period : null;
}
