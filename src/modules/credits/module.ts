// The credits module assembled (src/module.ts): prepaid credit grants, their ledger, the live
// balance and automatic top-ups (docs/credits-and-alerts.md, "Prepaid credits").
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { OutboxConsumer } from '../../db/outbox.js';
import type { Module } from '../../module.js';
import type { PrepaidCredits } from '../invoices/index.js';
import { clockOfCustomer, type TestClockTime } from '../customers/index.js';
import { activateGrant, AUTO_TOP_UP_TASK, lockLedger, payInvoice, queueAutoTopUpCheck, restoreInvoice, voidGrantInTx } from './ledger.js';
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

export function createCreditsModule(deps: { pool: Pool; clock: Clock; accruedUsage: AccruedUsage; testClockTime?: TestClockTime }): Module<Credits> {
  const service = createCreditsService(deps);
  const prepaidCredits: PrepaidCredits = {
    pay: (tx, tenantId, invoice, payableMinor, now) => payInvoice(tx, tenantId, invoice, payableMinor, now),
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
        await activateGrant(tx, tenantId, clock, grant);
        // the top-up may not have lifted the balance over the threshold
        await queueAutoTopUpCheck(tx, tenantId, grant.customer_id);
      } else {
        await voidGrantInTx(tx, tenantId, clock, { ...grant, remaining_minor: 0n });
      }
    },
  };
  return {
    routes: creditRoutes(service),
    tasks: {
      [AUTO_TOP_UP_TASK]: async (payload) => {
        await service.runAutoTopUp(String(payload.tenant_id), String(payload.customer_id));
      },
    },
    outboxConsumers: [outboxConsumer],
    api: { service, prepaidCredits, projectedCreditBalance: service.projectedCreditBalance },
  };
}
