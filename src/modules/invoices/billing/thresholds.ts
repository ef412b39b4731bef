// Spend thresholds (progressive billing, docs/credits-and-alerts.md): when the usage charges a
// subscription has accrued in its current period reach its next threshold, that usage is
// invoiced at once on a USAGE_THRESHOLD invoice, numbered, taxed, finalized and charged like any
// other. Checked after ingestion (for the subscriptions of the customers a batch touched) and by
// every billing run (late events, a crash between an ingest commit and its check).
//
// One engine: the accrued amount is the usage of the invoice that will close the period, computed
// by the billing run exactly as the upcoming-invoice preview computes it; the threshold invoice's
// lines are taken from that computation (src/domain/billing/thresholds.ts). One invoice per
// crossing: the check holds the subscription's billing lock (the run's) while it reads, computes
// and writes, and a unique index on (subscription, period, crossing) stays the last word.
import { today, type Clock } from '../../../kernel/clock.js';
import { parseDecimal, toMinor, formatMinor } from '../../../kernel/money.js';
import type { Pool, Queryable } from '../../../db/pool.js';
import { withTx } from '../../../db/tx.js';
import { scoped } from '../../../db/tenant-scope.js';
import { writeOutboxEvents } from '../../../db/outbox.js';
import {
  accruedUsageMinor, computeThresholdInvoice, crossingAt, periodContaining, stopSchedule, subscriptionTermOf, type SpendThreshold,
} from '../../../domain/index.js';
import type { UsageThreshold } from '../../plans/index.js';
import { breakdownRows, lineRows, newDraftRow } from '../drafts.js';
import { invoiceEventData } from '../events.js';
import { finalizeInTx, type DraftRefresher, type PrepaidCredits } from '../lifecycle.js';
import type { UsageThresholdCrossing } from '../repository.js';
import { insertContentBulk, insertInvoicesBulk, lastThresholdCrossing, lockSubscription, thresholdBilledOf } from './bulk-repository.js';
import { draftInputOf } from './compute.js';
import { customerTaxOf, entityTaxOf } from './context.js';
import { toEngineSnapshot } from './mapping.js';
import type { BillingRun } from './run.js';

/** The stored thresholds in minor units of the subscription's currency. */
export function spendThresholdsOf(thresholds: readonly UsageThreshold[] | null, currency: string): SpendThreshold[] {
  return (thresholds ?? []).map((t) => ({ amountMinor: toMinor(parseDecimal(t.amount), currency), recurring: t.recurring, displayName: t.threshold_display_name }));
}

export function createThresholdBilling(deps: { pool: Pool; clock: Clock; run: BillingRun; refresh: DraftRefresher; credits: PrepaidCredits | undefined }) {
  const { pool, clock, run } = deps;

  /**
   * In the caller's tx, holding the subscription's billing lock: the threshold invoice of the
   * crossing its accrued usage has reached, when that crossing is not invoiced yet; its id, or null.
   */
  async function checkLocked(tx: Queryable, tenantId: string, subscriptionId: string): Promise<string | null> {
    const upcoming = await run.currentPeriodInvoice(tx, tenantId, subscriptionId);
    if (upcoming === null) return null;
    const { subject } = upcoming;
    const sub = subject.source.subscription;
    const thresholds = spendThresholdsOf(sub.usage_thresholds, sub.currency);
    const crossing = crossingAt(thresholds, accruedUsageMinor(upcoming.result));
    if (crossing === null) return null;
    const { snapshot } = toEngineSnapshot(subject.source, subject.plan);
    const asOf = today(clock);
    const period = periodContaining(stopSchedule(snapshot, subscriptionTermOf(snapshot)), asOf);
    if (period === null) return null;
    if (crossing.index <= (await lastThresholdCrossing(tx, tenantId, subscriptionId, period.start))) return null;
    const before = (await thresholdBilledOf(tx, tenantId, [subscriptionId])).get(subscriptionId) ?? new Map();
    const result = computeThresholdInvoice(snapshot, upcoming.result, before, customerTaxOf(subject.customer), entityTaxOf(subject.entity), asOf);
    if (result.invoice.lines.length === 0) return null; // the level was lowered after the usage was invoiced: nothing new to bill
    const input = {
      ...draftInputOf(subject, upcoming.occasion, result),
      invoiceType: 'USAGE_THRESHOLD' as const,
      invoiceDate: asOf,
      periodStart: period.start,
      // the invoice that closes the period is dated on its end
      periodEnd: upcoming.occasion.invoiceDate,
      occasion: null,
    };
    const now = clock.now();
    const usageThreshold: UsageThresholdCrossing = {
      crossing: crossing.index,
      level: formatMinor(crossing.levelMinor, sub.currency),
      amount: formatMinor(crossing.threshold.amountMinor, sub.currency),
      recurring: crossing.threshold.recurring,
      threshold_display_name: crossing.threshold.displayName,
    };
    // finalized below in this transaction (auto-advance), so no grace period: late events of the
    // period land on the period-end invoice, never on a threshold invoice computed again
    const row = { ...newDraftRow(input, subject.customer, subject.entity, now), finalize_after: null, usage_threshold: usageThreshold };
    const inserted = await insertInvoicesBulk(tx, tenantId, [{ ...row, billing_occasion: null, content_hash: null, usage_threshold_index: crossing.index }]);
    if (!inserted.has(row.id)) return null;
    await insertContentBulk(tx, tenantId, lineRows(row.id, input, now.getTime()), breakdownRows(input.computed.taxBreakdown).map((b) => ({ ...b, invoice_id: row.id })));
    await writeOutboxEvents(scoped(tx, tenantId), clock, [{ type: 'invoice.created', objectId: row.id, data: invoiceEventData(row) }]);
    // prepaid credits pay it as they pay the period-end invoice (one consumption path); that invoice then nets what this one billed
    if (sub.auto_advance_invoices) await finalizeInTx(tx, tenantId, clock, row.id, deps.refresh, deps.credits);
    return row.id;
  }

  /**
   * Checks each subscription in its own transaction; returns the threshold invoices created. One
   * that fails (the engine refuses its data, the database is lost) does not stop the others; the
   * first failure is thrown at the end, so a job is retried.
   */
  async function checkSubscriptions(tenantId: string, subscriptionIds: readonly string[]): Promise<string[]> {
    const created: string[] = [];
    const failures: unknown[] = [];
    for (const subscriptionId of [...new Set(subscriptionIds)].sort()) {
      try {
        const id = await withTx(pool, async (tx) => {
          await lockSubscription(tx, tenantId, subscriptionId);
          return checkLocked(tx, tenantId, subscriptionId);
        });
        if (id !== null) created.push(id);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
    return created;
  }

  return { checkSubscriptions };
}

export type ThresholdBilling = ReturnType<typeof createThresholdBilling>;
