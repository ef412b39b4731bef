// The payments module assembled (src/module.ts): provider connections, payment methods, and the
// charge of finalized invoices (docs/payments.md).
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { enqueueJob } from '../../jobs/queue.js';
import { createProviders, type Providers } from './providers.js';
import { CHARGE_TASK, createCharging, RECONCILE_TASK, type Charging } from './charging.js';
import { createPaymentsService, type PaymentsService } from './service.js';
import { paymentRoutes } from './routes.js';

/** Wall-clock pause between two reconciliation sweeps. */
export const RECONCILE_INTERVAL_MS = 60_000;

export interface Payments {
  service: PaymentsService;
  charging: Charging;
  providers: Providers;
}

export function createPaymentsModule(deps: { pool: Pool; clock: Clock; secretKey: string; stripeApiBase: string; gocardlessApiBase: string }): Module<Payments> {
  const providers = createProviders(deps);
  const charging = createCharging({ ...deps, providers });
  const service = createPaymentsService({ ...deps, providers, charging });
  return {
    routes: paymentRoutes(service),
    tasks: {
      [CHARGE_TASK]: async (payload) => {
        await charging.charge(String(payload.tenant_id), String(payload.attempt_id));
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
    api: { service, charging, providers },
  };
}

/** Queues the periodic reconciliation (one pending sweep per database); the start queues one at once. */
export async function scheduleReconciliation(db: Pool, runAt?: Date): Promise<void> {
  await enqueueJob(db, RECONCILE_TASK, {}, { jobKey: RECONCILE_TASK, ...(runAt ? { runAt } : {}) });
}
