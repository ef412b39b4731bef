// Mid-period changes (plan change, slot change, add-on added or removed): credit the unused
// part of what was billed in advance, charge the remaining part of what replaces it, by days.
import type { Decimal } from 'decimal.js';
import { Dec, sumMinor, toMinor, type CurrencyCode } from '../kernel/money.js';
import { compareDates, daysBetween, type LocalDate } from './dates.js';
import { BillingRuleError } from './errors.js';
import { prorateByDays, type BillingPeriod } from './periods.js';

/** Something billed in advance for a period: a plan rate, N slots, an add-on instance... */
export interface RecurringItem {
  /** Identity across the change (component or add-on id): same key + same amount = unchanged. */
  readonly key: string;
  readonly name: string;
  /** Price for a full grid period, major units (quantity × unit price). */
  readonly fullPeriodAmount: Decimal;
}

export interface ProrationLine {
  readonly key: string;
  readonly name: string;
  readonly kind: 'CREDIT' | 'CHARGE';
  /** Unrounded major units: negative for credits. */
  readonly amount: Decimal;
  readonly periodStart: LocalDate;
  readonly periodEnd: LocalDate;
  /** Days from the change to the period end, over the full grid period's days. */
  readonly days: number;
  readonly fullPeriodDays: number;
}

/**
 * Prorated credit and charge lines for a change effective on `changeDate` inside the
 * advance-billed `period`. The daily rate is the full-period price over the FULL grid period's
 * days, the same basis as first-period proration, so a stub period credits consistently.
 * Unchanged items (same key, same amount) produce no lines.
 */
export function prorateChange(
  period: BillingPeriod,
  changeDate: LocalDate,
  before: readonly RecurringItem[],
  after: readonly RecurringItem[],
): ProrationLine[] {
  if (compareDates(changeDate, period.start) < 0 || compareDates(changeDate, period.end) >= 0) {
    throw new BillingRuleError('INVALID_PERIOD', `change date ${changeDate} is outside [${period.start}, ${period.end})`);
  }
  const days = daysBetween(changeDate, period.end);
  const line = (item: RecurringItem, kind: ProrationLine['kind']): ProrationLine => {
    const prorated = prorateByDays(item.fullPeriodAmount, days, period.fullPeriodDays);
    return {
      key: item.key,
      name: `${kind === 'CREDIT' ? 'Unused time' : 'Remaining time'}: ${item.name} (${changeDate} to ${period.end})`,
      kind,
      amount: kind === 'CREDIT' ? prorated.negated() : prorated,
      periodStart: changeDate,
      periodEnd: period.end,
      days,
      fullPeriodDays: period.fullPeriodDays,
    };
  };
  const afterByKey = new Map(after.map((item) => [item.key, item]));
  const beforeByKey = new Map(before.map((item) => [item.key, item]));
  const isUnchanged = (item: RecurringItem, other: RecurringItem | undefined): boolean =>
    other !== undefined && new Dec(other.fullPeriodAmount).equals(item.fullPeriodAmount);
  const credits = before.filter((item) => !isUnchanged(item, afterByKey.get(item.key))).map((item) => line(item, 'CREDIT'));
  const charges = after.filter((item) => !isUnchanged(item, beforeByKey.get(item.key))).map((item) => line(item, 'CHARGE'));
  return [...credits, ...charges];
}

/** Slot (seat) count change: old count credited, new count charged, for the rest of the period. */
export function prorateSlotChange(
  period: BillingPeriod,
  changeDate: LocalDate,
  slot: { readonly key: string; readonly name: string; readonly unitPrice: Decimal; readonly fromSlots: bigint; readonly toSlots: bigint },
): ProrationLine[] {
  if (slot.fromSlots < 0n || slot.toSlots < 0n) throw new BillingRuleError('INVALID_QUANTITY', 'slot counts must not be negative');
  const item = (slots: bigint): RecurringItem => ({
    key: slot.key,
    name: `${slot.name} × ${slots.toString()}`,
    fullPeriodAmount: new Dec(slot.unitPrice).times(slots.toString()),
  });
  return prorateChange(period, changeDate, slot.fromSlots > 0n ? [item(slot.fromSlots)] : [], slot.toSlots > 0n ? [item(slot.toSlots)] : []);
}

/**
 * Where a change's net amount lands. Upgrades (net charge) are invoiced immediately on an
 * adjustment invoice so the customer pays before using more; downgrades (net credit) are carried
 * as credit lines on the next invoice rather than refunded, so no negative invoice is issued.
 */
export type AdjustmentSettlement = 'INVOICE_NOW' | 'CARRY_TO_NEXT_INVOICE' | 'NONE';

export interface AdjustmentPlan {
  readonly lines: readonly ProrationLine[];
  /** Σ of the lines, each rounded once exactly as the invoice will round it. */
  readonly netMinor: bigint;
  readonly settlement: AdjustmentSettlement;
}

export function planAdjustment(lines: readonly ProrationLine[], currency: CurrencyCode): AdjustmentPlan {
  const netMinor = sumMinor(lines.map((line) => toMinor(line.amount, currency)));
  const settlement: AdjustmentSettlement = netMinor > 0n ? 'INVOICE_NOW' : netMinor < 0n ? 'CARRY_TO_NEXT_INVOICE' : 'NONE';
  return { lines, netMinor, settlement };
}
