import { minorToDecimal } from '../../../kernel/money.js';
import type { BillingRun } from './run.js';

/**
 * A subscription's usage charges accrued so far in its current period: the USAGE lines of the
 * invoice that will close the period (the billing run's currentPeriodInvoice, the same
 * computation spend thresholds use), after discounts and before tax, as a decimal string in the
 * invoice currency. Undefined when no invoice is coming. What spend alerts watch
 * (docs/credits-and-alerts.md).
 */
export async function accruedUsageCharges(run: BillingRun, db: Parameters<BillingRun['currentPeriodInvoice']>[0], tenantId: string, subscriptionId: string): Promise<string | undefined> {
  // an invoice due and not created yet (the period's advance fees) does not hide what the period accrues
  const next = await run.currentPeriodInvoice(db, tenantId, subscriptionId, { evenWhileDue: true });
  if (next === null) return undefined;
  const { computed } = next.input;
  const minor = computed.lines.filter((line) => line.category === 'USAGE').reduce((sum, line) => sum + line.taxableMinor, 0n);
  return minorToDecimal(minor, computed.currency).toFixed();
}
