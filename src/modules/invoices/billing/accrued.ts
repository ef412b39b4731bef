import { minorToDecimal } from '../../../kernel/money.js';
import type { BillingRun } from './run.js';

/**
 * A subscription's usage charges accrued so far: the USAGE lines of the invoice at the end of its
 * current period (the billing run's own computation, as the upcoming-invoice preview makes it,
 * skipping an invoice due today that the run has not stored yet), after discounts and before tax,
 * as a decimal string in the invoice currency. Undefined when no invoice is coming. What spend
 * alerts watch (docs/credits-and-alerts.md).
 */
export async function accruedUsageCharges(run: BillingRun, tenantId: string, subscriptionId: string): Promise<string | undefined> {
  const next = await run.upcoming(tenantId, subscriptionId, { afterToday: true });
  if (next === null) return undefined;
  const { computed } = next.input;
  const minor = computed.lines.filter((line) => line.category === 'USAGE').reduce((sum, line) => sum + line.taxableMinor, 0n);
  return minorToDecimal(minor, computed.currency).toFixed();
}
