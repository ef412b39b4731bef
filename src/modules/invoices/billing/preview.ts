import type { Clock } from '../../../kernel/clock.js';
import { sellerDetails } from '../entities.js';
import { amountsOf, breakdownRows, couponLines, lineRows } from '../drafts.js';
import type { InvoiceDetail } from '../repository.js';
import type { BillingRun } from './run.js';

/**
 * The upcoming invoice as an unsaved InvoiceDetail (id `upcoming`, status DRAFT), computed by the
 * engine exactly as the run computes it and mapped as the run stores drafts, so the preview and
 * the real invoice cannot differ.
 */
export async function upcomingInvoice(run: BillingRun, clock: Clock, tenantId: string, subscriptionId: string): Promise<InvoiceDetail | null> {
  const next = await run.upcoming(tenantId, subscriptionId);
  if (next === null) return null;
  const { subject, occasion, input } = next;
  const sub = subject.source.subscription;
  const computed = input.computed;
  const now = clock.now();
  const lines = lineRows('upcoming', input, now.getTime());
  return {
    invoice: {
      id: 'upcoming',
      invoicing_entity_id: subject.entity.id,
      customer_id: sub.customer_id,
      subscription_id: sub.id,
      invoice_type: occasion.invoiceType,
      status: 'DRAFT',
      payment_status: 'UNPAID',
      invoice_number: null,
      currency: computed.currency,
      invoice_date: occasion.invoiceDate,
      period_start: occasion.periodStart,
      period_end: occasion.periodEnd,
      due_date: null,
      net_terms: sub.net_terms,
      ...amountsOf(computed),
      applied_credits_minor: 0n,
      amount_paid_minor: 0n,
      credit_carried_forward_minor: 0n,
      customer_details: { id: sub.customer_id, name: sub.customer_name, alias: sub.customer_alias, snapshot_at: now.toISOString() },
      seller_details: sellerDetails(subject.entity),
      coupons: couponLines(computed, input.couponNames),
      memo: sub.invoice_memo,
      purchase_order: sub.purchase_order,
      reference: null,
      plan_name: sub.plan_name,
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
    transactions: [],
  };
}
