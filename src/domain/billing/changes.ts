// Mid-period changes expressed by component effective dates: a component that starts inside one
// of its advance periods is charged for the rest of it, one that stops inside it (or is cut by a
// cancellation) is credited for the unused days. Same daily rate as first-period proration.
import type { Decimal } from 'decimal.js';
import { Dec } from '../../kernel/money.js';
import { compareDates, earliestDate, type LocalDate } from '../dates.js';
import { periodContaining } from '../periods.js';
import { planAdjustment, prorateChange, type AdjustmentPlan, type ProrationLine } from '../proration.js';
import {
  advanceSchedule,
  billingStartOf,
  snapshotDecimal,
  stopDateOf,
  type SnapshotComponent,
  type SubscriptionSnapshot,
} from './snapshot.js';

/** Full-period amount a component bills in advance (rate, slots, capacity base, extra recurring ADVANCE). */
export function advanceAmountOf(component: SnapshotComponent): Decimal | null {
  const fee = component.fee;
  switch (fee.kind) {
    case 'RATE':
      return snapshotDecimal(fee.price, 'price');
    case 'SLOT':
      return snapshotDecimal(fee.unitPrice, 'unitPrice').times(fee.quantity);
    case 'CAPACITY':
      return snapshotDecimal(fee.basePrice, 'basePrice');
    case 'EXTRA_RECURRING':
      return fee.billing === 'ADVANCE' ? snapshotDecimal(fee.unitPrice, 'unitPrice').times(snapshotDecimal(fee.quantity, 'quantity')) : null;
    default:
      return null;
  }
}

/** Exclusive end of a component's billing: its effective end, cut at the stop date. */
export function effectiveEndOf(component: SnapshotComponent, stop: LocalDate | null): LocalDate | null {
  return earliestDate(component.effectiveTo, stop);
}

export interface ChangeLine {
  readonly component: SnapshotComponent;
  /** PRORATION: credit or charge of advance fees; ONE_TIME: a one-time fee added on that day. */
  readonly kind: 'PRORATION' | 'ONE_TIME';
  readonly line: ProrationLine;
}

function isInsideBilling(date: LocalDate, billingStart: LocalDate, stop: LocalDate | null, stopIncluded: boolean): boolean {
  if (compareDates(date, billingStart) <= 0) return false; // before or at billing start: the first invoice covers it
  if (stop === null) return true;
  const cmp = compareDates(date, stop);
  return stopIncluded ? cmp <= 0 : cmp < 0;
}

/** Proration and one-time lines caused by changes effective on `date`. */
export function changeLinesOn(snapshot: SubscriptionSnapshot, date: LocalDate): ChangeLine[] {
  const billingStart = billingStartOf(snapshot);
  const stop = stopDateOf(snapshot);
  const lines: ChangeLine[] = [];
  for (const component of snapshot.components) {
    if (component.fee.kind === 'ONE_TIME') {
      if (component.effectiveFrom === date && isInsideBilling(date, billingStart, stop, false)) {
        const amount = snapshotDecimal(component.fee.unitPrice, 'unitPrice').times(snapshotDecimal(component.fee.quantity, 'quantity'));
        lines.push({
          component,
          kind: 'ONE_TIME',
          line: { key: component.id, name: component.name, kind: 'CHARGE', amount, periodStart: date, periodEnd: date, days: 0, fullPeriodDays: 0 },
        });
      }
      continue;
    }
    const amount = advanceAmountOf(component);
    if (amount === null) continue;
    const period = periodContaining(advanceSchedule(snapshot, component.term), date);
    // On a boundary of the component's own grid the renewal bills (or stops billing) it whole.
    if (period === null || period.start === date) continue;
    const item = { key: component.id, name: component.name, fullPeriodAmount: new Dec(amount) };
    const end = effectiveEndOf(component, stop);
    if (component.effectiveFrom === date && isInsideBilling(date, billingStart, stop, false) && (end === null || compareDates(end, date) > 0)) {
      for (const line of prorateChange(period, date, [], [item])) lines.push({ component, kind: 'PRORATION', line });
    }
    if (end === date && compareDates(component.effectiveFrom, date) < 0 && isInsideBilling(date, billingStart, stop, true)) {
      for (const line of prorateChange(period, date, [item], [])) lines.push({ component, kind: 'PRORATION', line });
    }
  }
  return lines;
}

/** Every date on which a component starts or stops inside the billed range, in order. */
export function changeDates(snapshot: SubscriptionSnapshot): LocalDate[] {
  const billingStart = billingStartOf(snapshot);
  const stop = stopDateOf(snapshot);
  const dates = new Set<LocalDate>();
  for (const component of snapshot.components) {
    if (isInsideBilling(component.effectiveFrom, billingStart, stop, false)) dates.add(component.effectiveFrom);
    const end = effectiveEndOf(component, stop);
    if (end !== null && isInsideBilling(end, billingStart, stop, true)) dates.add(end);
  }
  return [...dates].sort(compareDates);
}

/**
 * Where the changes of one day land (see `planAdjustment`): a net charge is invoiced at once on
 * an ADJUSTMENT invoice; a net credit is carried to the next recurring invoice.
 */
export function adjustmentPlanOn(snapshot: SubscriptionSnapshot, date: LocalDate): AdjustmentPlan {
  return planAdjustment(changeLinesOn(snapshot, date).map((change) => change.line), snapshot.currency);
}
