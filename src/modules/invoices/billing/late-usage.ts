// Late usage between invoicing and the usage module (docs/usage.md, "Late usage"): the usage
// windows a finalized invoice billed are recorded in the usage module's billed periods (with the
// snapshot their usage was read in); the periods the rollup fold found late events for come back
// here, and the subscription's next invoice bills the difference (src/domain/billing/late.ts).
import type { Queryable } from '../../../db/pool.js';
import type { BilledUsage, BillingOccasion, ComponentUsage } from '../../../domain/index.js';
import { latePeriodsOf, type BilledPeriod } from '../../usage/index.js';

/** A billed window as stored in the usage module's `billed` column (bigint as a decimal string). */
interface StoredBilledUsage {
  componentId: string;
  metricId: string;
  periodStart: string;
  periodEnd: string;
  occasion: BillingOccasion;
  usage: ComponentUsage;
  billedMinor: string;
}

/** One window of one subscription: which component and which dates. */
export function windowKeyOf(billed: Pick<BilledUsage, 'componentId' | 'periodStart' | 'periodEnd'>): string {
  return `${billed.componentId}|${billed.periodStart}|${billed.periodEnd}`;
}

const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);

/** A window an invoice of `subscriptionId` bills, as the usage module records it. */
export function billedPeriodOf(subscriptionId: string, customerId: string, metricCode: string, billed: BilledUsage, snapshot: string): BilledPeriod {
  const stored: StoredBilledUsage = { ...billed, billedMinor: billed.billedMinor.toString() };
  return {
    ownerId: subscriptionId,
    windowKey: windowKeyOf(billed),
    customerId,
    metricId: billed.metricId,
    code: metricCode,
    startsAt: midnight(billed.periodStart),
    endsAt: midnight(billed.periodEnd),
    snapshot,
    billed: stored,
  };
}

/**
 * The windows of these subscriptions that got usage after they were billed, as billed so far.
 * `lock` (finalization): row-locked in the caller's transaction, so two finalizations never
 * bill one window late twice.
 */
export async function lateWindowsOf(db: Queryable, tenantId: string, subscriptionIds: readonly string[], lock: boolean): Promise<Map<string, BilledUsage[]>> {
  const out = new Map<string, BilledUsage[]>();
  for (const period of await latePeriodsOf(db, tenantId, subscriptionIds, { lock })) {
    const stored = period.billed as StoredBilledUsage;
    const list = out.get(period.ownerId) ?? out.set(period.ownerId, []).get(period.ownerId)!;
    list.push({ ...stored, billedMinor: BigInt(stored.billedMinor) });
  }
  return out;
}
