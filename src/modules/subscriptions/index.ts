// What other modules may use from subscriptions (invoicing, usage, checkout wiring).
import type { AddOnRow, ComponentRow, CouponRow, SubscriptionView } from './repository.js';

export { advanceOne, countSubscriptionsOfCustomer } from './service.js';
export type { SubscriptionsService } from './service.js';
export type { RoutedSubscriptionsService } from './test-clocks.js';
export { createSubscriptionsModule } from './module.js';
/** Request schemas shared with checkout sessions. */
export { AddOnRequest, PriceComponentsRequest, PaymentMethodsConfig } from './schemas.js';
/** Request schemas of creation and plan change, shared with their invoice previews (invoices). */
export { SubscriptionCreateRequest, ChangePlanRequest } from './schemas.js';
export { subscriptionCreateExample, changePlanExample } from './examples.js';
export { catalogFeatureOf, catalogValuesOf, plansCatalog } from './catalog-plans.js';
export type { CatalogValues } from './catalog-plans.js';
export { createSubscriptionInTx, prepareSubscription, preparedRecord, writePreparedSubscription, pricedFingerprint } from './create.js';
export type { CreateSubscriptionInput, PreparedSubscription, RequestFields } from './create.js';
export type { ChangePlanInput } from './changes.js';
export type { SubscriptionCatalog, CatalogPlanVersion, CatalogAddOn, CatalogFeature, EntitlementValue } from './catalog.js';
export type { SubscriptionFee, FeeTerm } from './fees.js';
export { currentPeriodOf } from './schedule.js';
export type { NextInvoiceDate } from './schedule.js';
export type { SubscriptionView, ComponentRow as SubscriptionComponentRow, AddOnRow as SubscriptionAddOnRow, CouponRow as SubscriptionCouponRow };
// Entitlement overrides are stored with the subscription; the entitlements module sets and reads them here.
export { overridesOf as entitlementOverridesOf, upsertOverride as upsertEntitlementOverride, deleteOverride as deleteEntitlementOverride, tenantsWithSubscriptions } from './repository.js';
/** A test clock's deletion removes its customers' subscriptions (with everything stored under them); returns their ids. */
export { deleteSubscriptionsOfCustomers } from './repository.js';
export type { OverrideRow as EntitlementOverrideRow, EntitlementSourceRow, EntitlementAddOn } from './repository.js';
/** Subscriptions with their add-on rows and entitlement overrides in one statement (entitlements). */
export { customerEntitlementSourcesWhere, entitlementSourcesOf, entitlementSourcesSql } from './repository.js';
export { loadSubscriptionRecords, loadSubscriptionRecord } from './records.js';
export type { SubscriptionRecord } from './records.js';
/** Dunning (payments) marks a subscription past due, paid up, or cancels it for non-payment. */
export { setPastDue, cancelForNonPayment } from './payment-standing.js';
/** Spend thresholds: the subscriptions that have them (ingestion's trigger and the periodic re-check of invoices). */
export { subscriptionsWithThresholdsOf, allSubscriptionsWithThresholds } from './thresholds.js';
