// The check's usage read, read in advance. A check needs the usage of a window and a metric
// definition that are known only once the statement resolving the value (repository.ts
// `checkSourcesOf`) has answered. Each process remembers the last read each (customer reference,
// feature) was checked with, window and definition, and the next check reads it IN that statement:
// one round trip, where a second statement would cost more than the rest of the check. When the
// resolved read is the remembered one (the usual case: the same billing period, the same metric
// definition), that reading is used; when it is not (a new period, a changed plan, override or
// metric), it is dropped and the resolved read is made. So a remembered read never decides an
// answer: it only saves a round trip.
import type { Queryable } from '../../db/pool.js';
import type { MetricDefinition } from '../metrics/index.js';
import { definedMetricUsage, embeddedMetricUsage } from '../usage/index.js';

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

const queryOf = (read: UsageRead) => ({ customers: [{ key: read.customerId, refs: read.refs }], periodStart: read.from, periodEnd: read.to });

/** The customer's total of the metric in the window, through the usage module's one aggregation path (what invoicing bills). */
export async function readUsage(pool: Queryable, tenantId: string, read: UsageRead): Promise<string | null> {
  const usage = await definedMetricUsage(pool, tenantId, read.metric, queryOf(read));
  return usage.byCustomer.get(read.customerId)?.totalValue ?? null;
}

/** A usage read as a part of the caller's statement: its `jsonb` expression, parameters from `firstParam`. */
export type EmbeddedRead = (firstParam: number) => { text: string; params: unknown[] };

export function createUsageHints(pool: Queryable) {
  const hints = new Map<string, UsageRead>();
  return {
    /**
     * The usage last checked under `key`, if any, to be read in the caller's statement (`embed`).
     * `settle(read, options, value)` then gives the usage of `read`: from `value`, the embedded
     * expression's, when `read` is the window it read, else from a new reading (and `read` is
     * remembered for the next check). A window ending `now` (sliding, never resetting) changes at
     * every check and is neither remembered nor read in advance.
     */
    start(tenantId: string, key: string) {
      const hintKey = `${tenantId}\u0000${key}`;
      const hint = hints.get(hintKey);
      let embedded: ReturnType<typeof embeddedMetricUsage> | undefined;
      const embed: EmbeddedRead | undefined = hint && ((firstParam) => (embedded = embeddedMetricUsage(hint.metric, queryOf(hint), firstParam)));
      return {
        embed,
        async settle(read: UsageRead, options: { remember: boolean }, value: unknown): Promise<string | null> {
          if (hint && embedded && value !== undefined && sameRead(hint, read)) return embedded.usageOf(value).byCustomer.get(read.customerId)?.totalValue ?? null;
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
