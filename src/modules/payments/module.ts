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

/** Wall-clock pause between two reconciliation sweeps. */
export const RECONCILE_INTERVAL_MS = 60_000;

export interface Payments {
  service: PaymentsService;
  charging: Charging;
  providers: Providers;
  dunning: Dunning;
  refunds: Refunds;
}

export function createPaymentsModule(deps: { pool: Pool; clock: Clock; secretKey: string; stripeApiBase: string; publicBaseUrl: string | undefined }): Module<Payments> {
  const providers = createProviders(deps);
  const dunning = createDunning({ ...deps, providers, chargeTask: CHARGE_TASK, idempotencyKeyOf });
  const refunds = createRefunds({ ...deps, providers });
  const charging = createCharging({
    ...deps, providers, onFailed: dunning.onAttemptFailed,
    onOtherEvent: async (tx, event) => {
      if (event.event_type === 'credit_note.finalized') await refunds.onCreditNoteFinalized(tx, event);
      else await dunning.onInvoiceEvent(tx, event);
    },
  });
  const service = createPaymentsService({ ...deps, providers, charging });
  return {
    routes: async (app) => {
      await paymentRoutes(service)(app);
      await dunningRoutes(dunning)(app);
    },
    tasks: {
      [CHARGE_TASK]: async (payload) => {
        await charging.charge(String(payload.tenant_id), String(payload.attempt_id));
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
    api: { service, charging, providers, dunning, refunds },
  };
}

/** Queues the periodic reconciliation and dunning sweeps (one pending of each per database); the start queues them at once. */
export async function scheduleReconciliation(db: Pool, runAt?: Date): Promise<void> {
  await enqueueJob(db, RECONCILE_TASK, {}, { jobKey: RECONCILE_TASK, ...(runAt ? { runAt } : {}) });
  if (!runAt) await enqueueJob(db, DUNNING_TASK, {}, { jobKey: DUNNING_TASK });
}
