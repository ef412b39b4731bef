// When each fee is billed: in advance for the period that starts on the invoice date, in
// arrears for the period that ended on it, or once. Pure decisions; the engine prices them.
import { addDays, compareDates, type LocalDate } from './dates.js';
import { BillingRuleError } from './errors.js';
import { periodAt, periodContaining, periodEndingOn, periodStartingOn, type BillingPeriod, type BillingSchedule } from './periods.js';

export type FeeKind = 'RATE' | 'SLOT' | 'CAPACITY' | 'USAGE' | 'EXTRA_RECURRING' | 'ONE_TIME';
export type ChargeTiming = 'ADVANCE' | 'ARREARS' | 'ONCE';
export type ChargePart =
  | 'RATE'
  | 'SLOT'
  | 'CAPACITY_BASE'
  | 'CAPACITY_OVERAGE'
  | 'USAGE'
  | 'EXTRA_RECURRING'
  | 'ONE_TIME';

export type FeeTimingSpec =
  | { readonly kind: Exclude<FeeKind, 'EXTRA_RECURRING'> }
  | { readonly kind: 'EXTRA_RECURRING'; readonly billing: 'ADVANCE' | 'ARREARS' };

export interface ChargeSlot {
  readonly part: ChargePart;
  readonly timing: ChargeTiming;
}

/**
 * FIRST: the subscription's first invoice (nothing has been used yet, so no arrears).
 * RENEWAL: invoice at a period boundary (advance for the new period, arrears for the old).
 * FINAL: after cancellation or end date (nothing left to bill in advance, only arrears).
 */
export type InvoiceOccasion = 'FIRST' | 'RENEWAL' | 'FINAL';

/** The billable parts of a fee and when each is charged. */
export function chargeSlots(fee: FeeTimingSpec): readonly ChargeSlot[] {
  switch (fee.kind) {
    case 'RATE':
      return [{ part: 'RATE', timing: 'ADVANCE' }];
    case 'SLOT':
      return [{ part: 'SLOT', timing: 'ADVANCE' }];
    case 'CAPACITY':
      // The committed base is known up front; overage only once usage is in.
      return [
        { part: 'CAPACITY_BASE', timing: 'ADVANCE' },
        { part: 'CAPACITY_OVERAGE', timing: 'ARREARS' },
      ];
    case 'USAGE':
      return [{ part: 'USAGE', timing: 'ARREARS' }];
    case 'EXTRA_RECURRING':
      return [{ part: 'EXTRA_RECURRING', timing: fee.billing }];
    case 'ONE_TIME':
      return [{ part: 'ONE_TIME', timing: 'ONCE' }];
  }
}

const TIMINGS_BY_OCCASION: Readonly<Record<InvoiceOccasion, ReadonlySet<ChargeTiming>>> = {
  FIRST: new Set<ChargeTiming>(['ADVANCE', 'ONCE']),
  RENEWAL: new Set<ChargeTiming>(['ADVANCE', 'ARREARS']),
  FINAL: new Set<ChargeTiming>(['ARREARS']),
};

/** The parts of a fee that belong on an invoice of the given occasion. */
export function chargeSlotsDue(fee: FeeTimingSpec, occasion: InvoiceOccasion): readonly ChargeSlot[] {
  const allowed = TIMINGS_BY_OCCASION[occasion];
  return chargeSlots(fee).filter((slot) => allowed.has(slot.timing));
}

export interface InvoiceWindows {
  /** Period billed in advance on this invoice, or null. */
  readonly advance: BillingPeriod | null;
  /** Period billed in arrears (usage window), or null. */
  readonly arrears: BillingPeriod | null;
}

/**
 * Billing windows of one schedule (a subscription, or a component on its own longer term)
 * for an invoice dated `invoiceDate`. A component whose grid has no boundary on that date
 * gets no window, which is how a quarterly fee skips the monthly invoices in between.
 *
 * FINAL invoices are dated on the schedule's end date (cancellation effective date) and bill
 * the period containing the day before it, cut at the end date; this includes cycle 0, so
 * usage of a subscription cancelled during its first period is still billed.
 */
export function invoiceWindows(schedule: BillingSchedule, invoiceDate: LocalDate, occasion: InvoiceOccasion): InvoiceWindows {
  switch (occasion) {
    case 'FIRST': {
      const first = periodAt(schedule, 0);
      if (first === null || first.start !== invoiceDate) {
        throw new BillingRuleError('INVALID_PERIOD', `first invoice must be dated on the start date ${schedule.startDate}`);
      }
      return { advance: first, arrears: null };
    }
    case 'RENEWAL':
      return {
        advance: periodStartingOn(schedule, invoiceDate),
        arrears: periodEndingOn(schedule, invoiceDate),
      };
    case 'FINAL': {
      if (schedule.endDate == null || compareDates(schedule.endDate, invoiceDate) !== 0) {
        throw new BillingRuleError('INVALID_PERIOD', 'final invoice must be dated on the schedule end date');
      }
      if (compareDates(invoiceDate, schedule.startDate) <= 0) return { advance: null, arrears: null };
      return { advance: null, arrears: periodContaining(schedule, addDays(invoiceDate, -1)) };
    }
  }
}
