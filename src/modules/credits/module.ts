// The credits module assembled (src/module.ts): prepaid credit grants, their ledger, the live
// balance and automatic top-ups (docs/credits-and-alerts.md, "Prepaid credits").
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { OutboxConsumer } from '../../db/outbox.js';
import type { Module } from '../../module.js';
import type { PrepaidCredits } from '../invoices/index.js';
import { clockOfCustomer, type TestClockTime } from '../customers/index.js';
import { activateGrant, BALANCE_MOVED_TASK, lockLedger, payInvoice, restoreInvoice, voidGrantInTx } from './ledger.js';
import { EXPIRY_SWEEP_INTERVAL_MS, EXPIRY_SWEEP_TASK, scheduleExpirySweep, sweepExpiries } from './expiry.js';
import * as repo from './repository.js';
import { creditRoutes } from './routes.js';
import { createCreditsService, type AccruedUsage, type CreditsService, type ProjectedCreditBalance } from './service.js';

export interface Credits {
  service: CreditsService;
  /** The invoices module's finalization and void hook (wired by the composition root). */
  prepaidCredits: PrepaidCredits;
  /** Balance and projected balance of a customer, read-only (alerts). */
  projectedCreditBalance: ProjectedCreditBalance;
}

/**
 * A customer's balance moved (a grant, a top-up paid, a void, a consumption, an expiry, a refund),
 * called after the change committed: the composition root has the customer's alerts evaluated.
 */
export type BalanceMovedHook = (tenantId: string, customerId: string) => Promise<void>;

export function createCreditsModule(deps: {
  pool: Pool; clock: Clock; accruedUsage: AccruedUsage; testClockTime?: TestClockTime; balanceMoved?: BalanceMovedHook;
}): Module<Credits> {
  const service = createCreditsService(deps);
  const prepaidCredits: PrepaidCredits = {
    pay: (tx, tenantId, invoice, payableMinor, now) => payInvoice(tx, tenantId, invoice, payableMinor, now),
    holders: (tx, tenantId, customerIds) => repo.customersWithActiveGrants(tx, tenantId, customerIds),
    restore: (tx, tenantId, invoice, now) => restoreInvoice(tx, tenantId, invoice, now),
  };
  // a paid grant becomes usable when its invoice is paid, and is dropped when its invoice is voided
  const outboxConsumer: OutboxConsumer = {
    name: 'credits',
    handle: async (tx, event) => {
      if (event.event_type !== 'invoice.paid' && event.event_type !== 'invoice.voided') return;
      const tenantId = event.tenant_id;
      const grant = await repo.findGrantOfInvoice(tx, tenantId, event.object_id ?? '');
      if (!grant || grant.status !== 'PENDING_PAYMENT') return;
      const customer = await lockLedger(tx, tenantId, grant.customer_id);
      if (!customer) return;
      // a customer on a test clock: the grant becomes usable at the clock's time
      const clock = await clockOfCustomer(tx, tenantId, customer, deps.clock, deps.testClockTime);
      if (event.event_type === 'invoice.paid') {
        // activation queues the balance-moved job: the top-up may not have lifted the balance over the threshold
        await activateGrant(tx, tenantId, clock, grant);
      } else {
        await voidGrantInTx(tx, tenantId, clock, { ...grant, remaining_minor: 0n });
      }
    },
  };
  return {
    routes: creditRoutes(service),
    tasks: {
      [BALANCE_MOVED_TASK]: async (payload) => {
        const tenantId = String(payload.tenant_id);
        const customerId = String(payload.customer_id);
        await service.runAutoTopUp(tenantId, customerId);
        await deps.balanceMoved?.(tenantId, customerId);
      },
      [EXPIRY_SWEEP_TASK]: async (payload) => {
        const since = typeof payload.since === 'string' ? new Date(payload.since) : undefined;
        const startedAt = deps.clock.now();
        let swept = false;
        try {
          await sweepExpiries(deps, since ?? null);
          swept = true;
        } finally {
          // periodic: the next run reads from this one's start, or the same window again after a failure (payload.once stops it)
          if (!payload.once) await scheduleExpirySweep(deps.pool, { runAt: new Date(Date.now() + EXPIRY_SWEEP_INTERVAL_MS), since: swept ? startedAt : since });
        }
      },
    },
    outboxConsumers: [outboxConsumer],
    api: { service, prepaidCredits, projectedCreditBalance: service.projectedCreditBalance },
  };
}
