// Step 1 of computing an invoice: the PLAN. Which component parts are billed on an occasion and
// for which window, and which usage the caller must fetch. No prices, no usage: dates only.
import { addDays, compareDates, daysBetween, type LocalDate } from '../dates.js';
import { periodAt, periodContaining, periodEndingOn, periodStartingOn, type BillingPeriod } from '../periods.js';
import type { ProrationLine } from '../proration.js';
import { chargeSlots, type ChargePart } from '../timing.js';
import { changeLinesOn, effectiveEndOf } from './changes.js';
import type { BillingOccasion } from './occasion.js';
import { advanceSchedule, billingStartOf, isActiveOn, stopDateOf, stopSchedule, type SnapshotComponent, type SubscriptionSnapshot } from './snapshot.js';

export type PlannedTiming = 'ADVANCE' | 'ARREARS' | 'ONCE' | 'PRORATION';

export interface PlannedCharge {
  readonly component: SnapshotComponent;
  readonly part: ChargePart;
  readonly timing: PlannedTiming;
  /** Half-open window billed (usage is queried for exactly this range). ONCE: [date, date). */
  readonly periodStart: LocalDate;
  readonly periodEnd: LocalDate;
  /** Days billed out of the full grid period's days: fixed fees are prorated by days / fullPeriodDays. */
  readonly days: number;
  readonly fullPeriodDays: number;
  /** PRORATION and mid-period ONE_TIME charges: the signed, unrounded line from proration.ts. */
  readonly proration?: ProrationLine;
}

export interface UsageQuery {
  readonly componentId: string;
  readonly metricId: string;
  /** Half-open [periodStart 00:00, periodEnd 00:00) in the billing time zone. */
  readonly periodStart: LocalDate;
  readonly periodEnd: LocalDate;
  /** Matrix pricing: dimension keys to group the usage by (the answer is one quantity per group). */
  readonly groupBy: readonly string[];
}

function window(period: BillingPeriod, component: SnapshotComponent, stop: LocalDate | null): { start: LocalDate; end: LocalDate; days: number } | null {
  const componentEnd = effectiveEndOf(component, stop);
  const start = compareDates(component.effectiveFrom, period.start) > 0 ? component.effectiveFrom : period.start;
  const end = componentEnd !== null && compareDates(componentEnd, period.end) < 0 ? componentEnd : period.end;
  const days = daysBetween(start, end);
  return days > 0 ? { start, end, days } : null;
}

function advanceCharges(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): PlannedCharge[] {
  const charges: PlannedCharge[] = [];
  const date = occasion.invoiceDate;
  for (const component of snapshot.components) {
    if (component.fee.kind === 'ONE_TIME') {
      if (occasion.kind === 'FIRST' && isActiveOn(component, date)) {
        charges.push({ component, part: 'ONE_TIME', timing: 'ONCE', periodStart: date, periodEnd: date, days: 0, fullPeriodDays: 0 });
      }
      continue;
    }
    if (!isActiveOn(component, date)) continue;
    const schedule = advanceSchedule(snapshot, component.term);
    const period = occasion.kind === 'FIRST' ? periodAt(schedule, 0) : periodStartingOn(schedule, date);
    if (period === null || period.start !== date) continue; // not a boundary of this component's grid
    for (const slot of chargeSlots(component.fee.kind === 'EXTRA_RECURRING' ? { kind: 'EXTRA_RECURRING', billing: component.fee.billing } : { kind: component.fee.kind })) {
      if (slot.timing !== 'ADVANCE') continue;
      charges.push({ component, part: slot.part, timing: 'ADVANCE', periodStart: period.start, periodEnd: period.end, days: period.days, fullPeriodDays: period.fullPeriodDays });
    }
  }
  return charges;
}

function arrearsCharges(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): PlannedCharge[] {
  const charges: PlannedCharge[] = [];
  const stop = stopDateOf(snapshot);
  const date = occasion.invoiceDate;
  for (const component of snapshot.components) {
    if (component.fee.kind === 'ONE_TIME') continue;
    const slots = chargeSlots(component.fee.kind === 'EXTRA_RECURRING' ? { kind: 'EXTRA_RECURRING', billing: component.fee.billing } : { kind: component.fee.kind }).filter(
      (slot) => slot.timing === 'ARREARS',
    );
    if (slots.length === 0) continue;
    const schedule = stopSchedule(snapshot, component.term);
    // FINAL: the period holding the last billed day, cut at the stop (cycle 0 included).
    const period = occasion.kind === 'FINAL' ? periodContaining(schedule, addDays(date, -1)) : periodEndingOn(schedule, date);
    if (period === null) continue;
    const billed = window(period, component, stop);
    if (billed === null) continue;
    for (const slot of slots) {
      charges.push({ component, part: slot.part, timing: 'ARREARS', periodStart: billed.start, periodEnd: billed.end, days: billed.days, fullPeriodDays: period.fullPeriodDays });
    }
  }
  return charges;
}

function adjustmentCharges(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): PlannedCharge[] {
  return occasion.adjustmentDates.flatMap((date) =>
    changeLinesOn(snapshot, date).map(({ component, kind, line }): PlannedCharge => ({
      component,
      part: kind === 'ONE_TIME' ? 'ONE_TIME' : chargePartOf(component),
      timing: kind === 'ONE_TIME' ? 'ONCE' : 'PRORATION',
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      days: line.days,
      fullPeriodDays: line.fullPeriodDays,
      proration: line,
    })),
  );
}

function chargePartOf(component: SnapshotComponent): ChargePart {
  return component.fee.kind === 'CAPACITY' ? 'CAPACITY_BASE' : component.fee.kind;
}

/**
 * The plan of an occasion: advance charges (FIRST, RENEWAL), arrears charges (RENEWAL, FINAL),
 * one-time fees (FIRST, or the day they were added), and the proration lines of the changes that
 * land on it. Order: advance, arrears, once/prorations, for a stable invoice layout.
 */
export function planCharges(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): PlannedCharge[] {
  if (compareDates(occasion.invoiceDate, billingStartOf(snapshot)) < 0) return [];
  const advance = occasion.kind === 'FIRST' || occasion.kind === 'RENEWAL' ? advanceCharges(snapshot, occasion) : [];
  const arrears = occasion.kind === 'RENEWAL' || occasion.kind === 'FINAL' ? arrearsCharges(snapshot, occasion) : [];
  return [...advance, ...arrears, ...adjustmentCharges(snapshot, occasion)];
}

/** The usage the caller must aggregate before `computeSubscriptionInvoice`, one query per component. */
export function usageQueries(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): UsageQuery[] {
  return planCharges(snapshot, occasion).flatMap((charge): UsageQuery[] => {
    const fee = charge.component.fee;
    if (charge.timing !== 'ARREARS') return [];
    if (fee.kind === 'USAGE') {
      const groupBy = fee.pricing.model === 'MATRIX' ? [...new Set(fee.pricing.cells.flatMap((cell) => Object.keys(cell.dimensions)))].sort() : [];
      return [{ componentId: charge.component.id, metricId: fee.metricId, periodStart: charge.periodStart, periodEnd: charge.periodEnd, groupBy }];
    }
    if (fee.kind === 'CAPACITY') {
      return [{ componentId: charge.component.id, metricId: fee.metricId, periodStart: charge.periodStart, periodEnd: charge.periodEnd, groupBy: [] }];
    }
    return [];
  });
}
