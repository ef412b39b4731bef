// A subscription as stored, read whole for invoicing, entitlements and the portal.
import type { Queryable } from '../../db/pool.js';
import * as repo from './repository.js';
import type { AddOnRow, ComponentRow, CouponRow, SubscriptionView } from './repository.js';

/**
 * A subscription with its rows, as stored. Dates are `YYYY-MM-DD`; every end date is exclusive.
 * Fees and add-ons are the subscription's own snapshot of its plan version: catalog edits never
 * change them, and plan/slot/add-on changes close rows (`effective_to`) and open new ones
 * (`effective_from`), so the fee in force on a day is the row whose range contains it.
 *
 * Not the billing engine's `SubscriptionSnapshot` (src/domain/billing/snapshot.ts): that one is
 * this record in the engine's own terms (camelCase, fees with quantities multiplied in, the
 * plan's tax and minimum commitment added), built by invoices/billing/mapping.ts, because the
 * domain imports no module.
 */
export interface SubscriptionRecord {
  subscription: SubscriptionView;
  /** Plan components: fee (SubscriptionFee), period (term or ONE_TIME), effective range. */
  components: ComponentRow[];
  /** Add-ons with quantity, fee and effective range. */
  addOns: AddOnRow[];
  /** Coupons applied, with the coupon as it was when applied. */
  coupons: CouponRow[];
}

// Rows grouped by subscription once per list (a filter per subscription is quadratic on big lists).
const grouped = new WeakMap<readonly { subscription_id: string }[], Map<string, unknown[]>>();
function rowsOf<T extends { subscription_id: string }>(rows: readonly T[], subscriptionId: string): T[] {
  let bySubscription = grouped.get(rows);
  if (!bySubscription) {
    bySubscription = new Map();
    for (const row of rows) {
      const list = bySubscription.get(row.subscription_id) ?? [];
      list.push(row);
      bySubscription.set(row.subscription_id, list);
    }
    grouped.set(rows, bySubscription);
  }
  return [...((bySubscription.get(subscriptionId) ?? []) as T[])];
}

/**
 * Which subscriptions to load: by id (`lock` holds their rows for the caller's transaction), one
 * customer's, or every one of the customers on one test clock (null: on none, what the periodic
 * billing run bills); the last two optionally only in these statuses.
 */
export type SubscriptionFilter =
  | { ids: readonly string[]; lock?: boolean }
  | { customerId: string; statuses?: readonly string[] }
  | { testClockId: string | null; statuses?: readonly string[] }
  /** A page of the test clock's (or no clock's) subscriptions: those after the subscription `after` (null: from the first), at most `limit`. */
  | { testClockId: string | null; after: string | null; limit: number };

function subscriptionsMatching(db: Queryable, tenantId: string, filter: SubscriptionFilter): Promise<SubscriptionView[]> {
  if ('ids' in filter) return repo.subscriptionsByIds(db, tenantId, filter.ids, filter.lock ?? false);
  if ('customerId' in filter) return repo.subscriptionsOfCustomer(db, tenantId, filter.customerId, filter.statuses);
  if ('limit' in filter) return repo.subscriptionsPage(db, tenantId, filter.testClockId, filter.after, filter.limit);
  return repo.allSubscriptions(db, tenantId, filter.testClockId, filter.statuses);
}

/** Records of the subscriptions a filter selects, oldest first, in four statements whatever their number. */
export async function loadSubscriptionRecords(db: Queryable, tenantId: string, filter: SubscriptionFilter): Promise<SubscriptionRecord[]> {
  if ('ids' in filter && filter.ids.length === 0) return [];
  const subs = await subscriptionsMatching(db, tenantId, filter);
  if (subs.length === 0) return [];
  const ids = subs.map((s) => s.id);
  const [components, addOns, coupons] = await Promise.all([repo.componentsOf(db, tenantId, ids), repo.addOnsOf(db, tenantId, ids), repo.couponsOf(db, tenantId, ids)]);
  return subs.map((subscription) => ({
    subscription,
    components: rowsOf(components, subscription.id),
    addOns: rowsOf(addOns, subscription.id),
    coupons: rowsOf(coupons, subscription.id),
  }));
}

/** One subscription's record (a batch of one), or undefined. */
export async function loadSubscriptionRecord(db: Queryable, tenantId: string, subscriptionId: string, options: { lock?: boolean } = {}): Promise<SubscriptionRecord | undefined> {
  return (await loadSubscriptionRecords(db, tenantId, { ids: [subscriptionId], ...options }))[0];
}
