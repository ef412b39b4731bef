// Advancing a test clock (docs/test-clocks.md): a job walks the clock's objects from its frozen
// time to the target and, at each stop, runs what the periodic billing run does, in its order
// (status moves, billing, spend thresholds, grace-period finalization, then payments' dunning sweep), with the same
// code at a clock stopped there, restricted to the clock's customers. It stops wherever something
// can be due: the midnight (UTC) of the next status move or invoice date of the clock's
// subscriptions, the next draft finalization, the next dunning retry, and the target; days on which nothing is due are skipped, with the same
// result as stopping on them. Each stop commits before the next, and the clock records how far
// it got, so a job that fails is retried from there.
import { ManualClock, today, type Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { nextDraftFinalization } from '../invoices/index.js';
import * as repo from './repository.js';
import { testClockEventData } from './events.js';

export const ADVANCE_TASK = 'test_clocks.advance';

/** The clock-driven services of one test clock's customers at a clock (subscriptions and invoices hand them out). */
export interface ClockDrivenWork {
  subscriptionsAt(clock: Clock, testClockId: string): {
    advanceDue(tenantId: string): Promise<number>;
    nextTransitionOn(tenantId: string): Promise<string | null>;
  };
  invoicingAt(clock: Clock, testClockId: string): {
    billing: { runTenants(tenantIds: readonly string[]): Promise<unknown>; nextInvoiceDate(tenantId: string): Promise<string | null> };
    lifecycle: { finalizeDueDrafts(): Promise<number> };
    /** Spend thresholds of the clock's subscriptions, checked at the clock's time (threshold invoices). */
    thresholds: { checkTenant(tenantId: string): Promise<unknown> };
  };
  /** Payments' dunning of the clock's customers: retries and final actions due by the stop. */
  paymentsAt(clock: Clock, testClockId: string): {
    runDue(tenantId: string): Promise<number>;
    nextRetryAt(tenantId: string): Promise<Date | null>;
  };
}

/**
 * The next stop after `from`: the earliest of the target, the midnight (UTC) starting each due
 * date after `from`'s date (billing rules compare dates, so a day's work is done at its
 * midnight), and each finalization time after `from` (grace periods are in hours).
 */
export function nextStop(from: Date, target: Date, due: { dates: readonly (string | null)[]; instants: readonly (Date | null)[] }): Date {
  const fromDay = today({ now: () => from });
  const candidates = [target.getTime()];
  for (const date of due.dates) if (date !== null && date > fromDay) candidates.push(Date.parse(`${date}T00:00:00.000Z`));
  for (const at of due.instants) if (at !== null && at.getTime() > from.getTime()) candidates.push(at.getTime());
  return new Date(Math.min(...candidates));
}

export function createAdvanceRunner(deps: { pool: Pool; clock: Clock; work: ClockDrivenWork }) {
  const { pool } = deps;

  /** Runs the advance of one clock to its target; returns when READY (or when there is nothing to advance). */
  async function advance(tenantId: string, testClockId: string): Promise<void> {
    let row = await repo.findTestClock(pool, tenantId, testClockId);
    if (!row || row.status !== 'ADVANCING' || !row.target_frozen_time) return;
    const target = row.target_frozen_time;
    // One set of services for the whole walk, on a clock moved from stop to stop.
    const at = new ManualClock(row.frozen_time);
    const subscriptions = deps.work.subscriptionsAt(at, testClockId);
    const { billing, lifecycle, thresholds } = deps.work.invoicingAt(at, testClockId);
    const payments = deps.work.paymentsAt(at, testClockId);
    const runStop = async () => {
      await subscriptions.advanceDue(tenantId);
      await billing.runTenants([tenantId]);
      // as the periodic run: spend thresholds after billing (a period just ended is billed first), at the stop's time;
      // a subscription the engine refuses does not hold the clock back (the billing run reports it)
      await thresholds.checkTenant(tenantId).catch(() => undefined);
      await lifecycle.finalizeDueDrafts();
      // dunning last, as the periodic sweep: retries due by the stop, each charged at once
      await payments.runDue(tenantId);
    };
    // what is due at the current time first: objects created on the clock since its last stop
    await runStop();
    while (row?.status === 'ADVANCING') {
      const stop = nextStop(row.frozen_time, target, {
        dates: [await subscriptions.nextTransitionOn(tenantId), await billing.nextInvoiceDate(tenantId)],
        instants: [await nextDraftFinalization(pool, tenantId, testClockId), await payments.nextRetryAt(tenantId)],
      });
      at.set(stop);
      await runStop();
      row = await withTx(pool, async (tx) => {
        const current = await repo.findTestClock(tx, tenantId, testClockId, true);
        if (!current) return undefined; // a clock is deleted only when READY, so only by hand in the database
        const reached = stop.getTime() >= target.getTime();
        const next: repo.TestClockRow = { ...current, frozen_time: stop, status: reached ? 'READY' : 'ADVANCING', target_frozen_time: reached ? null : target, updated_at: deps.clock.now() };
        await repo.updateTestClock(tx, tenantId, next);
        if (reached) await writeOutboxEvent(scoped(tx, tenantId), deps.clock, { type: 'test_clock.ready', objectId: testClockId, data: testClockEventData(next) });
        return next;
      });
    }
  }

  return { advance };
}
