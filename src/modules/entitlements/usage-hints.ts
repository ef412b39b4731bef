// The check's usage read started early. A check is two statements: the one resolving the value
// (repository.ts `checkSourcesOf`) and the usage read (rollups plus the raw tail), which needs the
// usage window and the metric's definition, known only once the first has answered. Each process
// remembers the last read each (customer reference, feature) was checked with, window and
// definition, and the next check starts that read at once, side by side with the statement that
// resolves the value. When the resolved read is the remembered one (the usual case: the same
// billing period, the same metric definition), the early reading is used; when it is not (a new
// period, a changed plan, override or metric), it is dropped and the resolved read is made. So a
// remembered read never decides an answer: it only saves a round trip.
import type { Queryable } from '../../db/pool.js';
import type { MetricDefinition } from '../metrics/index.js';
import { definedMetricUsage } from '../usage/index.js';

/** A usage read: one customer (its stored references), one metric as defined when read, over [from, to). */
export interface UsageRead {
  customerId: string;
  refs: readonly string[];
  metric: MetricDefinition;
  from: Date;
  to: Date;
}

/** Windows remembered per process; past this many the memory starts again from empty. */
const MAX_HINTS = 10_000;

const sameRead = (a: UsageRead, b: UsageRead) =>
  a.customerId === b.customerId &&
  a.from.getTime() === b.from.getTime() &&
  a.to.getTime() === b.to.getTime() &&
  a.refs.join('\u0000') === b.refs.join('\u0000') &&
  // the same definition (both are built by one mapper, so their keys come in one order)
  JSON.stringify(a.metric) === JSON.stringify(b.metric);

/** The customer's total of the metric in the window, through the usage module's one aggregation path (what invoicing bills). */
export async function readUsage(pool: Queryable, tenantId: string, read: UsageRead): Promise<string | null> {
  const usage = await definedMetricUsage(pool, tenantId, read.metric, { customers: [{ key: read.customerId, refs: read.refs }], periodStart: read.from, periodEnd: read.to });
  return usage.byCustomer.get(read.customerId)?.totalValue ?? null;
}

export function createUsageHints(pool: Queryable) {
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
