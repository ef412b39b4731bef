// The billing run: for every subscription, the invoices due as of the clock's date. Each invoice
// is its own transaction and the (subscription, period, type) unique index decides races, so a
// run can crash anywhere and be rerun, and two processes can run at once: the loser of an
// insert race skips that period, and nothing is ever billed twice.
import type { Clock } from '../../../kernel/clock.js';
import { notFound } from '../../../kernel/errors.js';
import type { Pool, Queryable } from '../../../db/pool.js';
import { isUniqueViolation, withTx } from '../../../db/tx.js';
import { compareDates, listPeriods, periodAt, type BillingSchedule, type InvoiceOccasion, type LocalDate } from '../../../domain/index.js';
import { listSubscriptionSnapshots, loadSubscriptionSnapshot, type SubscriptionSnapshot } from '../../subscriptions/index.js';
import { customerSnapshot } from '../customer.js';
import { ensureDefaultEntity, findEntity, type InvoicingEntityRow } from '../entities.js';
import { insertDraft, replaceDraftContent, type DraftInvoiceInput } from '../drafts.js';
import * as repo from '../repository.js';
import type { InvoiceRow } from '../repository.js';
import { findCustomer } from '../../customers/index.js';
import { computeSubscriptionInvoice, type ComputedSubscriptionInvoice, type PlanTerms } from './compute.js';
import { couponsOf, planTermsOf, taxOf, usageFor } from './context.js';

/** One invoice a subscription owes: its date, occasion and the period key it is stored under. */
export interface DueInvoice {
  invoiceDate: LocalDate;
  occasion: InvoiceOccasion;
  /** Key of the unique index: the full grid period for FIRST/RENEWAL, [stop, stop] for FINAL. */
  periodStart: LocalDate;
  periodEnd: LocalDate;
}

function scheduleOf(snapshot: SubscriptionSnapshot, withEnd: boolean): BillingSchedule {
  const { billing } = snapshot;
  return { startDate: billing.billingStartDate, anchorDay: billing.anchorDay, term: billing.term, endDate: withEnd ? billing.stopDate : null };
}

/**
 * Every invoice date of the subscription on or before `asOf`, oldest first. Keys use the grid
 * without the stop date, so cancelling later never turns an issued period into a "new" one.
 */
export function dueInvoices(snapshot: SubscriptionSnapshot, asOf: LocalDate): DueInvoice[] {
  if (snapshot.subscription.status === 'PENDING_ACTIVATION') return [];
  const { billing } = snapshot;
  const due: DueInvoice[] = [];
  for (const period of listPeriods(scheduleOf(snapshot, true), asOf)) {
    if (compareDates(period.start, billing.invoicingStartDate) < 0) continue;
    const grid = periodAt(scheduleOf(snapshot, false), period.cycleIndex)!;
    const occasion: InvoiceOccasion = period.cycleIndex === 0 ? 'FIRST' : 'RENEWAL';
    due.push({ invoiceDate: period.start, occasion, periodStart: grid.start, periodEnd: grid.end });
  }
  const stop = billing.stopDate;
  if (stop !== null && compareDates(stop, asOf) <= 0 && compareDates(stop, billing.billingStartDate) > 0) {
    due.push({ invoiceDate: stop, occasion: 'FINAL', periodStart: stop, periodEnd: stop });
  }
  return due;
}

/** Subscriptions billed at once by one process; keep it under the pool size. */
const RUN_CONCURRENCY = 8;

export function createBillingRun(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  // Published plan versions never change, so their terms can be kept for the process's life.
  const planTerms = new Map<string, PlanTerms>();
  async function planTermsCached(db: Queryable, tenantId: string, snapshot: SubscriptionSnapshot): Promise<PlanTerms> {
    const key = `${tenantId}:${snapshot.subscription.plan_version_id}`;
    let terms = planTerms.get(key);
    if (!terms) {
      terms = await planTermsOf(db, tenantId, snapshot);
      planTerms.set(key, terms);
    }
    return terms;
  }

  async function entityFor(db: Queryable, tenantId: string, customerId: string): Promise<InvoicingEntityRow> {
    const customer = await findCustomer(db, tenantId, customerId);
    const own = customer?.invoicing_entity_id ? await findEntity(db, tenantId, customer.invoicing_entity_id) : undefined;
    return own ?? ensureDefaultEntity(db, tenantId, clock);
  }

  async function compute(db: Queryable, tenantId: string, snapshot: SubscriptionSnapshot, due: DueInvoice, excludeInvoiceId: string | null) {
    const entity = await entityFor(db, tenantId, snapshot.subscription.customer_id);
    // one after the other: `db` may be a transaction's single connection
    const plan = await planTermsCached(db, tenantId, snapshot);
    const tax = await taxOf(db, tenantId, snapshot.subscription.customer_id, entity);
    const coupons = await couponsOf(db, tenantId, snapshot, excludeInvoiceId);
    const result = await computeSubscriptionInvoice({
      snapshot, invoiceDate: due.invoiceDate, occasion: due.occasion, plan, tax, coupons: coupons.coupons,
      usageOf: usageFor(pool, tenantId, snapshot.subscription.customer_id),
    });
    return result ? { ...result, entity, couponNames: coupons.names } : null;
  }

  function draftInput(snapshot: SubscriptionSnapshot, due: DueInvoice, result: ComputedSubscriptionInvoice & { entity: InvoicingEntityRow; couponNames: Record<string, string> }): DraftInvoiceInput {
    const sub = snapshot.subscription;
    return {
      customerId: sub.customer_id,
      subscriptionId: sub.id,
      invoiceType: 'RECURRING',
      invoiceDate: due.invoiceDate,
      periodStart: due.periodStart,
      periodEnd: due.periodEnd,
      netTerms: snapshot.billing.netTerms,
      planName: sub.plan_name,
      memo: sub.invoice_memo,
      purchaseOrder: sub.purchase_order,
      invoicingEntityId: result.entity.id,
      computed: result.computed,
      lineDetails: result.lineDetails,
      couponNames: result.couponNames,
      autoAdvance: sub.auto_advance_invoices,
    };
  }

  /** Creates the missing invoices of one subscription; returns how many it created. */
  async function billSubscription(tenantId: string, snapshot: SubscriptionSnapshot, asOf: LocalDate): Promise<number> {
    let created = 0;
    for (const due of dueInvoices(snapshot, asOf)) {
      if (await repo.findPeriodInvoice(pool, tenantId, snapshot.subscription.id, due.periodStart, due.periodEnd, 'RECURRING')) continue;
      const result = await compute(pool, tenantId, snapshot, due, null);
      if (result === null) continue; // nothing billable on that date: no invoice at all
      try {
        await withTx(pool, (tx) => insertDraft(tx, tenantId, clock, draftInput(snapshot, due, result)));
        created += 1;
      } catch (error) {
        if (!isUniqueViolation(error, 'invoices_subscription_period_key')) throw error;
        // another run created this period first: that is the point of the constraint
      }
    }
    return created;
  }

  /** Every tenant's subscriptions, as of the clock's (UTC) date. */
  async function runAll(): Promise<{ subscriptions: number; invoicesCreated: number }> {
    const asOf = clock.now().toISOString().slice(0, 10);
    // Cross-tenant on purpose: the scheduler serves every tenant, then works tenant by tenant.
    const tenants = await pool.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM subscriptions ORDER BY tenant_id`);
    let subscriptions = 0;
    let invoicesCreated = 0;
    for (const { tenant_id: tenantId } of tenants.rows) {
      const snapshots = await listSubscriptionSnapshots(pool, tenantId);
      subscriptions += snapshots.length;
      // A few subscriptions at a time: each is independent, and the pool has connections to spare.
      let next = 0;
      const worker = async () => {
        while (next < snapshots.length) {
          const snapshot = snapshots[next++]!;
          const created = await billSubscription(tenantId, snapshot, asOf); // read the sum after the await
          invoicesCreated += created;
        }
      };
      await Promise.all(Array.from({ length: RUN_CONCURRENCY }, worker));
    }
    return { subscriptions, invoicesCreated };
  }

  /** Draft refresh (late usage): recompute the draft's own date and occasion and replace its lines. */
  async function refreshDraft(tx: Queryable, tenantId: string, draft: InvoiceRow): Promise<InvoiceRow> {
    if (!draft.subscription_id || !draft.period_start || !draft.period_end || draft.invoice_type !== 'RECURRING') return draft;
    const snapshot = await loadSubscriptionSnapshot(tx, tenantId, draft.subscription_id);
    if (!snapshot) return draft;
    const due: DueInvoice = {
      invoiceDate: draft.invoice_date,
      occasion: draft.period_start === draft.period_end ? 'FINAL' : draft.invoice_date === snapshot.billing.billingStartDate ? 'FIRST' : 'RENEWAL',
      periodStart: draft.period_start,
      periodEnd: draft.period_end,
    };
    const result = await compute(tx, tenantId, snapshot, due, draft.id);
    if (result === null) return draft;
    const customer = await findCustomer(tx, tenantId, draft.customer_id);
    const next = await replaceDraftContent(tx, tenantId, clock, draft, { computed: result.computed, lineDetails: result.lineDetails, couponNames: result.couponNames });
    return customer ? { ...next, customer_details: customerSnapshot(customer, clock.now()) } : next;
  }

  /**
   * The subscription's next invoice, computed as the run would compute it, without writing:
   * the oldest due invoice not issued yet, else the next period start (or the final invoice).
   */
  async function upcoming(tenantId: string, subscriptionId: string) {
    const snapshot = await loadSubscriptionSnapshot(pool, tenantId, subscriptionId);
    if (!snapshot) throw notFound('subscription');
    const today = clock.now().toISOString().slice(0, 10);
    const horizon = new Date(Date.parse(`${today}T00:00:00.000Z`) + 400 * 86_400_000).toISOString().slice(0, 10);
    for (const due of dueInvoices(snapshot, horizon)) {
      if (await repo.findPeriodInvoice(pool, tenantId, subscriptionId, due.periodStart, due.periodEnd, 'RECURRING')) continue;
      const result = await compute(pool, tenantId, snapshot, due, null);
      if (result === null) continue;
      return { snapshot, due, ...result };
    }
    return null;
  }

  return { runAll, billSubscription, refreshDraft, upcoming, dueInvoices };
}

export type BillingRun = ReturnType<typeof createBillingRun>;
