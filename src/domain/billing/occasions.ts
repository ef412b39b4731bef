// Which invoices a subscription owes as of a date: one per billing boundary (FIRST, RENEWAL),
// one after it stops (FINAL), and ADJUSTMENT invoices for mid-period upgrades. Each invoice date
// occurs at most once per subscription, which is what the caller de-duplicates on.
import { compareDates, type LocalDate } from '../dates.js';
import { listPeriods, periodContaining, periodAt, type BillingPeriod } from '../periods.js';
import { adjustmentPlanOn, changeDates } from './changes.js';
import { planCharges } from './plan.js';
import { billingStartOf, stopDateOf, stopSchedule, subscriptionTermOf, validateSnapshot, type SubscriptionSnapshot } from './snapshot.js';
import type { BillingOccasion } from './occasion.js';

export type { BillingOccasion, OccasionKind } from './occasion.js';

export interface InvoicedRef {
  readonly invoiceDate: LocalDate;
}

export interface InvoicesDueOptions {
  /** Migration mode: no invoice dated before `importedOn` (the old system billed those, advance of the running period included). */
  readonly skipPastInvoices?: boolean;
  /** Day the subscription was imported (its creation day); defaults to `asOf`. */
  readonly importedOn?: LocalDate;
}

interface RecurringDate {
  readonly kind: 'FIRST' | 'RENEWAL' | 'FINAL';
  readonly date: LocalDate;
  readonly period: BillingPeriod | null;
}

/** Recurring invoice dates up to `until` (inclusive). */
function recurringDates(snapshot: SubscriptionSnapshot, until: LocalDate): RecurringDate[] {
  const billingStart = billingStartOf(snapshot);
  const stop = stopDateOf(snapshot);
  if (stop !== null && compareDates(stop, billingStart) <= 0) return []; // stopped before billing began (e.g. in a free trial)
  const periods = listPeriods(stopSchedule(snapshot, subscriptionTermOf(snapshot)), until);
  const dates: RecurringDate[] = periods.map((period) => ({ kind: period.cycleIndex === 0 ? 'FIRST' : 'RENEWAL', date: period.start, period }));
  if (stop !== null && compareDates(stop, until) <= 0) dates.push({ kind: 'FINAL', date: stop, period: null });
  return dates;
}

/** First recurring date strictly after `date` that is not invoiced yet, or null when billing stops first. */
function nextOpenRecurringDate(snapshot: SubscriptionSnapshot, date: LocalDate, invoiced: ReadonlySet<LocalDate>): LocalDate | null {
  const schedule = stopSchedule(snapshot, subscriptionTermOf(snapshot));
  const stop = stopDateOf(snapshot);
  let probe: LocalDate = date;
  for (;;) {
    const period = periodContaining(schedule, probe);
    if (period === null) return null;
    const next = period.end;
    if (!invoiced.has(next)) return next;
    if (stop !== null && next === stop) return null;
    probe = next;
  }
}

/**
 * Every occasion dated on or before `until`, in date order, before filtering out those already
 * invoiced or with nothing to bill. Carried credits go to the first recurring invoice after the
 * change that is not invoiced yet, so a backdated downgrade is never lost.
 */
export function occasionsUntil(snapshot: SubscriptionSnapshot, until: LocalDate, invoiced: ReadonlySet<LocalDate> = new Set()): BillingOccasion[] {
  validateSnapshot(snapshot);
  const recurring = recurringDates(snapshot, until);
  const byDate = new Map<LocalDate, { base: RecurringDate | null; adjustmentDates: LocalDate[]; adjustmentEnd: LocalDate | null }>();
  for (const entry of recurring) byDate.set(entry.date, { base: entry, adjustmentDates: [], adjustmentEnd: null });
  const subSchedule = stopSchedule(snapshot, subscriptionTermOf(snapshot));
  for (const date of changeDates(snapshot)) {
    if (compareDates(date, until) > 0) break;
    const own = byDate.get(date);
    if (own?.base != null) {
      own.adjustmentDates.push(date);
      continue;
    }
    const plan = adjustmentPlanOn(snapshot, date);
    if (plan.settlement === 'NONE') continue;
    if (plan.settlement === 'INVOICE_NOW') {
      byDate.set(date, { base: null, adjustmentDates: [date], adjustmentEnd: periodContaining(subSchedule, date)?.end ?? date });
      continue;
    }
    const target = nextOpenRecurringDate(snapshot, date, invoiced);
    const entry = target === null ? undefined : byDate.get(target);
    entry?.adjustmentDates.push(date); // a target after `until` is not due yet
  }
  const occasions = [...byDate.entries()].map(([date, entry]): BillingOccasion => {
    const base = entry.base;
    if (base === null) {
      return { kind: 'ADJUSTMENT', invoiceType: 'ADJUSTMENT', invoiceDate: date, periodStart: date, periodEnd: entry.adjustmentEnd ?? date, cycleIndex: null, adjustmentDates: entry.adjustmentDates };
    }
    return {
      kind: base.kind,
      invoiceType: 'RECURRING',
      invoiceDate: date,
      periodStart: date,
      periodEnd: base.period?.end ?? date,
      cycleIndex: base.period?.cycleIndex ?? null,
      adjustmentDates: entry.adjustmentDates,
    };
  });
  return occasions.sort((a, b) => compareDates(a.invoiceDate, b.invoiceDate));
}

/**
 * The invoices due as of `asOf` and not yet created, oldest first (catching up missed periods).
 * First invoice: advance only; renewals: advance of the new period + arrears of the previous one;
 * final (after cancellation or end date): arrears and credits only. Occasions with nothing to
 * bill (e.g. the first invoice of a usage-only plan) are left out.
 */
export function invoicesDue(
  snapshot: SubscriptionSnapshot,
  alreadyInvoiced: readonly InvoicedRef[],
  asOf: LocalDate,
  options: InvoicesDueOptions = {},
): BillingOccasion[] {
  const invoiced = new Set(alreadyInvoiced.map((ref) => ref.invoiceDate));
  // Migration mode: the old system billed everything dated before the import day, including the
  // advance of the period running then; an invoice dated on the import day itself is ours.
  const skipBefore = options.skipPastInvoices === true ? (options.importedOn ?? asOf) : null;
  return occasionsUntil(snapshot, asOf, invoiced).filter(
    (occasion) =>
      !invoiced.has(occasion.invoiceDate) &&
      (skipBefore === null || compareDates(occasion.invoiceDate, skipBefore) >= 0) &&
      planCharges(snapshot, occasion).length > 0,
  );
}

/**
 * The first occasion after `asOf` with something to bill, or null when no invoice will come: the
 * upcoming-invoice preview and the subscription's `next_invoice_date`. It looks as far as the
 * annual boundary after the next subscription boundary: every fee in force bills at least once a
 * year on the grid, and changes start no later than the current period's end, so when nothing
 * bills by then, nothing ever will (one-time fees only, or stopped with advance fees only).
 */
export function nextOccasion(snapshot: SubscriptionSnapshot, asOf: LocalDate): BillingOccasion | null {
  const schedule = stopSchedule(snapshot, subscriptionTermOf(snapshot));
  const current = periodContaining(schedule, asOf) ?? periodAt(schedule, 0);
  if (current === null) return null;
  const next = compareDates(current.start, asOf) > 0 ? current.start : current.end;
  const horizon = periodContaining(stopSchedule(snapshot, 'ANNUAL'), next)?.end ?? next;
  return occasionsUntil(snapshot, horizon).find((occasion) => compareDates(occasion.invoiceDate, asOf) > 0 && planCharges(snapshot, occasion).length > 0) ?? null;
}
