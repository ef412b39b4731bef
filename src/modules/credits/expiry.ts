// The expiry sweep: a periodic job that records the EXPIRY entries of grants whose expires_at has
// passed, so the ledger (and the alerts and automatic top-ups that follow it) shows an expiry
// within a minute even when nothing else touches the customer. Any writer records due expiries
// too (expireDue); the sweep only makes sure one does.
import type { Clock } from '../../kernel/clock.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { enqueueJob } from '../../jobs/queue.js';
import { expireDue, lockLedger } from './ledger.js';
import * as repo from './repository.js';

export const EXPIRY_SWEEP_TASK = 'credits.expire_due';
/** Wall-clock pause between two sweeps: an expiry is recorded within about this much of it. */
export const EXPIRY_SWEEP_INTERVAL_MS = 60_000;
/**
 * Each sweep reads the expiries since the last one's time less this much: a grant whose
 * transaction committed after the last sweep read, with an expiry before that read, is still
 * seen. Reading an expiry twice records nothing the second time.
 */
const OVERLAP_MS = 10 * 60_000;
const BATCH = 500;

/**
 * Queues the sweep (idempotent: one pending run per database, by job key). `since`: the time of
 * the last sweep; without it (at start-up) the sweep reads every expired active grant once.
 */
export async function scheduleExpirySweep(db: Queryable, options: { runAt?: Date; since?: Date } = {}): Promise<void> {
  await enqueueJob(db, EXPIRY_SWEEP_TASK, options.since ? { since: options.since.toISOString() } : {}, { jobKey: EXPIRY_SWEEP_TASK, ...(options.runAt ? { runAt: options.runAt } : {}) });
}

/**
 * Records the expiries due by `now` of the customers holding an active grant that expired in
 * (since − overlap, now]. Each customer in its own transaction under its ledger lock, so a
 * second sweep, or a finalization racing it, finds the remainder gone and writes nothing.
 * Customers on a test clock are left to their clock's time: their writers and reads record
 * their expiries (docs/credits-and-alerts.md). Returns the EXPIRY entries written.
 */
export async function sweepExpiries(deps: { pool: Pool; clock: Clock }, since: Date | null): Promise<number> {
  const now = deps.clock.now();
  const from = since ? new Date(since.getTime() - OVERLAP_MS) : new Date(0);
  let recorded = 0;
  let after: Awaited<ReturnType<typeof repo.grantsExpiringBetween>>[number] | undefined;
  const done = new Set<string>();
  for (;;) {
    const rows = await repo.grantsExpiringBetween(deps.pool, from, now, BATCH, after);
    for (const row of rows) {
      const key = `${row.tenant_id}\u0000${row.customer_id}`;
      if (done.has(key)) continue;
      done.add(key);
      recorded += await withTx(deps.pool, async (tx) => {
        const customer = await lockLedger(tx, row.tenant_id, row.customer_id);
        if (!customer || customer.test_clock_id !== null) return 0;
        return expireDue(tx, row.tenant_id, customer.id, now);
      });
    }
    if (rows.length < BATCH) return recorded;
    after = rows.at(-1);
  }
}
