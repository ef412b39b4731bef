// Billing periods: half-open [start, end) calendar ranges on a billing-day anchor grid. The one
// implementation of the grid: every look-up is constant time except listing (O(periods listed)).
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

/**
 * Exclusive end of period 0: the first boundary of the grid. A start on or past the anchor of its
 * month (a clamped anchor counts: Feb 28 with anchor 31 sits on it) runs one whole term, landing
 * on the anchor: quarterly from Jan 10 with anchor 1 ends Apr 1. A start before the anchor runs
 * to the anchor of the same month: quarterly from Jan 10 with anchor 15 ends Jan 15.
 */
export function firstBoundary(startDate: LocalDate, anchorDay: number, term: BillingTerm): LocalDate {
  const { year, month } = parseLocalDate(startDate);
  const anchorThisMonth = anchoredDate(year, month, anchorDay);
  return compareDates(startDate, anchorThisMonth) >= 0 ? addMonthsAnchored(startDate, TERM_MONTHS[term], anchorDay) : anchorThisMonth;
}

/** Boundary `index` terms after the first one (negative: before it). Always an anchor date. */
function boundary(first: LocalDate, index: number, schedule: BillingSchedule): LocalDate {
  return addMonthsAnchored(first, index * TERM_MONTHS[schedule.term], schedule.anchorDay);
}

function validateCycleIndex(cycleIndex: number): void {
  if (!Number.isInteger(cycleIndex) || cycleIndex < 0) {
    throw new BillingRuleError('INVALID_PERIOD', `cycle index must be a whole number from 0, got ${cycleIndex}`);
  }
}

/** Period `cycleIndex` of a validated schedule whose first boundary is `first`. */
function periodOfGrid(schedule: BillingSchedule, first: LocalDate, cycleIndex: number): BillingPeriod | null {
  // Period k is [boundary k−1, boundary k); period 0 starts on the start date instead, and its
  // full period (the proration denominator) is the whole term ending on the first boundary.
  const gridStart = boundary(first, cycleIndex - 1, schedule);
  const gridEnd = boundary(first, cycleIndex, schedule);
  const start = cycleIndex === 0 ? schedule.startDate : gridStart;
  let end = gridEnd;
  if (schedule.endDate != null) {
    if (compareDates(schedule.endDate, start) <= 0) return null;
    if (compareDates(schedule.endDate, end) < 0) end = schedule.endDate;
  }
  return { start, end, cycleIndex, days: daysBetween(start, end), fullPeriodDays: daysBetween(gridStart, gridEnd) };
}

/**
 * The period with index `cycleIndex`, or null when the schedule has ended before it. Period 0
 * runs from the start to `firstBoundary` (a full term when the start is on the anchor, otherwise
 * shorter and prorated); every later period is one whole term on the anchor.
 */
export function periodAt(schedule: BillingSchedule, cycleIndex: number): BillingPeriod | null {
  validateSchedule(schedule);
  validateCycleIndex(cycleIndex);
  return periodOfGrid(schedule, firstBoundary(schedule.startDate, schedule.anchorDay, schedule.term), cycleIndex);
}

// Hard stop for loops over periods: 1,200 monthly periods is a century of billing.
const MAX_PERIODS = 1200;

/** Every period that has started on or before `asOf` (the current one included), in order. */
export function listPeriods(schedule: BillingSchedule, asOf: LocalDate): BillingPeriod[] {
  validateSchedule(schedule);
  const first = firstBoundary(schedule.startDate, schedule.anchorDay, schedule.term);
  const periods: BillingPeriod[] = [];
  for (let index = 0; index < MAX_PERIODS; index += 1) {
    const period = periodOfGrid(schedule, first, index);
    if (period === null || compareDates(period.start, asOf) > 0) break;
    periods.push(period);
  }
  return periods;
}

/**
 * The period with start ≤ date < end, or null outside the schedule. Constant time (a bill run asks
 * this for every component of every subscription): the index follows from the month difference.
 */
export function periodContaining(schedule: BillingSchedule, date: LocalDate): BillingPeriod | null {
  validateSchedule(schedule);
  if (compareDates(date, schedule.startDate) < 0) return null;
  if (schedule.endDate != null && compareDates(date, schedule.endDate) >= 0) return null;
  const first = firstBoundary(schedule.startDate, schedule.anchorDay, schedule.term);
  if (compareDates(date, first) < 0) return periodOfGrid(schedule, first, 0);
  // Boundary j lies in the month j terms after the first boundary's month, so a date `months`
  // months later is in period ⌊months / term⌋ + 1, or the one before when it precedes that
  // period's boundary within the same month.
  const from = parseLocalDate(first);
  const to = parseLocalDate(date);
  const months = (to.year - from.year) * 12 + (to.month - from.month);
  let index = Math.floor(months / TERM_MONTHS[schedule.term]) + 1;
  if (compareDates(date, boundary(first, index - 1, schedule)) < 0) index -= 1;
  return periodOfGrid(schedule, first, index);
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
