// Glue between the stored subscription and the pure engine (src/domain/billing): map the
// record onto the engine's snapshot, ask the engine which occasions are due and which usage they need, fetch that usage
// in bulk, compute each invoice. The scheduler, the draft refresh and the preview all call this.
import type { Pool } from '../../../db/pool.js';
import {
  addDays, compareDates, computeSubscriptionInvoice, invoicesDue, lateUsageLines, usageQueries,
  type BilledUsage, type BillingOccasion, type ComputedSubscriptionInvoice as EngineResult, type Invoice, type LateUsage, type LocalDate, type ThresholdBilledWindows, type UsageQuery,
} from '../../../domain/index.js';
import type { CustomerRow } from '../../customers/index.js';
import type { SubscriptionRecord } from '../../subscriptions/index.js';
import type { InvoicingEntityRow } from '../entities.js';
import type { DraftInvoiceInput } from '../drafts.js';
import { customerTaxOf, entityTaxOf, fetchUsage, requestKey, type FetchedUsage, type UsageRequest } from './context.js';
import { billedPeriodOf } from './late-usage.js';
import type { BilledPeriod } from '../../usage/index.js';
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
  /** The usage windows this invoice bills (its own, and earlier ones late), recorded when it is finalized. */
  billedPeriods: BilledPeriod[];
}

/** Billed windows with late usage, per subscription id (late-usage.ts). */
export type LateWindows = ReadonlyMap<string, readonly BilledUsage[]>;

/** What the period's threshold invoices billed per usage window, per subscription id (thresholdBilledOf). */
export type ThresholdBilledBySubscription = ReadonlyMap<string, ThresholdBilledWindows>;

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
    // charge_automatically false opts the subscription's invoices out; true follows the customer
    autoCharge: sub.charge_automatically ? null : false,
    occasion,
  };
}

/** The usage query of a billed window: the one its occasion's plan asked for. */
function lateQueryOf(work: PlannedWork, billed: BilledUsage): UsageQuery {
  const { snapshot } = toEngineSnapshot(work.subject.source, work.subject.plan);
  const query = usageQueries(snapshot, billed.occasion).find((q) => q.componentId === billed.componentId && q.periodStart === billed.periodStart && q.periodEnd === billed.periodEnd);
  return query ?? { componentId: billed.componentId, metricId: billed.metricId, periodStart: billed.periodStart, periodEnd: billed.periodEnd, groupBy: [] };
}

/**
 * Which occasion of the batch carries each subscription's late usage: the earliest one computed,
 * unless an earlier draft of the subscription is waiting (it carries them when it is finalized).
 * Key: `subscriptionId|invoiceDate`.
 */
function lateCarriers(work: readonly PlannedWork[], late: LateWindows): Set<string> {
  const earliest = new Map<string, LocalDate>();
  for (const item of work) {
    const id = item.subject.source.subscription.id;
    if (!late.get(id)?.length) continue;
    for (const occasion of item.occasions) {
      const current = earliest.get(id);
      if (current === undefined || compareDates(occasion.invoiceDate, current) < 0) earliest.set(id, occasion.invoiceDate);
    }
  }
  const carriers = new Set<string>();
  for (const item of work) {
    const id = item.subject.source.subscription.id;
    const date = earliest.get(id);
    if (date === undefined || !item.occasions.some((o) => o.invoiceDate === date)) continue;
    const waiting = item.stored.some((invoice) => invoice.status === 'DRAFT' && invoice.id !== item.excludeInvoiceId && compareDates(invoice.invoice_date, date) < 0);
    if (!waiting) carriers.add(`${id}|${date}`);
  }
  return carriers;
}

/**
 * Computes every planned invoice: one usage fetch per (metric, window) for the whole batch, then
 * each subscription's occasions in date order, a coupon used by one counting against the next
 * (drafts included, so catching up three periods cannot use a one-invoice coupon three times).
 * Late usage (`late`) goes on one occasion per subscription (`lateCarriers`), priced as the
 * difference to what was billed (src/domain/billing/late.ts). Usage windows the period's threshold
 * invoices billed (`thresholdBilled`) get their deduction lines (src/domain/billing/threshold-lines.ts).
 */
export async function computePlanned(
  pool: Pool, tenantId: string, work: readonly PlannedWork[], late: LateWindows = new Map(), thresholdBilled: ThresholdBilledBySubscription = new Map(),
): Promise<ComputedDraft[]> {
  const requests: UsageRequest[] = [];
  const mapped = work.map((item) => toEngineSnapshot(item.subject.source, item.subject.plan));
  const carriers = lateCarriers(work, late);
  // an occasion's usage queries read the snapshot's components and dates, never its coupons (the
  // only part coupon uses change below), so the queries asked here are the ones priced
  const queriesOf = work.map(() => new Map<BillingOccasion, UsageQuery[]>());
  work.forEach((item, index) => {
    const customer = item.subject.customer;
    for (const occasion of item.occasions) {
      const queries = usageQueries(mapped[index]!.snapshot, occasion);
      queriesOf[index]!.set(occasion, queries);
      for (const query of queries) requests.push({ customer, query });
      if (!carriers.has(`${item.subject.source.subscription.id}|${occasion.invoiceDate}`)) continue;
      for (const billed of late.get(item.subject.source.subscription.id) ?? []) requests.push({ customer, query: lateQueryOf(item, billed) });
    }
  });
  const usage = requests.length > 0 ? await fetchUsage(pool, tenantId, requests) : new Map<string, FetchedUsage>();
  const fetched = (customer: CustomerRow, query: UsageQuery): FetchedUsage => {
    const answer = usage.get(requestKey({ customer, query }));
    if (!answer) throw new Error(`usage of component ${query.componentId} for [${query.periodStart}, ${query.periodEnd}) was not fetched`);
    return answer;
  };
  const out: ComputedDraft[] = [];
  for (const [index, item] of work.entries()) {
    const { subject } = item;
    const subscriptionId = subject.source.subscription.id;
    const entityTax = entityTaxOf(subject.entity);
    const customerTax = customerTaxOf(subject.customer);
    const batchUses: Record<string, number> = {};
    for (const occasion of [...item.occasions].sort((a, b) => compareDates(a.invoiceDate, b.invoiceDate))) {
      const uses: CouponUses = { ...couponUsesBefore(item.stored, occasion.invoiceDate, item.excludeInvoiceId) };
      for (const [couponId, n] of Object.entries(batchUses)) (uses as Record<string, number>)[couponId] = (uses[couponId] ?? 0) + n;
      const { snapshot } = toEngineSnapshot(subject.source, subject.plan, uses);
      const usageByComponent: Record<string, FetchedUsage['usage']> = {};
      const own = new Map<string, FetchedUsage>();
      for (const query of queriesOf[index]!.get(occasion)!) {
        const answer = fetched(subject.customer, query);
        usageByComponent[query.componentId] = answer.usage;
        own.set(`${query.componentId}|${query.periodStart}|${query.periodEnd}`, answer);
      }
      const lateItems: (LateUsage & { answer: FetchedUsage })[] = [];
      if (carriers.has(`${subscriptionId}|${occasion.invoiceDate}`)) {
        for (const billed of late.get(subscriptionId) ?? []) {
          const answer = fetched(subject.customer, lateQueryOf(item, billed));
          lateItems.push({ billed, usage: answer.usage, answer });
        }
      }
      const lateResult = lateUsageLines(snapshot, lateItems);
      const result = computeSubscriptionInvoice(snapshot, occasion, usageByComponent, customerTax, entityTax, { extraLines: lateResult.lines, thresholdBilled: thresholdBilled.get(subscriptionId) });
      for (const couponId of result.couponsUsed) batchUses[couponId] = (batchUses[couponId] ?? 0) + 1;
      const billedPeriods = [
        ...result.billedUsage.map((billed) => {
          const answer = own.get(`${billed.componentId}|${billed.periodStart}|${billed.periodEnd}`)!;
          return billedPeriodOf(subscriptionId, subject.customer.id, answer.metricCode, billed, answer.snapshot);
        }),
        ...lateResult.billed.map((billed, i) => billedPeriodOf(subscriptionId, subject.customer.id, lateItems[i]!.answer.metricCode, billed, lateItems[i]!.answer.snapshot)),
      ];
      out.push({ subject, occasion, result, input: draftInputOf(subject, occasion, result), billedPeriods });
    }
  }
  return out;
}
