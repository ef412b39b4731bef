// What a period's threshold invoices billed, and how the period-end invoice deducts it
// (docs/credits-and-alerts.md, "Spend thresholds"). A threshold invoice bills, per usage window
// (one subscription fee over one period), the price of the usage so far less what earlier
// threshold invoices of the period billed for that window. The period-end invoice prices the
// window's whole usage as it always did, then deducts, window by window, exactly what the
// threshold invoices billed: their net amount and their tax. Amounts, never units, are deducted,
// so tiered, volume and package prices stay those of the whole period.
import { Dec, minorToDecimal, type CurrencyCode } from '../../kernel/money.js';
import type { BilledUsage, PricedLine } from './compute.js';

/** The sums of a window's lines on the period's threshold invoices (void ones excluded). */
export interface ThresholdBilled {
  /** As priced: tax included on a tax-inclusive plan (threshold invoices carry no discount). */
  readonly quotedMinor: bigint;
  readonly netMinor: bigint;
  readonly taxMinor: bigint;
  /** The usage units the lines billed, as a decimal string. */
  readonly quantity: string;
}

/** By `thresholdWindowKey`. */
export type ThresholdBilledWindows = ReadonlyMap<string, ThresholdBilled>;

/** A usage window of a subscription: its fee (component) and its first day; the same on every invoice that bills it. */
export function thresholdWindowKey(componentId: string, periodStart: string): string {
  return `${componentId}|${periodStart}`;
}

/**
 * One negative line per window billed by threshold invoices, right for the period-end invoice:
 * its net and tax are those the threshold invoices billed (`settled`), so it takes no coupon,
 * does not lower the minimum commitment base, and reverses exactly the tax it was charged.
 * `lines[i]` is the line that bills `billed[i]`.
 */
export function thresholdDeductionLines(
  currency: CurrencyCode, billed: readonly BilledUsage[], lines: readonly PricedLine[], windows: ThresholdBilledWindows | undefined,
): PricedLine[] {
  if (windows === undefined || windows.size === 0) return [];
  const out: PricedLine[] = [];
  billed.forEach((window, index) => {
    const before = windows.get(thresholdWindowKey(window.componentId, window.periodStart));
    const line = lines[index];
    if (before === undefined || line === undefined || (before.netMinor === 0n && before.taxMinor === 0n)) return;
    out.push({
      input: {
        name: `${line.input.name}: billed on threshold invoices`,
        category: 'USAGE',
        amount: minorToDecimal(-before.quotedMinor, currency),
        quantity: new Dec(before.quantity).negated(),
        unitPrice: null,
        periodStart: line.input.periodStart ?? null,
        periodEnd: line.input.periodEnd ?? null,
        settled: { netMinor: -before.netMinor, taxMinor: -before.taxMinor },
      },
      detail: { ...line.detail, description: 'Usage of this period already invoiced on its threshold invoices', subLines: [] },
    });
  });
  return out;
}
