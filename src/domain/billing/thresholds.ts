// Spend thresholds (progressive billing, docs/credits-and-alerts.md): amounts of usage charges
// accrued in the current period at which that usage is invoiced at once, on a threshold invoice.
// Pure: which crossing an accrued amount has reached, and the threshold invoice's lines, taken
// from the engine's own computation of the period's next invoice (no second pricing path).
import { Dec, minorToDecimal } from '../../kernel/money.js';
import { addDays, compareDates, type LocalDate } from '../dates.js';
import { BillingRuleError } from '../errors.js';
import { assembleInvoice } from '../invoice.js';
import { resolveTax, type TaxCustomer } from '../tax.js';
import type { ComputedSubscriptionInvoice, InvoicingEntityTax, LineDetail, PricedLine } from './compute.js';
import { snapshotDecimal, type SubscriptionSnapshot } from './snapshot.js';
import { thresholdWindowKey, type ThresholdBilledWindows } from './threshold-lines.js';

export interface SpendThreshold {
  /** Accrued usage charges of the period, quoted (before discount and tax), in minor units. */
  readonly amountMinor: bigint;
  /** A recurring step: after the highest fixed amount (or from 0), every `amountMinor` more. */
  readonly recurring: boolean;
  readonly displayName: string | null;
}

export interface ThresholdCrossing {
  /** How many levels the accrued amount has reached in the period: 1 for the first. */
  readonly index: number;
  /** The highest level reached. */
  readonly levelMinor: bigint;
  /** The threshold that level belongs to. */
  readonly threshold: SpendThreshold;
}

/** Checks a threshold list: positive amounts, fixed amounts distinct, at most one recurring. */
export function validateThresholds(thresholds: readonly SpendThreshold[]): void {
  const fixed = new Set<bigint>();
  let recurring = 0;
  for (const threshold of thresholds) {
    if (threshold.amountMinor <= 0n) throw new BillingRuleError('INVALID_PRICING', 'a threshold amount must be above zero');
    if (threshold.recurring) recurring += 1;
    else if (fixed.has(threshold.amountMinor)) throw new BillingRuleError('INVALID_PRICING', 'two fixed thresholds have the same amount');
    else fixed.add(threshold.amountMinor);
  }
  if (recurring > 1) throw new BillingRuleError('INVALID_PRICING', 'at most one threshold may be recurring');
}

function split(thresholds: readonly SpendThreshold[]): { fixed: SpendThreshold[]; recurring: SpendThreshold | null } {
  const fixed = thresholds.filter((t) => !t.recurring).sort((a, b) => (a.amountMinor < b.amountMinor ? -1 : a.amountMinor > b.amountMinor ? 1 : 0));
  return { fixed, recurring: thresholds.find((t) => t.recurring) ?? null };
}

/**
 * The level of the `index`-th crossing (1-based): the fixed amounts in ascending order, then the
 * highest fixed amount (0 without any) plus a multiple of the recurring step. Null past the last
 * fixed amount when nothing recurs.
 */
export function thresholdLevelMinor(thresholds: readonly SpendThreshold[], index: number): bigint | null {
  const { fixed, recurring } = split(thresholds);
  if (index < 1) return null;
  if (index <= fixed.length) return fixed[index - 1]!.amountMinor;
  if (recurring === null) return null;
  const base = fixed.at(-1)?.amountMinor ?? 0n;
  return base + BigInt(index - fixed.length) * recurring.amountMinor;
}

/** The crossing an accrued amount has reached (a level is reached at equality), or null below the first level. */
export function crossingAt(thresholds: readonly SpendThreshold[], accruedMinor: bigint): ThresholdCrossing | null {
  const { fixed, recurring } = split(thresholds);
  const reachedFixed = fixed.filter((t) => t.amountMinor <= accruedMinor);
  let index = reachedFixed.length;
  let last: ThresholdCrossing | null = index > 0 ? { index, levelMinor: reachedFixed.at(-1)!.amountMinor, threshold: reachedFixed.at(-1)! } : null;
  if (recurring !== null && index === fixed.length) {
    const base = fixed.at(-1)?.amountMinor ?? 0n;
    const steps = accruedMinor > base ? (accruedMinor - base) / recurring.amountMinor : 0n;
    if (steps > 0n) {
      index += Number(steps);
      last = { index, levelMinor: base + steps * recurring.amountMinor, threshold: recurring };
    }
  }
  return last;
}

/** What a period's usage windows have accrued: the sum of their prices now (quoted minor units). */
export function accruedUsageMinor(upcoming: ComputedSubscriptionInvoice): bigint {
  return upcoming.billedUsage.reduce((sum, window) => sum + window.billedMinor, 0n);
}

/**
 * The threshold invoice of a crossing: one line per usage window of `upcoming` (the engine's
 * computation of the invoice that closes the current period, as the upcoming-invoice preview
 * computes it), billing the window's price now less what the period's earlier threshold invoices
 * billed for it (`before`). No coupon and no minimum commitment: both stay on the period-end
 * invoice, which bills the whole period. Tax as on any invoice of the customer. Windows with
 * nothing new give no line. `asOf`: the day the usage is billed to, named in the descriptions.
 */
export function computeThresholdInvoice(
  snapshot: SubscriptionSnapshot,
  upcoming: ComputedSubscriptionInvoice,
  before: ThresholdBilledWindows,
  customerTax: TaxCustomer,
  entity: InvoicingEntityTax,
  asOf: LocalDate,
): ComputedSubscriptionInvoice {
  const { currency } = snapshot;
  const lines: PricedLine[] = [];
  upcoming.billedUsage.forEach((window, i) => {
    const index = upcoming.billedLineIndexes[i];
    const line = index === undefined ? undefined : upcoming.invoice.lines[index];
    const detail: LineDetail | undefined = index === undefined ? undefined : upcoming.lineDetails[index];
    if (!line || !detail) throw new BillingRuleError('INVALID_PERIOD', `the line of usage window ${window.componentId} is missing`);
    const prior = before.get(thresholdWindowKey(window.componentId, window.periodStart));
    const amountMinor = window.billedMinor - (prior?.quotedMinor ?? 0n);
    if (amountMinor === 0n) return;
    const total = typeof window.usage === 'string' ? new Dec(window.usage) : window.usage.reduce((sum, g) => sum.plus(g.quantity), new Dec(0));
    const priorQuantity = new Dec(prior?.quantity ?? '0');
    const lastDay = compareDates(asOf, window.periodEnd) < 0 ? asOf : addDays(window.periodEnd, -1);
    lines.push({
      input: {
        name: line.name,
        category: 'USAGE',
        amount: minorToDecimal(amountMinor, currency),
        quantity: total.minus(priorQuantity),
        unitPrice: null,
        periodStart: window.periodStart,
        periodEnd: window.periodEnd,
      },
      detail: {
        ...detail,
        description: `Usage of ${window.periodStart} to ${lastDay}: ${total.toString()} in all${prior ? `, ${priorQuantity.toString()} on earlier threshold invoices` : ''}`,
        subLines: [],
      },
    });
  });
  const standardRates = Object.fromEntries(Object.entries(entity.standardRates).map(([country, rate]) => [country, snapshotDecimal(rate, `standardRates.${country}`)]));
  const invoice = assembleInvoice({
    currency,
    taxInclusive: snapshot.taxInclusive === true,
    lines: lines.map((line) => line.input),
    coupons: [],
    minimumCommitment: null,
    tax: resolveTax({ entityCountry: entity.country, customer: customerTax, standardRates }),
  });
  return {
    occasion: upcoming.occasion,
    invoice,
    lineDetails: lines.map((line) => line.detail),
    couponNames: {},
    couponsUsed: [],
    unmatchedUsage: [],
    // recorded as billed by the period-end invoice, which prices the whole window
    billedUsage: [],
    billedLineIndexes: [],
  };
}
