import { Type, type Static } from 'typebox';
import { iso, isoOrNull, Nullable, MAX_NET_TERMS_DAYS, MAX_TRIAL_DAYS } from '../../http/schemas.js';
import { formatMinor } from '../../kernel/money.js';
import { shownSubscriptionStatus, SUBSCRIPTION_STATUSES } from '../../domain/index.js';
import { currentPeriodOf } from './schedule.js';
import { EntitlementSchema } from '../features/index.js';
import { BILLING_TERMS, UsageThresholdsSchema } from '../plans/index.js';
import type { SubscriptionDetailsData } from './service.js';
import type { SubscriptionView } from './repository.js';
import { CustomPropertiesInput, CustomPropertiesOutput } from '../custom-properties/index.js';

const FeeTerms = ['ONE_TIME', ...BILLING_TERMS] as const;
const Params = Type.Object({
  billing_period: Type.Optional(Nullable(Type.Enum(BILLING_TERMS))),
  committed_capacity: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  initial_slot_count: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
}, { additionalProperties: false });
const FeeOverride = Type.Object({
  type: Type.Enum(['RATE', 'SLOT', 'CAPACITY', 'RECURRING', 'ONE_TIME']),
  rate: Type.Optional(Type.String()),
  unit_rate: Type.Optional(Type.String()),
  overage_rate: Type.Optional(Type.String()),
}, { additionalProperties: false, description: 'New price(s) for the component, same type as its fee; decimal strings' });
export const AddOnRequest = Type.Object({
  add_on_id: Type.String(),
  quantity: Type.Optional(Type.Integer({ minimum: 1 })),
  customization: Type.Optional(Nullable(Type.Object({
    type: Type.Optional(Type.Literal('PARAMETERIZATION')),
    billing_period: Type.Optional(Nullable(Type.Enum(BILLING_TERMS))),
    committed_capacity: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    initial_slot_count: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  }, { additionalProperties: false }))),
}, { additionalProperties: false });
const MethodToggle = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
/** Reference PaymentMethodsConfig: online {config: {card, direct_debit}}, bank_transfer {account_id}, or external. */
export const PaymentMethodsConfig = Type.Object({
  type: Type.Enum(['online', 'bank_transfer', 'external']),
  config: Type.Optional(Nullable(Type.Object({ card: Type.Optional(MethodToggle), direct_debit: Type.Optional(MethodToggle) }, { additionalProperties: false }))),
  account_id: Type.Optional(Nullable(Type.String())),
}, { additionalProperties: false });

/** Choices, price overrides and removals of the plan's components (subscription creation, checkout). */
export const PriceComponentsRequest = Type.Object({
  parameterized_components: Type.Optional(Type.Array(Type.Object({ component_id: Type.String(), parameters: Params }, { additionalProperties: false }))),
  overridden_components: Type.Optional(Type.Array(Type.Object({ component_id: Type.String(), name: Type.Optional(Nullable(Type.String())), fee: FeeOverride }, { additionalProperties: false }))),
  remove_components: Type.Optional(Type.Array(Type.String())),
}, { additionalProperties: false });

const NetTerms = Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_NET_TERMS_DAYS })));
/** How a subscription's invoices are issued and paid: set at creation, changeable later. */
const invoicingFields = {
  invoice_memo: Type.Optional(Nullable(Type.String())),
  purchase_order: Type.Optional(Nullable(Type.String())),
  auto_advance_invoices: Type.Optional(Nullable(Type.Boolean())),
  charge_automatically: Type.Optional(Nullable(Type.Boolean())),
  payment_methods_config: Type.Optional(Nullable(PaymentMethodsConfig)),
};

export const SubscriptionCreateRequest = Type.Object({
  customer_id_or_alias: Type.String({ minLength: 1 }),
  plan_id: Type.Optional(Type.String()),
  plan_version_id: Type.Optional(Type.String({ description: 'A specific version; otherwise plan_id with optional version, default the published one' })),
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  start_date: Type.String({ format: 'date' }),
  end_date: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  billing_start_date: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  billing_day_anchor: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 31 }))),
  net_terms: NetTerms,
  trial_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_TRIAL_DAYS }))),
  activation_condition: Type.Optional(Type.Enum(['ON_START', 'ON_CHECKOUT', 'MANUAL'])),
  coupon_codes: Type.Optional(Type.Array(Type.String())),
  add_ons: Type.Optional(Type.Array(AddOnRequest)),
  price_components: Type.Optional(Nullable(PriceComponentsRequest)),
  skip_past_invoices: Type.Optional(Type.Boolean({ description: 'false: invoices are generated for past periods from start_date; true: start at the current period, nothing billed for the past' })),
  usage_thresholds: Type.Optional(Nullable({ ...UsageThresholdsSchema, description: 'Spend thresholds (progressive billing); omitted on creation: the plan version\'s; [] or null: none' })),
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
  ...invoicingFields,
}, { additionalProperties: false });

/** The body of change-plan (and of its preview, in invoices). */
export const ChangePlanRequest = Type.Object({
  plan_id: Type.Optional(Type.String()),
  plan_version_id: Type.Optional(Type.String()),
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  timing: Type.Optional(Type.Enum(['IMMEDIATE', 'END_OF_PERIOD'])),
  price_components: Type.Optional(Nullable(PriceComponentsRequest)),
}, { additionalProperties: false });

export const SubscriptionUpdateRequest = Type.Object({
  net_terms: NetTerms,
  ...invoicingFields,
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
  usage_thresholds: Type.Optional(Nullable({ ...UsageThresholdsSchema, description: 'Spend thresholds (progressive billing); omitted on creation: the plan version\'s; [] or null: none' })),
}, { additionalProperties: false });

export const CancelSubscriptionRequest = Type.Object({
  effective_date: Type.Optional(Nullable(Type.String({ format: 'date', description: 'Omitted: the end of the current billing period' }))),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
}, { additionalProperties: false });

const Dimension = Type.Object({ key: Type.String(), value: Type.String() });
/** The plan's usage pricing, as frozen on the subscription (same field names as the reference's model). */
const UsageModel = Type.Object({
  type: Type.String(),
  rate: Type.Optional(Type.String()),
  block_size: Type.Optional(Nullable(Type.Integer())),
  rounding: Type.Optional(Type.String()),
  tiers: Type.Optional(Type.Array(Type.Object({ first_unit: Type.Integer(), rate: Type.String(), flat_fee: Nullable(Type.String()), flat_cap: Nullable(Type.String()) }))),
  rates: Type.Optional(Type.Array(Type.Object({ dimension1: Dimension, dimension2: Nullable(Dimension), per_unit_price: Type.String() }))),
});
/** Reference SubscriptionFee, tagged by type: RATE, SLOT, CAPACITY, USAGE, RECURRING, ONE_TIME; prices are decimal strings. */
const Fee = Type.Object({
  type: Type.Enum(['RATE', 'SLOT', 'CAPACITY', 'USAGE', 'RECURRING', 'ONE_TIME']),
  rate: Type.Optional(Type.String()),
  quantity: Type.Optional(Type.Integer()),
  billing_type: Type.Optional(Type.Enum(['ADVANCE', 'ARREARS'])),
  included: Type.Optional(Type.Integer()),
  overage_rate: Type.Optional(Type.String()),
  metric_id: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
  unit_rate: Type.Optional(Type.String()),
  initial_slots: Type.Optional(Type.Integer()),
  min_slots: Type.Optional(Nullable(Type.Integer())),
  max_slots: Type.Optional(Nullable(Type.Integer())),
  model: Type.Optional(UsageModel),
});
/** The coupon as applied (frozen), reference Coupon fields. */
const AppliedCouponSnapshot = Type.Object({
  id: Type.String(),
  code: Type.String(),
  description: Nullable(Type.String()),
  discount: Type.Object({ type: Type.Enum(['PERCENTAGE', 'FIXED']), percentage: Type.Optional(Type.String()), amount: Type.Optional(Type.String()), currency: Type.Optional(Type.String()) }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  redemption_limit: Nullable(Type.Integer()),
  recurring_value: Nullable(Type.Integer()),
  reusable: Type.Boolean(),
  disabled: Type.Boolean(),
  plan_ids: Type.Optional(Type.Array(Type.String())),
});
const Dated = { effective_from: Type.String({ format: 'date' }), effective_to: Nullable(Type.String({ format: 'date' })) };

const listFields = {
  id: Type.String(),
  customer_id: Type.String(),
  customer_name: Type.String(),
  customer_alias: Nullable(Type.String()),
  plan_id: Type.String(),
  plan_name: Type.String(),
  plan_description: Nullable(Type.String()),
  plan_version: Type.Integer(),
  plan_version_id: Type.String(),
  currency: Type.String(),
  status: Type.Enum([...SUBSCRIPTION_STATUSES, 'PAST_DUE'], { description: 'PAST_DUE: running (ACTIVE or in trial) with an overdue invoice that automatic payment failed to collect; it returns when the invoice is paid' }),
  start_date: Type.String({ format: 'date' }),
  end_date: Nullable(Type.String({ format: 'date' })),
  billing_start_date: Nullable(Type.String({ format: 'date' })),
  billing_day_anchor: Type.Integer(),
  current_period_start: Type.String({ format: 'date' }),
  current_period_end: Nullable(Type.String({ format: 'date' })),
  period: Type.Enum(BILLING_TERMS),
  net_terms: Type.Integer(),
  trial_duration: Nullable(Type.Integer()),
  invoice_memo: Nullable(Type.String()),
  purchase_order: Nullable(Type.String()),
  auto_advance_invoices: Type.Boolean(),
  charge_automatically: Type.Boolean(),
  payment_methods_config: Nullable(PaymentMethodsConfig),
  mrr: Type.String({ description: 'Monthly recurring revenue, decimal string in the subscription currency' }),
  created_at: Type.String({ format: 'date-time' }),
  activated_at: Nullable(Type.String({ format: 'date-time' })),
  cancel_effective_date: Nullable(Type.String({ format: 'date' })),
  cancellation_reason: Nullable(Type.String()),
  custom_properties: CustomPropertiesOutput,
};

export const Subscription = Type.Object(listFields);

export const SubscriptionDetails = Type.Object({
  ...listFields,
  trial_is_free: Type.Boolean(),
  trialing_plan_id: Nullable(Type.String()),
  skip_past_invoices: Type.Boolean(),
  usage_thresholds: UsageThresholdsSchema,
  next_invoice_date: Nullable(Type.String({ format: 'date', description: 'The day the billing run will issue the next invoice (the engine decides which boundaries have something to bill); null when no invoice will come' })),
  scheduled_plan_change: Nullable(Type.Object({ plan_version_id: Type.String(), effective_date: Type.String({ format: 'date' }) })),
  checkout_url: Nullable(Type.String()),
  components: Type.Array(Type.Object({ id: Type.String(), price_component_id: Nullable(Type.String()), product_id: Nullable(Type.String()), name: Type.String(), period: Type.Enum(FeeTerms), fee: Fee, ...Dated })),
  add_ons: Type.Array(Type.Object({ id: Type.String(), add_on_id: Type.String(), name: Type.String(), period: Type.Enum(FeeTerms), quantity: Type.Integer(), fee: Fee, ...Dated })),
  applied_coupons: Type.Array(Type.Object({
    applied_coupon: Type.Object({ id: Type.String(), coupon_id: Type.String(), is_active: Type.Boolean(), applied_count: Nullable(Type.Integer()), applied_amount: Nullable(Type.String()), last_applied_at: Nullable(Type.String()), created_at: Type.String() }),
    coupon: AppliedCouponSnapshot,
  })),
  entitlements: Type.Array(EntitlementSchema, { description: 'Entitlement values set on this subscription (the highest priority); see GET .../entitlements for the effective ones' }),
});

export function subscriptionToWire(sub: SubscriptionView, todayDate: string) {
  const current = currentPeriodOf(sub, todayDate);
  return {
    id: sub.id, customer_id: sub.customer_id, customer_name: sub.customer_name, customer_alias: sub.customer_alias, plan_id: sub.plan_id,
    plan_name: sub.plan_name, plan_description: sub.plan_description ?? null, plan_version: sub.plan_version, plan_version_id: sub.plan_version_id, currency: sub.currency, status: shownSubscriptionStatus(sub.status, sub.past_due_since !== null),
    start_date: sub.start_date, end_date: sub.end_date, billing_start_date: sub.billing_start_date, billing_day_anchor: sub.billing_day_anchor,
    current_period_start: current.start, current_period_end: current.end, period: sub.period, net_terms: sub.net_terms,
    trial_duration: sub.trial_duration_days, invoice_memo: sub.invoice_memo, purchase_order: sub.purchase_order,
    auto_advance_invoices: sub.auto_advance_invoices, charge_automatically: sub.charge_automatically, payment_methods_config: sub.payment_methods_config as Static<typeof PaymentMethodsConfig> | null,
    mrr: formatMinor(sub.mrr_minor, sub.currency), created_at: iso(sub.created_at), activated_at: isoOrNull(sub.activated_at),
    cancel_effective_date: sub.cancel_effective_date, cancellation_reason: sub.cancellation_reason, custom_properties: sub.custom_properties,
  };
}

export function detailsToWire(d: SubscriptionDetailsData) {
  const base = subscriptionToWire(d.subscription, d.today);
  const sub = d.subscription;
  return {
    ...base,
    trial_is_free: sub.trial_is_free,
    trialing_plan_id: sub.trialing_plan_id,
    skip_past_invoices: sub.skip_past_invoices,
    usage_thresholds: sub.usage_thresholds ?? [],
    next_invoice_date: d.nextInvoiceDate,
    scheduled_plan_change: sub.scheduled_plan_change ? { plan_version_id: sub.scheduled_plan_change.plan_version_id, effective_date: sub.scheduled_plan_change.effective_date } : null,
    checkout_url: null,
    components: d.components.map((c) => ({ id: c.id, price_component_id: c.price_component_id, product_id: c.product_id, name: c.name, period: c.period, fee: c.fee as Static<typeof Fee>, effective_from: c.effective_from, effective_to: c.effective_to })),
    add_ons: d.addOns.map((a) => ({ id: a.id, add_on_id: a.add_on_id, name: a.name, period: a.period, quantity: a.quantity, fee: a.fee as Static<typeof Fee>, effective_from: a.effective_from, effective_to: a.effective_to })),
    applied_coupons: d.coupons.map((c) => ({
      applied_coupon: { id: c.id, coupon_id: c.coupon_id, is_active: c.is_active, applied_count: c.applied_count, applied_amount: c.applied_amount, last_applied_at: isoOrNull(c.last_applied_at), created_at: iso(c.created_at) },
      coupon: c.coupon as Static<typeof AppliedCouponSnapshot>,
    })),
    entitlements: d.entitlements.map((e) => ({ id: e.id, feature_id: e.feature_id, value: e.value, created_at: iso(e.created_at), updated_at: iso(e.updated_at) })),
  };
}
