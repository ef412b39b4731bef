import { Type, type Static } from 'typebox';
import { iso, isoOrNull, Nullable, MAX_NET_TERMS_DAYS, MAX_TRIAL_DAYS } from '../../http/schemas.js';
import { AddOnRequest, PaymentMethodsConfig, PriceComponentsRequest } from '../subscriptions/index.js';
import { CHECKOUT_STATUSES, type SessionRow } from './repository.js';

export { CHECKOUT_STATUSES };

const DateField = (description?: string) => Type.Optional(Nullable(Type.String({ format: 'date', ...(description ? { description } : {}) })));

export const CreateCheckoutSessionRequest = Type.Object({
  customer_id: Type.String({ minLength: 1, description: 'Customer ID or alias' }),
  plan_version_id: Type.String({ minLength: 1, description: 'A published plan version (plv_...)' }),
  start_date: DateField('Ours: first day of the subscription; omitted, the day the session completes. Not in the past.'),
  billing_start_date: DateField(),
  billing_day_anchor: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 31 }))),
  net_terms: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_NET_TERMS_DAYS }))),
  trial_duration_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_TRIAL_DAYS, description: "Overrides the plan's trial; 0 = no trial" }))),
  end_date: DateField(),
  add_ons: Type.Optional(Nullable(Type.Array(AddOnRequest))),
  components: Type.Optional(Nullable(PriceComponentsRequest)),
  coupon_code: Type.Optional(Nullable(Type.String())),
  coupon_ids: Type.Optional(Type.Array(Type.String())),
  success_url: Type.Optional(Nullable(Type.String({ description: 'Where the checkout page sends the customer after paying' }))),
  cancel_url: Type.Optional(Nullable(Type.String({ description: 'Where the checkout page sends the customer who gives up' }))),
  payment_methods_config: Type.Optional(Nullable(PaymentMethodsConfig)),
  expires_in_hours: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'Default 1 hour; 0 = never expires' }))),
  invoice_memo: Type.Optional(Nullable(Type.String())),
  purchase_order: Type.Optional(Nullable(Type.String())),
  auto_advance_invoices: Type.Optional(Nullable(Type.Boolean())),
  charge_automatically: Type.Optional(Nullable(Type.Boolean())),
  metadata: Type.Optional(Type.Unknown({ description: 'Free JSON, stored, not returned' })),
}, { additionalProperties: false });

export const CompleteCheckoutSessionRequest = Type.Object({
  payment_status: Type.Optional(Type.Enum(['SETTLED', 'PENDING'], { description: 'SETTLED (default) creates the subscription; PENDING moves the session to AWAITING_PAYMENT' })),
  payment_reference: Type.Optional(Nullable(Type.String({ maxLength: 255, description: "The payment provider's reference, kept on the session" }))),
}, { additionalProperties: false });

export const CheckoutSession = Type.Object({
  id: Type.String(),
  checkout_type: Type.Enum(['SELF_SERVE', 'SUBSCRIPTION_ACTIVATION', 'PLAN_CHANGE', 'ADDON_PURCHASE']),
  status: Type.Enum(CHECKOUT_STATUSES),
  customer_id: Type.String(),
  plan_version_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  subscription_id: Nullable(Type.String()),
  start_date: Nullable(Type.String({ format: 'date' })),
  billing_day_anchor: Nullable(Type.Integer()),
  billing_start_date: Nullable(Type.String({ format: 'date' })),
  net_terms: Nullable(Type.Integer()),
  trial_duration_days: Nullable(Type.Integer()),
  coupon_code: Nullable(Type.String()),
  coupon_ids: Type.Array(Type.String()),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'null = never expires' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  cancelled_at: Nullable(Type.String({ format: 'date-time' })),
  checkout_url: Nullable(Type.String({ description: 'The hosted checkout page (PUBLIC_BASE_URL or this request\'s origin, then /checkout/{token}) while the session can be completed; null once COMPLETED, CANCELLED or EXPIRED' })),
  success_url: Nullable(Type.String()),
  cancel_url: Nullable(Type.String()),
  payment_methods_config: Nullable(PaymentMethodsConfig),
  payment_reference: Nullable(Type.String()),
});

export const SessionResponse = Type.Object({ session: CheckoutSession });

/** `checkoutUrl`: the hosted page while the session can be completed (service.checkoutUrlOf), else null. */
export function sessionToWire(s: SessionRow, checkoutUrl: string | null = null) {
  return {
    id: s.id, checkout_type: s.checkout_type, status: s.status, customer_id: s.customer_id, plan_version_id: s.plan_version_id,
    created_at: iso(s.created_at), subscription_id: s.subscription_id, start_date: s.start_date, billing_day_anchor: s.billing_day_anchor,
    billing_start_date: s.billing_start_date, net_terms: s.net_terms, trial_duration_days: s.trial_duration_days, coupon_code: s.coupon_code,
    coupon_ids: s.coupon_ids, expires_at: isoOrNull(s.expires_at), completed_at: isoOrNull(s.completed_at), cancelled_at: isoOrNull(s.cancelled_at),
    checkout_url: checkoutUrl, success_url: s.success_url, cancel_url: s.cancel_url, payment_methods_config: s.payment_methods_config as Static<typeof PaymentMethodsConfig> | null,
    payment_reference: s.payment_reference,
  };
}
