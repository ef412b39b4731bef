import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import type { RouteModule } from '../../http/app.js';
import type { Module } from '../../module.js';
import { createInvoicingEntitiesService, type InvoicingEntitiesService } from './entities-service.js';
import { entityRoutes } from './entity-routes.js';
import { createInvoiceLifecycle, RENDER_PDF_TASK, type InvoiceLifecycle, type OpenCreditNotes } from './lifecycle.js';
import { invoiceRoutes, type PaymentUrl } from './routes.js';
import { createInvoicesService, type InvoicesService } from './service.js';
import { createBillingRun, type BillingRun } from './billing/run.js';
import { upcomingInvoice } from './billing/preview.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { Queryable } from '../../db/pool.js';

export const FINALIZE_DUE_TASK = 'invoices.finalize_due';
/** Creates what is due for every subscription, then finalizes drafts past their grace period. */
export const BILLING_RUN_TASK = 'billing.run';
/** Wall-clock pause between two scheduled runs; each run bills as of the business clock. */
export const BILLING_RUN_INTERVAL_MS = 60_000;

/** What the invoices module hands on: services for other modules, and for tests through `Composition.invoicing`. */
export interface Invoicing {
  entities: InvoicingEntitiesService;
  invoices: InvoicesService;
  billing: BillingRun;
  lifecycle: InvoiceLifecycle;
}

export interface InvoicingDeps {
  pool: Pool;
  clock: Clock;
  /** Runs before each billing run, so subscription statuses are current (passed in: no import of later work). */
  beforeRun?: () => Promise<unknown>;
  /** Credit notes still open on an invoice (the credit-notes module comes after this one). */
  openCreditNotes: OpenCreditNotes;
  /** The hosted pay page's URL shown on invoice answers (payments, a later module). */
  paymentUrl?: PaymentUrl;
}

/**
 * The invoices module assembled (src/module.ts): services, routes and job tasks. Finalizing
 * refreshes drafts (late usage) through the billing run's batch refresh.
 */
export function createInvoicesModule(deps: InvoicingDeps): Module<Invoicing> {
  const billing = createBillingRun(deps);
  // changing an entity refreshes its drafts through the same refresher as finalization
  const entities = createInvoicingEntitiesService({ ...deps, refresh: billing.refreshDrafts });
  const invoices = createInvoicesService(deps);
  const lifecycle = createInvoiceLifecycle({ ...deps, refresh: billing.refreshDrafts });
  const tasks: TaskRegistry = {
    [RENDER_PDF_TASK]: (payload) => invoices.renderPdfJob(payload),
    [FINALIZE_DUE_TASK]: async () => {
      await lifecycle.finalizeDueDrafts();
    },
    [BILLING_RUN_TASK]: async (payload) => {
      try {
        await deps.beforeRun?.();
        await billing.runAll();
        await lifecycle.finalizeDueDrafts();
      } finally {
        // periodic: the next run is queued by this one (payload.once stops it, for one-shot runs)
        if (!payload.once) await scheduleBillingRuns(deps.pool, new Date(Date.now() + BILLING_RUN_INTERVAL_MS));
      }
    },
  };
  const invoiceRoutesOf = invoiceRoutes(invoices, lifecycle, (tenantId, subscriptionId) => upcomingInvoice(billing, deps.clock, tenantId, subscriptionId), deps.paymentUrl);
  const routes: RouteModule = async (app) => {
    await invoiceRoutesOf(app);
    await entityRoutes(entities)(app);
  };
  return { routes, tasks, api: { entities, invoices, billing, lifecycle } };
}


/** Queues the periodic billing run (idempotent: one pending run per database, by job key). */
export async function scheduleBillingRuns(db: Queryable, runAt?: Date): Promise<void> {
  await enqueueJob(db, BILLING_RUN_TASK, {}, { jobKey: BILLING_RUN_TASK, ...(runAt ? { runAt } : {}) });
}
