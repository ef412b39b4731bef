// What other modules may use from subscriptions (invoicing, usage, checkout wiring).
import type { Queryable } from '../../db/pool.js';
import * as repo from './repository.js';
import type { AddOnRow, ComponentRow, CouponRow, SubscriptionView } from './repository.js';

export { advanceOne, countSubscriptionsOfCustomer } from './service.js';
export type { SubscriptionsService } from './service.js';
export type { RoutedSubscriptionsService } from './test-clocks.js';
export { createSubscriptionsModule } from './module.js';
/** Request schemas shared with checkout sessions. */
export { AddOnRequest, PriceComponentsRequest, PaymentMethodsConfig } from './schemas.js';
export { plansCatalog } from './catalog-plans.js';
export { createSubscriptionInTx, prepareSubscription, writePreparedSubscription, pricedFingerprint } from './create.js';
export type { CreateSubscriptionInput, PreparedSubscription, RequestFields } from './create.js';
export type { SubscriptionCatalog, CatalogPlanVersion, CatalogAddOn, CatalogFeature, EntitlementValue, Term } from './catalog.js';
export type { SubscriptionFee, FeePeriod } from './fees.js';
export { statusOn, currentPeriod, stopDate, SUBSCRIPTION_STATUSES, LIVE_STATUSES } from './lifecycle.js';
export { currentPeriodOf, nextInvoiceDateOf } from './schedule.js';
export type { SubscriptionStatus } from './lifecycle.js';
export type { SubscriptionView, ComponentRow as SubscriptionComponentRow, AddOnRow as SubscriptionAddOnRow, CouponRow as SubscriptionCouponRow };
// Entitlement overrides are stored with the subscription; the entitlements module sets and reads them here.
export { overridesOf as entitlementOverridesOf, upsertOverride as upsertEntitlementOverride, deleteOverride as deleteEntitlementOverride, tenantsWithSubscriptions } from './repository.js';
/** A test clock's deletion removes its customers' subscriptions (with everything stored under them); returns their ids. */
export { deleteSubscriptionsOfCustomers } from './repository.js';
export type { OverrideRow as EntitlementOverrideRow } from './repository.js';

/**
 * Everything invoicing needs to bill one subscription. Dates are `YYYY-MM-DD`; every end date
 * is exclusive. Fees and add-ons are the subscription's own snapshot: catalog edits never
 * change them, and plan/slot/add-on changes close rows (`effective_to`) and open new ones
 * (`effective_from`), so the fee in force on a day is the row whose range contains it.
 */
export interface SubscriptionSnapshot {
  subscription: SubscriptionView;
  /** Plan components: fee (SubscriptionFee shape), period (term or ONE_TIME), effective range. */
  components: ComponentRow[];
  /** Add-ons with quantity, fee and effective range. */
  addOns: AddOnRow[];
  /** Coupons applied, with the coupon as it was when applied. */
  coupons: CouponRow[];
  /**
   * Billing facts, named for invoicing: billing anchor (1..31), billing start (first billable day;
   * after a free trial it is the trial end), invoicing start (the first day to invoice: billing
   * start, or the current period start when the subscription was imported with
   * skip_past_invoices), stop date (earlier of cancellation and end date, exclusive).
   */
  billing: {
    anchorDay: number;
    term: SubscriptionView['period'];
    billingStartDate: string;
    invoicingStartDate: string;
    netTerms: number;
    trial: { endDate: string; isFree: boolean } | null;
    endDate: string | null;
    cancelEffectiveDate: string | null;
    stopDate: string | null;
  };
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

function snapshotOf(subscription: SubscriptionView, components: ComponentRow[], addOns: AddOnRow[], coupons: CouponRow[]): SubscriptionSnapshot {
  const stops = [subscription.cancel_effective_date, subscription.end_date].filter((d): d is string => d !== null).sort();
  return {
    subscription,
    components: rowsOf(components, subscription.id),
    addOns: rowsOf(addOns, subscription.id),
    coupons: rowsOf(coupons, subscription.id),
    billing: {
      anchorDay: subscription.billing_day_anchor,
      term: subscription.period,
      billingStartDate: subscription.billing_start_date,
      invoicingStartDate: subscription.invoicing_start_date,
      netTerms: subscription.net_terms,
      trial: subscription.trial_end_date ? { endDate: subscription.trial_end_date, isFree: subscription.trial_is_free } : null,
      endDate: subscription.end_date,
      cancelEffectiveDate: subscription.cancel_effective_date,
      stopDate: stops[0] ?? null,
    },
  };
}

/**
 * Which subscriptions to load: by id (`lock` holds their rows for the caller's transaction), one
 * customer's, or every one of the customers on one test clock (null: on none, what the periodic
 * billing run bills); the last two optionally only in these statuses.
 */
export type SnapshotFilter =
  | { ids: readonly string[]; lock?: boolean }
  | { customerId: string; statuses?: readonly string[] }
  | { testClockId: string | null; statuses?: readonly string[] };

function subscriptionsMatching(db: Queryable, tenantId: string, filter: SnapshotFilter): Promise<SubscriptionView[]> {
  if ('ids' in filter) return repo.subscriptionsByIds(db, tenantId, filter.ids, filter.lock ?? false);
  if ('customerId' in filter) return repo.subscriptionsOfCustomer(db, tenantId, filter.customerId, filter.statuses);
  return repo.allSubscriptions(db, tenantId, filter.testClockId, filter.statuses);
}

/** Snapshots of the subscriptions a filter selects, oldest first, in four statements whatever their number. */
export async function loadSubscriptionSnapshots(db: Queryable, tenantId: string, filter: SnapshotFilter): Promise<SubscriptionSnapshot[]> {
  if ('ids' in filter && filter.ids.length === 0) return [];
  const subs = await subscriptionsMatching(db, tenantId, filter);
  if (subs.length === 0) return [];
  const ids = subs.map((s) => s.id);
  const [components, addOns, coupons] = await Promise.all([repo.componentsOf(db, tenantId, ids), repo.addOnsOf(db, tenantId, ids), repo.couponsOf(db, tenantId, ids)]);
  return subs.map((s) => snapshotOf(s, components, addOns, coupons));
}

/** One subscription's snapshot (a batch of one), or undefined. */
export async function loadSubscriptionSnapshot(db: Queryable, tenantId: string, subscriptionId: string, options: { lock?: boolean } = {}): Promise<SubscriptionSnapshot | undefined> {
  return (await loadSubscriptionSnapshots(db, tenantId, { ids: [subscriptionId], ...options }))[0];
}
