// What a subscription would be after a request, without storing anything: the dashboard shows the
// first invoice of a subscription before creating it, and the proration of a plan change before
// making it (invoices computes both from the record, docs/customers-subscriptions.md, "Previews").
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';

/** Carries the work's answer out of a transaction that is rolled back. */
class RolledBack<T> {
  constructor(readonly value: T) {}
}

/**
 * Runs `work` with the same code path as the real operation, then rolls everything back (rows,
 * outbox events, coupon redemptions): the answer is what it would have written.
 */
export async function inRolledBackTx<T>(pool: Pool, work: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    await withTx(pool, async (tx) => {
      throw new RolledBack(await work(tx));
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.value as T;
    throw error;
  }
  throw new Error('inRolledBackTx: the transaction was committed');
}
