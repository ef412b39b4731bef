// The payments module assembled (src/module.ts): provider connections, payment methods, and the
// charge of finalized invoices, dunning (docs/payments.md).
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { enqueueJob } from '../../jobs/queue.js';
import { createProviders, type Providers } from './providers.js';
import { CHARGE_TASK, createCharging, idempotencyKeyOf, RECONCILE_TASK, type Charging } from './charging.js';
import { createDunning, DUNNING_TASK, type Dunning } from './dunning.js';
import { dunningRoutes } from './dunning-routes.js';
import { createRefunds, REFUND_TASK, type Refunds } from './refunds.js';
import { createPaymentsService, type PaymentsService } from './service.js';
import { paymentRoutes } from './routes.js';
import { createPayLinks, type PayLinks } from './pay-links.js';
import { createPageCsrf, type PageCsrf } from './page-csrf.js';
import { createPayPageService } from './pay-page-service.js';
import { payPageRoutes } from './pay-page.js';
import type { InvoicesService, Invoicing } from '../invoices/index.js';
import type { CheckoutService } from '../checkout/index.js';
import { CHECKOUT_FINISH_TASK, createCheckoutPayments, type CheckoutPayments } from './checkout-payments.js';
import { checkoutPageRoutes } from './checkout-page.js';
import { nextDunningRetryOfTestClock } from './repository.js';
import { payLinkRoutes } from './pay-link-routes.js';

/** Wall-clock pause between two reconciliation sweeps. */
export const RECONCILE_INTERVAL_MS = 60_000;

export interface Payments {
  service: PaymentsService;
  charging: Charging;
  providers: Providers;
  dunning: Dunning;
  refunds: Refunds;
  /** Pay links of invoices; `payUrlFor` is the one way to build an invoice's pay URL. */
  payLinks: PayLinks;
  payUrlFor: PayLinks['payUrlFor'];
  /** The hosted checkout page's work (tests reach `finish`). */
  checkoutPages: CheckoutPayments;
  /** Dunning of one test clock's customers at `clock` (a stop of the clock's advance, test-clocks). */
  atTestClock(clock: Clock, testClockId: string): PaymentsAtTestClock;
  /** The CSRF field of the hosted pages without sign-in (pay page, customer portal forms). */
  pageCsrf: PageCsrf;
}

/** What a test clock's advance runs of payments at each stop. */
export interface PaymentsAtTestClock {
  /** Takes the retries of the clock's customers due by the stop, each charged at once; returns how many. */
  runDue(tenantId: string): Promise<number>;
  /** The next retry due of the clock's customers (a stop of the advance), or null. */
  nextRetryAt(tenantId: string): Promise<Date | null>;
}

export interface PaymentsDeps {
  pool: Pool;
  clock: Clock;
  secretKey: string;
  stripeApiBase: string;
  gocardlessApiBase: string;
  publicBaseUrl: string | undefined;
  /** The invoice PDF (invoices service), offered on the pay page. */
  invoicePdf: InvoicesService['pdf'];
  /** The hosted checkout page: sessions (checkout), and the first invoice's preview and creation (invoices). */
  checkout: CheckoutService;
  invoicing: Pick<Invoicing, 'previewFirstInvoice' | 'billing' | 'lifecycle'>;
}

export function createPaymentsModule(deps: PaymentsDeps): Module<Payments> {
  const providers = createProviders(deps);
  const payLinks = createPayLinks(deps);
  const dunning = createDunning({ ...deps, providers, chargeTask: CHARGE_TASK, idempotencyKeyOf, payUrlFor: payLinks.payUrlFor });
  const refunds = createRefunds({ ...deps, providers });
  const charging = createCharging({
    ...deps, providers, onFailed: dunning.onAttemptFailed, payUrlFor: payLinks.payUrlFor,
    onOtherEvent: async (tx, event) => {
      if (event.event_type === 'credit_note.finalized') await refunds.onCreditNoteFinalized(tx, event);
      else await dunning.onInvoiceEvent(tx, event);
    },
    // the checkout's first payment succeeded: its session is completed by a job, also after a crash
    onCheckoutPaid: (tx, attempt) => enqueueJob(tx, CHECKOUT_FINISH_TASK, { tenant_id: attempt.tenant_id, attempt_id: attempt.id }, { jobKey: `${CHECKOUT_FINISH_TASK}:${attempt.id}` }),
  });
  // a test clock's dunning: the same code at the stop's time, charging each retry at once with a
  // charging whose failures go to that dunning (so the next retry's due time is known before the next stop)
  const atTestClock = (clock: Clock, testClockId: string): PaymentsAtTestClock => {
    const dunningAt: Dunning = createDunning({
      ...deps, clock, providers, chargeTask: CHARGE_TASK, idempotencyKeyOf, payUrlFor: payLinks.payUrlFor, testClockId,
      chargeNow: (tenantId, attemptId) => chargingAt.charge(tenantId, attemptId),
    });
    const chargingAt: Charging = createCharging({ ...deps, clock, providers, onFailed: dunningAt.onAttemptFailed });
    return {
      runDue: (tenantId) => dunningAt.sweep(500, tenantId),
      nextRetryAt: (tenantId) => nextDunningRetryOfTestClock(deps.pool, tenantId, testClockId),
    };
  };
  const service = createPaymentsService({ ...deps, providers, charging });
  const csrf = createPageCsrf({ secretKey: deps.secretKey, secureCookies: deps.publicBaseUrl?.startsWith('https:') ?? false });
  const payPages = createPayPageService({ ...deps, providers, charging, service, links: payLinks });
  const checkoutPages = createCheckoutPayments({ ...deps, providers, charging, service });
  return {
    routes: async (app) => {
      await paymentRoutes(service)(app);
      await dunningRoutes(dunning)(app);
      await payLinkRoutes({ pool: deps.pool, links: payLinks })(app);
      await payPageRoutes({ pages: payPages, csrf, invoicePdf: deps.invoicePdf })(app);
      await checkoutPageRoutes({ pages: checkoutPages, csrf })(app);
    },
    tasks: {
      [CHARGE_TASK]: async (payload) => {
        await charging.charge(String(payload.tenant_id), String(payload.attempt_id));
      },
      [CHECKOUT_FINISH_TASK]: async (payload) => {
        await checkoutPages.finishAttempt(String(payload.tenant_id), String(payload.attempt_id));
      },
      [REFUND_TASK]: async (payload) => {
        await refunds.refund(String(payload.tenant_id), String(payload.refund_id));
      },
      [DUNNING_TASK]: async (payload) => {
        try {
          await dunning.sweep();
        } finally {
          if (!payload.once) await enqueueJob(deps.pool, DUNNING_TASK, {}, { jobKey: DUNNING_TASK, runAt: new Date(Date.now() + RECONCILE_INTERVAL_MS) });
        }
      },
      [RECONCILE_TASK]: async (payload) => {
        try {
          await charging.reconcile();
        } finally {
          if (!payload.once) await scheduleReconciliation(deps.pool, new Date(Date.now() + RECONCILE_INTERVAL_MS));
        }
      },
    },
    outboxConsumers: [charging.outboxConsumer],
    api: { service, charging, providers, dunning, refunds, payLinks, payUrlFor: payLinks.payUrlFor, checkoutPages, atTestClock, pageCsrf: csrf },
  };
}

/** Queues the periodic reconciliation and dunning sweeps (one pending of each per database); the start queues them at once. */
export async function scheduleReconciliation(db: Pool, runAt?: Date): Promise<void> {
  await enqueueJob(db, RECONCILE_TASK, {}, { jobKey: RECONCILE_TASK, ...(runAt ? { runAt } : {}) });
  if (!runAt) await enqueueJob(db, DUNNING_TASK, {}, { jobKey: DUNNING_TASK });
}
