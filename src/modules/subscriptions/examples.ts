// Examples of the OpenAPI document: one subscription (Acme SAS on plan Pro, from 2026-03-01)
// followed through its changes, so every operation shows what it does to the same object.
import type { Static } from 'typebox';
import { Value } from 'typebox/value';
import { Subscription, type SubscriptionCreateRequest, type SubscriptionDetails } from './schemas.js';

type Details = Static<typeof SubscriptionDetails>;
type Component = Details['components'][number];

export const SUBSCRIPTION_ID = 'sub_01KKRNW4G0P3977S414S2FKJMX';
export const PLAN_ID = 'plan_01KKRNW4G0M43TXH0ST77BFT9K';
const PLAN_VERSION_ID = 'plv_01KKRNW4G08FAJYCA9MA52DWWF';
const BUSINESS_PLAN_ID = 'plan_01KKV88VG0TD2HPRNB9BBN8H0J';
const BUSINESS_VERSION_ID = 'plv_01KKV88VG0MVDTREY01S9V7WX9';
export const SEATS_COMPONENT_ID = 'price_01KKRNW4G0BJN5FPVM600B8SVP';
export const ADD_ON_ID = 'add_01KKRNW4G0RX9Q4JE3E9ZRDPJ9';
export const SUBSCRIPTION_ADD_ON_ID = 'sub_add_01KKRNW4G0AVHFA6STX6H8M08J';

const platform = (id: string, priceComponentId: string, rate: string, from: string, to: string | null): Component => ({
  id, price_component_id: priceComponentId, product_id: 'prd_01KKRNW4G05SHGV2NSGKR78H17', name: 'Platform', period: 'MONTHLY',
  fee: { type: 'RATE', rate }, effective_from: from, effective_to: to,
});
const seats = (id: string, slots: number, from: string, to: string | null): Component => ({
  id, price_component_id: SEATS_COMPONENT_ID, product_id: 'prd_01KKRNW4G02M2QDJF63ZKGW9SX', name: 'Seats', period: 'MONTHLY',
  fee: { type: 'SLOT', unit: 'seat', unit_rate: '10.00', initial_slots: slots, min_slots: 1, max_slots: 50 }, effective_from: from, effective_to: to,
});
const apiCalls = (id: string, from: string, to: string | null): Component => ({
  id, price_component_id: 'price_01KKRNW4G0C2K3PCATHA0S12ER', product_id: 'prd_01KKRNW4G04FA3MJ0ABRPWCZAT', name: 'API calls', period: 'MONTHLY',
  fee: {
    type: 'USAGE', metric_id: 'bm_01KKRNW4G0KBE7DQXQZG9JW7X3',
    model: { type: 'TIERED', block_size: null, tiers: [{ first_unit: 0, rate: '0.10', flat_fee: null, flat_cap: null }, { first_unit: 100, rate: '0.05', flat_fee: null, flat_cap: null }] },
  },
  effective_from: from, effective_to: to,
});

export const subscriptionCreateExample: Static<typeof SubscriptionCreateRequest> = {
  customer_id_or_alias: 'crm-42',
  plan_id: PLAN_ID,
  start_date: '2026-03-01',
  billing_day_anchor: 1,
  net_terms: 30,
  price_components: { parameterized_components: [{ component_id: SEATS_COMPONENT_ID, parameters: { initial_slot_count: 1 } }] },
  purchase_order: 'PO-2026-118',
};

/** Just created: Platform 49.00 + 1 seat at 10.00 a month, API calls in arrears. */
export const subscriptionDetailsExample: Details = {
  id: SUBSCRIPTION_ID,
  customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
  customer_name: 'Acme SAS',
  customer_alias: 'crm-42',
  plan_id: PLAN_ID,
  plan_name: 'Pro',
  plan_description: 'For growing teams',
  plan_version: 1,
  plan_version_id: PLAN_VERSION_ID,
  currency: 'EUR',
  status: 'ACTIVE',
  start_date: '2026-03-01',
  end_date: null,
  billing_start_date: '2026-03-01',
  billing_day_anchor: 1,
  current_period_start: '2026-03-01',
  current_period_end: '2026-04-01',
  period: 'MONTHLY',
  net_terms: 30,
  trial_duration: null,
  invoice_memo: null,
  purchase_order: 'PO-2026-118',
  auto_advance_invoices: true,
  charge_automatically: true,
  payment_methods_config: null,
  mrr: '59.00',
  created_at: '2026-03-01T09:12:44.512Z',
  activated_at: '2026-03-01T09:12:44.512Z',
  cancel_effective_date: null,
  cancellation_reason: null,
  custom_properties: {},
  trial_is_free: false,
  trialing_plan_id: null,
  skip_past_invoices: false,
  usage_thresholds: [],
  next_invoice_date: '2026-04-01',
  scheduled_plan_change: null,
  checkout_url: null,
  components: [
    platform('sub_price_01KKRNW4G049P4GC03M28CA4DK', 'price_01KKRNW4G0DDFFVB7F9J6HEJRG', '49.00', '2026-03-01', null),
    seats('sub_price_01KKRNW4G0PZ6B9E17XW9PQTA1', 1, '2026-03-01', null),
    apiCalls('sub_price_01KKRNW4G0XEC98RC1NYT18AHG', '2026-03-01', null),
  ],
  add_ons: [],
  applied_coupons: [],
  entitlements: [],
};

const [platformRow, oneSeatRow, apiCallsRow] = subscriptionDetailsExample.components as [Component, Component, Component];

/** The list shows the same subscription without its fees, coupons and entitlements. */
export const subscriptionListExample = {
  data: [Value.Clean(Subscription, Value.Clone(subscriptionDetailsExample)) as Static<typeof Subscription>],
  pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 },
};

export const subscriptionUpdateExample = {
  net_terms: 45,
  invoice_memo: 'Please pay by bank transfer to FR76 3000 6000 0112 3456 7890 189',
  purchase_order: 'PO-2026-204',
};

export const subscriptionUpdatedExample: Details = { ...subscriptionDetailsExample, ...subscriptionUpdateExample };

export const subscriptionCancelledExample: Static<typeof Subscription> = {
  ...subscriptionListExample.data[0]!,
  cancel_effective_date: '2026-04-01',
  cancellation_reason: 'Moving to the annual contract',
};

/** On 2026-03-15, 1 seat became 5: the 1-seat row ends that day and a 5-seat row starts. */
export const slotsChangedExample: Details = {
  ...subscriptionDetailsExample,
  mrr: '99.00',
  components: [platformRow, { ...oneSeatRow, effective_to: '2026-03-15' }, seats('sub_price_01KKRNW4G0WPRK9CYTX0HB6Z79', 5, '2026-03-15', null), apiCallsRow],
};

const supportRow = {
  id: SUBSCRIPTION_ADD_ON_ID, add_on_id: ADD_ON_ID, name: 'Priority support', period: 'MONTHLY' as const, quantity: 2,
  fee: { type: 'RATE' as const, rate: '29.00' }, effective_from: '2026-03-15', effective_to: null,
};

/** Two "Priority support" add-ons at 29.00 a month added on 2026-03-15. */
export const addOnAddedExample: Details = { ...subscriptionDetailsExample, mrr: '117.00', add_ons: [supportRow] };

/** Lowered from 2 to 1 on 2026-03-15: the lower quantity starts at the period end. */
export const addOnChangedExample: Details = {
  ...addOnAddedExample,
  add_ons: [{ ...supportRow, effective_to: '2026-04-01' }, { ...supportRow, id: 'sub_add_01KKV88VG0V97E8JYNKYAPYF3C', quantity: 1, effective_from: '2026-04-01' }],
};

/** Removed at the end of the current period. */
export const addOnRemovedExample: Details = { ...addOnAddedExample, add_ons: [{ ...supportRow, effective_to: '2026-04-01' }] };

export const changePlanExample = { plan_id: BUSINESS_PLAN_ID, timing: 'END_OF_PERIOD' as const };

/** Business from 2026-04-01: today's rows end then and the new plan's rows start. */
export const planChangeScheduledExample: Details = {
  ...subscriptionDetailsExample,
  scheduled_plan_change: { plan_version_id: BUSINESS_VERSION_ID, effective_date: '2026-04-01' },
  components: [
    { ...platformRow, effective_to: '2026-04-01' },
    platform('sub_price_01KKV88VG0NHBRXMAF7JE569NC', 'price_01KKV88VG0S5DZ4K3E865N8S5W', '99.00', '2026-04-01', null),
    { ...oneSeatRow, effective_to: '2026-04-01' },
    { ...seats('sub_price_01KKV88VG0FP44DTT4HTD9FFNA', 1, '2026-04-01', null), price_component_id: 'price_01KKV88VG098VX8EYEKRMHKG34' },
    { ...apiCallsRow, effective_to: '2026-04-01' },
    { ...apiCalls('sub_price_01KKV88VG0Q2C7ZK1T8W3D5M6H', '2026-04-01', null), price_component_id: 'price_01KKV88VG0B5X1RZP7NQ2H4K9M' },
  ],
};
