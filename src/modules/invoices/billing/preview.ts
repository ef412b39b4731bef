import type { Clock } from '../../../kernel/clock.js';
import { sellerDetails } from '../entities.js';
import { amountsOf, breakdownRows, couponLines, lineRows } from '../drafts.js';
import type { InvoiceDetail } from '../repository.js';
import type { BillingRun } from './run.js';

/**
 * The upcoming invoice as an unsaved InvoiceDetail (id `upcoming`, status DRAFT), built by the
 * same mapping the run uses to store drafts, so the preview and the real invoice cannot differ.
 */
export async function upcomingInvoice(run: BillingRun, clock: Clock, tenantId: string, subscriptionId: string): Promise<InvoiceDetail | null> {
  const next = await run.upcoming(tenantId, subscriptionId);
  if (next === null) return null;
  const { snapshot, due, computed, lineDetails, entity } = next;
  const now = clock.now();
  const lines = lineRows('upcoming', { computed, lineDetails, invoiceDate: due.invoiceDate }, now.getTime());
  return {
    invoice: {
      id: 'upcoming',
      invoicing_entity_id: entity.id,
      customer_id: snapshot.subscription.customer_id,
      subscription_id: snapshot.subscription.id,
      invoice_type: 'RECURRING',
      status: 'DRAFT',
      payment_status: 'UNPAID',
      invoice_number: null,
      currency: computed.currency,
      invoice_date: due.invoiceDate,
      period_start: due.periodStart,
      period_end: due.periodEnd,
      due_date: null,
      net_terms: snapshot.billing.netTerms,
      ...amountsOf(computed),
      applied_credits_minor: 0n,
      amount_paid_minor: 0n,
      credit_carried_forward_minor: 0n,
      customer_details: { id: snapshot.subscription.customer_id, name: snapshot.subscription.customer_name, alias: snapshot.subscription.customer_alias, snapshot_at: now.toISOString() },
      seller_details: sellerDetails(entity),
      coupons: couponLines(computed, next.couponNames),
      memo: snapshot.subscription.invoice_memo,
      purchase_order: snapshot.subscription.purchase_order,
      reference: null,
      plan_name: snapshot.subscription.plan_name,
      finalize_after: null,
      pdf_document_id: null,
      created_at: now,
      updated_at: now,
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_as_uncollectible_at: null,
    },
    lines: lines.map(({ line, subLines }) => ({ ...line, sub_lines: subLines })),
    taxBreakdown: breakdownRows(computed.taxBreakdown),
  };
}
