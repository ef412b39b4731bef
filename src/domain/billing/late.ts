// Late usage (docs/usage.md, "Late usage"): usage of a window an invoice billed, found after that
// invoice was finalized, is billed on a later invoice as the difference of two prices of the
// same charge: price(all usage of the window now) − what was billed for it so far. Over all
// invoices a window is then billed exactly the price of its whole usage (tiered, volume and
// package pricing included, rounded once), and a window billed up to date bills nothing more.
import type { Decimal } from 'decimal.js';
import { Dec, minorToDecimal, toMinor } from '../../kernel/money.js';
import { addDays, daysBetween } from '../dates.js';
import { BillingRuleError } from '../errors.js';
import { isUsageCharge, priceCharge, type BilledUsage, type ComponentUsage, type PricedLine } from './compute.js';
import { planCharges, type PlannedCharge } from './plan.js';
import type { SubscriptionSnapshot } from './snapshot.js';

export interface LateUsage {
  /** The window as billed so far. */
  readonly billed: BilledUsage;
  /** All usage of the window now. */
  readonly usage: ComponentUsage;
}

export interface LateUsageResult {
  /** One line per window whose price changed, for `computeSubscriptionInvoice`'s `extraLines`. */
  readonly lines: readonly PricedLine[];
  /** Every window as billed once these lines are (its usage now, its whole price). */
  readonly billed: readonly BilledUsage[];
}

/**
 * The charge that billed the window, from the plan of its occasion. When the subscription changed
 * since so that the plan no longer holds that window (a cancellation backdated into it), the
 * component's fee over the window as billed: usage is never prorated, and a capacity's included
 * quantity is then the full one.
 */
function chargeOf(snapshot: SubscriptionSnapshot, billed: BilledUsage): PlannedCharge {
  const planned = planCharges(snapshot, billed.occasion).find(
    (c) => c.component.id === billed.componentId && isUsageCharge(c) && c.periodStart === billed.periodStart && c.periodEnd === billed.periodEnd,
  );
  if (planned) return planned;
  const component = snapshot.components.find((c) => c.id === billed.componentId);
  if (!component || (component.fee.kind !== 'USAGE' && component.fee.kind !== 'CAPACITY')) {
    throw new BillingRuleError('INVALID_PERIOD', `late usage of component ${billed.componentId} for [${billed.periodStart}, ${billed.periodEnd}) cannot be priced: the subscription no longer has that fee`);
  }
  const days = daysBetween(billed.periodStart, billed.periodEnd);
  return { component, part: component.fee.kind === 'CAPACITY' ? 'CAPACITY_OVERAGE' : 'USAGE', timing: 'ARREARS', periodStart: billed.periodStart, periodEnd: billed.periodEnd, days, fullPeriodDays: days };
}

function totalOf(usage: ComponentUsage): Decimal {
  return typeof usage === 'string' ? new Dec(usage) : usage.reduce((sum, group) => sum.plus(group.quantity), new Dec(0));
}

/**
 * The late-usage lines of some billed windows: each window's charge is found again in the plan of
 * the occasion that first billed it (so the same proration of included capacity applies) and
 * priced with all its usage now; the line is the difference to what was billed, in minor units,
 * so no second rounding enters. A window whose price did not change gets no line. The lines name
 * their period and do not count toward the carrying invoice's minimum commitment.
 */
export function lateUsageLines(snapshot: SubscriptionSnapshot, late: readonly LateUsage[]): LateUsageResult {
  const lines: PricedLine[] = [];
  const billed: BilledUsage[] = [];
  for (const { billed: before, usage } of late) {
    const charge = chargeOf(snapshot, before);
    const priced = priceCharge(charge, { [before.componentId]: usage }, snapshot.currency, []);
    const nowMinor = toMinor(priced.input.amount, snapshot.currency);
    billed.push({ ...before, usage, billedMinor: nowMinor });
    const lateMinor = nowMinor - before.billedMinor;
    if (lateMinor === 0n) continue;
    const lastDay = addDays(before.periodEnd, -1);
    const fee = charge.component.fee;
    const perUnit = fee.kind === 'USAGE' && fee.pricing.model === 'PER_UNIT';
    lines.push({
      input: {
        name: `${priced.input.name}: late usage of ${before.periodStart} to ${lastDay}`,
        category: 'USAGE',
        amount: minorToDecimal(lateMinor, snapshot.currency),
        quantity: totalOf(usage).minus(totalOf(before.usage)),
        unitPrice: perUnit ? priced.input.unitPrice ?? null : null,
        periodStart: before.periodStart,
        periodEnd: before.periodEnd,
        earlierPeriod: true,
      },
      detail: {
        ...priced.detail,
        description: `Usage of ${before.periodStart} to ${lastDay} received after its invoice was finalized: ${totalOf(usage).toString()} in all, ${totalOf(before.usage).toString()} billed before`,
        subLines: [],
      },
    });
  }
  return { lines, billed };
}
