// What a period's threshold invoices billed, and how the period-end invoice deducts it
// (docs/credits-and-alerts.md, "Spend thresholds"). A threshold invoice bills, per usage window
// (one subscription fee over one period), the price of the usage so far less what earlier
// threshold invoices of the period billed for that window. The period-end invoice prices the
// window's whole usage as it always did, then deducts, window by window, exactly what the
// threshold invoices billed: their net amount and their tax. Amounts, never units, are deducted,
// so tiered, volume and package prices stay those of the whole period. The deduction lines are
// built by `thresholdDeductionLines` (compute.ts).

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
