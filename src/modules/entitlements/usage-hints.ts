// The check's usage read started early. The usage read (rollups plus the raw tail) is the longest
// chain of round trips of a check, and it needs the usage window, which is known only once the
// customer, its subscriptions and the feature's value are read. Each process remembers the last
// window each (customer reference, feature) was checked with, and the next check starts reading
// that window's usage at once, side by side with the reads that resolve the value. When the
// resolved window is the remembered one (the usual case: the same billing period), the early
// reading is used; when it is not (a new period, a changed plan or override), it is dropped and
// the resolved window is read. So a remembered window never decides an answer: it only saves time.
import type { Pool } from '../../db/pool.js';
import { customersMetricUsage } from '../usage/index.js';

/** A usage read: one customer (its stored references), one metric, over [from, to). */
export interface UsageRead {
  customerId: string;
  refs: readonly string[];
  metricId: string;
  from: Date;
  to: Date;
}

/** Windows remembered per process; past this many the memory starts again from empty. */
const MAX_HINTS = 10_000;

const sameRead = (a: UsageRead, b: UsageRead) =>
  a.customerId === b.customerId && a.metricId === b.metricId && a.from.getTime() === b.from.getTime() && a.to.getTime() === b.to.getTime() && a.refs.join('\u0000') === b.refs.join('\u0000');

/** The customer's total of the metric in the window, through the usage module's one aggregation path (what invoicing bills). */
export async function readUsage(pool: Pool, tenantId: string, read: UsageRead): Promise<string | null> {
  const usage = await customersMetricUsage(pool, tenantId, { customers: [{ key: read.customerId, refs: read.refs }], metricId: read.metricId, periodStart: read.from, periodEnd: read.to });
  return usage?.byCustomer.get(read.customerId)?.totalValue ?? null;
}

export function createUsageHints(pool: Pool) {
  const hints = new Map<string, UsageRead>();
  return {
    /**
     * Starts reading the usage last checked under `key`, if any. `settle(read)` then gives the
     * usage of `read`: the early reading when `read` is the window it read, else a new reading
     * (and `read` is remembered for the next check). A window ending `now` (sliding, never
     * resetting) changes at every check and is neither remembered nor read early.
     */
    start(tenantId: string, key: string) {
      const hint = hints.get(`${tenantId}\u0000${key}`);
      // an early reading's failure only matters if it is used: settle() reads again on its own
      const early = hint ? readUsage(pool, tenantId, hint).then((value) => ({ value }), () => undefined) : undefined;
      return {
        async settle(read: UsageRead, options: { remember: boolean }): Promise<string | null> {
          if (hint && early && sameRead(hint, read)) {
            const got = await early;
            if (got) return got.value;
          }
          const hintKey = `${tenantId}\u0000${key}`;
          if (!options.remember) hints.delete(hintKey);
          else {
            if (hints.size >= MAX_HINTS) hints.clear();
            hints.set(hintKey, read);
          }
          return readUsage(pool, tenantId, read);
        },
      };
    },
  };
}
