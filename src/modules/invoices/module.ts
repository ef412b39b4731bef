import { frozenClock, type Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import type { RouteModule } from '../../http/app.js';
import type { Module } from '../../module.js';
import { createInvoicingEntitiesService, type InvoicingEntitiesService } from './entities-service.js';
import { entityRoutes } from './entity-routes.js';
import { createInvoiceLifecycle, RENDER_PDF_TASK, type InvoiceLifecycle, type OpenCreditNotes, type PrepaidCredits } from './lifecycle.js';
import { invoiceRoutes, type PaymentUrl } from './routes.js';
import { invoiceSummaryRoutes } from './summary.js';
import { createInvoicesService, type InvoicesService } from './service.js';
import type { PayUrlOf } from './documents.js';
import { createBillingRun, type BillingRun } from './billing/run.js';
import { upcomingInvoice } from './billing/preview.js';
import { subscriptionPreviewRoutes, type SubscriptionWhatIf } from './previews.js';
import { createBankTransfers, type BankTransfers } from './bank-transfers.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { Queryable } from '../../db/pool.js';
import type { TestClockTime } from '../customers/index.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { allSubscriptionsWithThresholds, loadSubscriptionRecord, loadSubscriptionRecords, subscriptionsWithThresholdsOf, tenantsWithSubscriptions, type SubscriptionRecord } from '../subscriptions/index.js';
import type { InvoiceDetail } from './repository.js';
import { createThresholdBilling } from './billing/thresholds.js';

export const FINALIZE_DUE_TASK = 'invoices.finalize_due';
/** Creates what is due for every subscription, then finalizes drafts past their grace period. */
export const BILLING_RUN_TASK = 'billing.run';
/** Spend thresholds of some subscriptions, checked after the ingestion of their customers' usage (docs/credits-and-alerts.md). */
export const CHECK_THRESHOLDS_TASK = 'invoices.check_thresholds';
/** Wall-clock pause between two scheduled runs; each run bills as of the business clock. */
export const BILLING_RUN_INTERVAL_MS = 60_000;

/** What the invoices module hands on: services for other modules, and for tests through `Composition.invoicing`. */
export interface Invoicing {
  entities: InvoicingEntitiesService;
  invoices: InvoicesService;
  billing: BillingRun;
  lifecycle: InvoiceLifecycle;
  /** The upcoming invoice of a subscription, as `GET /api/v1/subscriptions/{id}/upcoming-invoice` answers it (null: nothing to invoice). */
  upcoming(tenantId: string, subscriptionId: string): Promise<InvoiceDetail | null>;
  /** Bank transfers matched by payment reference (batch jobs' bank payment CSV). */
  bankTransfers: BankTransfers;
  /** The billing run and the grace-period finalizer at `clock`, serving this test clock's customers only (its advance runs them step by step). */
  atTestClock(clock: Clock, testClockId: string): {
    billing: BillingRun;
    lifecycle: InvoiceLifecycle;
    /** The spend thresholds of the clock's live subscriptions that have some, checked at `clock`; the threshold invoices created. */
    thresholds: { checkTenant(tenantId: string): Promise<string[]> };
  };
  /** The first invoice of a subscription not written yet (the hosted checkout page), by the upcoming invoice's code. */
  previewFirstInvoice(tenantId: string, record: SubscriptionRecord): Promise<InvoiceDetail | null>;
  /**
   * Spend thresholds: ingestion's port (after a batch's commit, the customers it stored usage for;
   * queues a check of those with threshold-configured subscriptions), and the check itself
   * (returns the threshold invoices created).
   */
  thresholds: {
    usageStored(tenantId: string, customerIds: readonly string[]): Promise<void>;
    check(tenantId: string, subscriptionIds: readonly string[]): Promise<string[]>;
  };
}

export interface InvoicingDeps {
  pool: Pool;
  clock: Clock;
  /** Subscriptions per transaction of the billing run (default RUN_BATCH_SIZE). */
  runBatchSize?: number;
  /** Runs before each billing run, so subscription statuses are current (passed in: no import of later work). */
  beforeRun?: () => Promise<unknown>;
  /** Credit notes still open on an invoice (the credit-notes module comes after this one). */
  openCreditNotes: OpenCreditNotes;
  /** A subscription of a customer on a test clock previews its upcoming invoice at the clock's time (test-clocks). */
  testClockTime?: TestClockTime;
  /** The hosted pay page's URL shown on invoice answers (payments, a later module). */
  paymentUrl?: PaymentUrl;
  /** The records a subscription request would write, not stored, for its invoice previews (subscriptions' service). */
  subscriptionWhatIf?: SubscriptionWhatIf;
  /** Prepaid credit grants pay invoices at finalization, before the cash balance (credits, a later module). */
  credits?: PrepaidCredits;
  /** The same URL in the caller's transaction, printed on the accounting PDF ("Pay online") while the invoice is payable. */
  payUrlOf?: PayUrlOf;
  /** Checks invoices' custom property values, filters lists by them and says which the PDF prints (custom-properties). */
  properties: CustomPropertiesPort;
}

/**
 * The invoices module assembled (src/module.ts): services, routes and job tasks. Finalizing
 * refreshes drafts (late usage) through the billing run's batch refresh.
 */
export function createInvoicesModule(deps: InvoicingDeps): Module<Invoicing> {
  // the clock-driven pair, for one population: customers on no test clock, or one clock's (its advance)
  const clockDriven = (clock: Clock, testClockId?: string) => {
    const billing = createBillingRun({ ...deps, clock, testClockId });
    const thresholds = createThresholdBilling({ pool: deps.pool, clock, run: billing, refresh: billing.refreshForFinalization, credits: deps.credits });
    // a test clock's advance checks its subscriptions' spend thresholds at each stop, at the stop's time
    const checkThresholdsOfTenant = async (tenantId: string): Promise<string[]> => {
      // one probe of the partial index of subscriptions with thresholds: most tenants have none, and each stop asks
      const withThresholds = await allSubscriptionsWithThresholds(deps.pool, tenantId);
      if (withThresholds.length === 0) return [];
      const records = await loadSubscriptionRecords(deps.pool, tenantId, { ids: withThresholds });
      const ids = records.filter((r) => (r.subscription.test_clock_id ?? null) === (testClockId ?? null)).map((r) => r.subscription.id);
      return ids.length > 0 ? thresholds.checkSubscriptions(tenantId, ids) : [];
    };
    return {
      billing, thresholds: { ...thresholds, checkTenant: checkThresholdsOfTenant },
      lifecycle: createInvoiceLifecycle({ ...deps, clock, testClockId, refresh: billing.refreshForFinalization }),
    };
  };
  const { billing, lifecycle, thresholds } = clockDriven(deps.clock);
  // a subscription of a customer on a test clock is checked at the clock's time, by that clock's population
  const checkThresholds = async (tenantId: string, subscriptionIds: readonly string[], options: { testClocks: boolean } = { testClocks: true }): Promise<string[]> => {
    const byClock = new Map<string | null, string[]>();
    for (const record of await loadSubscriptionRecords(deps.pool, tenantId, { ids: [...subscriptionIds] })) {
      const clockId = record.subscription.test_clock_id ?? null;
      if (clockId !== null && !options.testClocks) continue;
      byClock.set(clockId, [...(byClock.get(clockId) ?? []), record.subscription.id]);
    }
    const created: string[] = [];
    for (const [clockId, ids] of byClock) {
      if (clockId === null) {
        created.push(...(await thresholds.checkSubscriptions(tenantId, ids)));
        continue;
      }
      const at = deps.testClockTime ? await deps.testClockTime(deps.pool, tenantId, clockId) : undefined;
      if (at) created.push(...(await clockDriven(frozenClock(at), clockId).thresholds.checkSubscriptions(tenantId, ids)));
    }
    return created;
  };
  // the re-check of every billing run: events the ingestion check did not see (late, or a crash between commit and check)
  const checkAllThresholds = async () => {
    for (const tenantId of await tenantsWithSubscriptions(deps.pool)) {
      const ids = await allSubscriptionsWithThresholds(deps.pool, tenantId);
      // a subscription the engine refuses must not hold back the run's finalization; the next run checks again
      // a test clock's subscriptions are re-checked by its advance, at each stop (the periodic work never moves them)
      if (ids.length > 0) await checkThresholds(tenantId, ids, { testClocks: false }).catch(() => undefined);
    }
  };
  const usageStored = async (tenantId: string, customerIds: readonly string[]) => {
    const ids = await subscriptionsWithThresholdsOf(deps.pool, tenantId, customerIds);
    if (ids.length > 0) await enqueueJob(deps.pool, CHECK_THRESHOLDS_TASK, { tenant_id: tenantId, subscription_ids: ids });
  };
  // changing an entity refreshes its drafts through the same refresher as finalization
  const entities = createInvoicingEntitiesService({ ...deps, refresh: billing.refreshDrafts });
  const invoices = createInvoicesService(deps);
  const tasks: TaskRegistry = {
    [RENDER_PDF_TASK]: (payload) => invoices.renderPdfJob(payload),
    [CHECK_THRESHOLDS_TASK]: async (payload) => {
      await checkThresholds(String(payload.tenant_id), (payload.subscription_ids as string[] | undefined) ?? [], { testClocks: true });
    },
    [FINALIZE_DUE_TASK]: async () => {
      await lifecycle.finalizeDueDrafts();
    },
    [BILLING_RUN_TASK]: async (payload) => {
      try {
        await deps.beforeRun?.();
        await billing.runAll();
        await checkAllThresholds();
        await lifecycle.finalizeDueDrafts();
      } finally {
        // periodic: the next run is queued by this one (payload.once stops it, for one-shot runs)
        if (!payload.once) await scheduleBillingRuns(deps.pool, new Date(Date.now() + BILLING_RUN_INTERVAL_MS));
      }
    },
  };
  // the upcoming invoice of a test clock's subscription is the one due after the clock's time
  const upcomingOf = async (tenantId: string, subscription: string | SubscriptionRecord) => {
    const record = typeof subscription === 'string' ? await loadSubscriptionRecord(deps.pool, tenantId, subscription) : subscription;
    const testClockId = record?.subscription.test_clock_id;
    const at = testClockId && deps.testClockTime ? await deps.testClockTime(deps.pool, tenantId, testClockId) : undefined;
    if (!testClockId || !at) return upcomingInvoice(billing, deps.clock, tenantId, subscription);
    const clock = frozenClock(at);
    return upcomingInvoice(clockDriven(clock, testClockId).billing, clock, tenantId, subscription);
  };
  const invoiceRoutesOf = invoiceRoutes(invoices, lifecycle, upcomingOf, deps.paymentUrl);
  const routes: RouteModule = async (app) => {
    await invoiceRoutesOf(app);
    await invoiceSummaryRoutes(deps.pool, deps.clock)(app);
    if (deps.subscriptionWhatIf) await subscriptionPreviewRoutes(deps.subscriptionWhatIf, upcomingOf)(app);
    await entityRoutes(entities)(app);
  };
  const previewFirstInvoice = (tenantId: string, record: SubscriptionRecord) => upcomingInvoice(billing, deps.clock, tenantId, record);
  return { routes, tasks, api: { entities, invoices, billing, lifecycle, upcoming: upcomingOf, atTestClock: clockDriven, previewFirstInvoice, thresholds: { usageStored, check: checkThresholds }, bankTransfers: createBankTransfers(deps) } };
}


/** Queues the periodic billing run (idempotent: one pending run per database, by job key). */
export async function scheduleBillingRuns(db: Queryable, runAt?: Date): Promise<void> {
  await enqueueJob(db, BILLING_RUN_TASK, {}, { jobKey: BILLING_RUN_TASK, ...(runAt ? { runAt } : {}) });
}
