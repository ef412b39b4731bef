// Glue between the stored subscription and the pure engine (src/domain/billing): map the
// record onto the engine's snapshot, ask the engine which occasions are due and which usage they need, fetch that usage
// in bulk, compute each invoice. The scheduler, the draft refresh and the preview all call this.
import type { Pool } from '../../../db/pool.js';
import {
  addDays, compareDates, computeSubscriptionInvoice, invoicesDue, usageQueries,
  type BillingOccasion, type ComponentUsage, type ComputedSubscriptionInvoice as EngineResult, type Invoice, type LocalDate,
} from '../../../domain/index.js';
import type { CustomerRow } from '../../customers/index.js';
import type { SubscriptionRecord } from '../../subscriptions/index.js';
import type { InvoicingEntityRow } from '../entities.js';
import type { DraftInvoiceInput } from '../drafts.js';
import { customerTaxOf, entityTaxOf, fetchUsage, requestKey, type UsageRequest } from './context.js';
import { toEngineSnapshot, type CouponUses, type PlanTerms } from './mapping.js';

/** Everything needed to bill one subscription, loaded by the caller (in bulk for a run). */
export interface BillingSubject {
  source: SubscriptionRecord;
  plan: PlanTerms;
  customer: CustomerRow;
  entity: InvoicingEntityRow;
}

/** An invoice of this subscription already stored: its date decides what is left to bill. */
export interface StoredInvoiceRef {
  id: string;
  invoice_date: string;
  status: string;
  coupons: { coupon_id: string }[];
}

/** One subscription's invoices to compute, oldest first. */
export interface PlannedWork {
  subject: BillingSubject;
  occasions: BillingOccasion[];
  /** Invoices already stored (coupon uses are counted from those dated before each occasion). */
  stored: readonly StoredInvoiceRef[];
  /** The draft being recomputed: not counted as a coupon use of itself. */
  excludeInvoiceId?: string | null;
}

export interface ComputedDraft {
  subject: BillingSubject;
  occasion: BillingOccasion;
  result: EngineResult;
  input: DraftInvoiceInput;
}

/** Coupon uses by the stored (not void) invoices dated before `date`. */
function couponUsesBefore(stored: readonly StoredInvoiceRef[], date: LocalDate, excludeId: string | null | undefined): Record<string, number> {
  const uses: Record<string, number> = {};
  for (const invoice of stored) {
    if (invoice.status === 'VOID' || invoice.id === excludeId || compareDates(invoice.invoice_date, date) >= 0) continue;
    for (const coupon of invoice.coupons) uses[coupon.coupon_id] = (uses[coupon.coupon_id] ?? 0) + 1;
  }
  return uses;
}

/** Occasions due as of `asOf` that no stored invoice (whatever its status) has taken yet. */
export function occasionsDue(subject: BillingSubject, stored: readonly StoredInvoiceRef[], asOf: LocalDate): BillingOccasion[] {
  if (subject.source.subscription.status === 'PENDING_ACTIVATION') return [];
  const { snapshot, dueOptions } = toEngineSnapshot(subject.source, subject.plan);
  return invoicesDue(snapshot, stored.map((invoice) => ({ invoiceDate: invoice.invoice_date })), asOf, dueOptions);
}

/** Lines show inclusive end dates (a January line runs 01-01..01-31); the engine's are exclusive. */
function withInclusiveLineEnds(invoice: Invoice): Invoice {
  return {
    ...invoice,
    lines: invoice.lines.map((line) =>
      line.periodStart !== null && line.periodEnd !== null && compareDates(line.periodEnd, line.periodStart) > 0 ? { ...line, periodEnd: addDays(line.periodEnd, -1) } : line,
    ),
  };
}

export function draftInputOf(subject: BillingSubject, occasion: BillingOccasion, result: EngineResult): DraftInvoiceInput {
  const sub = subject.source.subscription;
  return {
    customerId: sub.customer_id,
    subscriptionId: sub.id,
    invoiceType: occasion.invoiceType,
    invoiceDate: occasion.invoiceDate,
    periodStart: occasion.periodStart,
    periodEnd: occasion.periodEnd,
    netTerms: sub.net_terms,
    planName: sub.plan_name,
    memo: sub.invoice_memo,
    purchaseOrder: sub.purchase_order,
    invoicingEntityId: subject.entity.id,
    computed: withInclusiveLineEnds(result.invoice),
    lineDetails: result.lineDetails,
    couponNames: result.couponNames,
    autoAdvance: sub.auto_advance_invoices,
    occasion,
  };
}

/**
 * Computes every planned invoice: one usage fetch per (metric, window) for the whole batch, then
 * each subscription's occasions in date order, a coupon used by one counting against the next
 * (drafts included, so catching up three periods cannot use a one-invoice coupon three times).
 */
export async function computePlanned(pool: Pool, tenantId: string, work: readonly PlannedWork[]): Promise<ComputedDraft[]> {
  const requests: UsageRequest[] = [];
  const mapped = work.map((item) => toEngineSnapshot(item.subject.source, item.subject.plan));
  work.forEach((item, index) => {
    for (const occasion of item.occasions) {
      for (const query of usageQueries(mapped[index]!.snapshot, occasion)) requests.push({ customer: item.subject.customer, query });
    }
  });
  const usage = requests.length > 0 ? await fetchUsage(pool, tenantId, requests) : new Map<string, ComponentUsage>();
  const out: ComputedDraft[] = [];
  for (const item of work) {
    const { subject } = item;
    const entityTax = entityTaxOf(subject.entity);
    const customerTax = customerTaxOf(subject.customer);
    const batchUses: Record<string, number> = {};
    for (const occasion of [...item.occasions].sort((a, b) => compareDates(a.invoiceDate, b.invoiceDate))) {
      const uses: CouponUses = { ...couponUsesBefore(item.stored, occasion.invoiceDate, item.excludeInvoiceId) };
      for (const [couponId, n] of Object.entries(batchUses)) (uses as Record<string, number>)[couponId] = (uses[couponId] ?? 0) + n;
      const { snapshot } = toEngineSnapshot(subject.source, subject.plan, uses);
      const usageByComponent: Record<string, ComponentUsage> = {};
      for (const query of usageQueries(snapshot, occasion)) {
        usageByComponent[query.componentId] = usage.get(requestKey({ customer: subject.customer, query })) ?? '0';
      }
      const result = computeSubscriptionInvoice(snapshot, occasion, usageByComponent, customerTax, entityTax);
      for (const couponId of result.couponsUsed) batchUses[couponId] = (batchUses[couponId] ?? 0) + 1;
      out.push({ subject, occasion, result, input: draftInputOf(subject, occasion, result) });
    }
  }
  return out;
}
