// Wire shapes of the payments API (docs/payments.md); amounts are decimal strings.
import { Type } from 'typebox';
import { formatMinor } from '../../kernel/money.js';
import { DecimalString, isoOrNull, iso, Nullable } from '../../http/schemas.js';
import type { AttemptRow, ConnectionRow, CustomerSettingsRow, PaymentMethodRow } from './repository.js';

export const CONNECTION_ID = 'ppc_01KPB3S6M2A7C4QZ9W1XK8D5TE';
export const METHOD_ID = 'pm_01KPB3T0Q4M8Z2C6V9W1XK8D5T';
export const ATTEMPT_ID = 'ptx_01KPB3V7N5B3C6QZ9W1XK8D5TF';
export const CUSTOMER_ID = 'cus_01KPB3R8H5N2C4QZ9W1XK8D5TA';
export const INVOICE_ID = 'inv_01KPB3S2J8M6C4QZ9W1XK8D5TB';

export const ConnectRequest = Type.Object({
  provider: Type.String({ enum: ['stripe', 'gocardless'], description: 'The provider to connect; sandbox tenants use the built-in sandbox provider and connect nothing' }),
  secret_key: Type.String({ minLength: 1, maxLength: 255, description: 'Stripe secret or restricted key (sk_live_..., sk_test_..., rk_...), or GoCardless access token (live_..., sandbox_...); stored encrypted, never shown again' }),
  webhook_secret: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Signing secret of the Stripe webhook endpoint (whsec_...), or secret of the GoCardless webhook endpoint, you create for `webhook_path`' }))),
  publishable_key: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Stripe only: the publishable key (pk_live_..., pk_test_...) Stripe Elements needs on the hosted checkout page; public, stored in clear and shown' }))),
}, { additionalProperties: false });

export const Connection = Type.Object({
  id: Type.String({ description: 'Connection id', examples: [CONNECTION_ID] }),
  provider: Type.String({ enum: ['stripe', 'gocardless'] }),
  secret_key_hint: Type.String({ description: 'Prefix and last four characters of the secret key' }),
  has_webhook_secret: Type.Boolean(),
  publishable_key: Nullable(Type.String({ description: 'Stripe\'s publishable key (public), used by Stripe Elements on the hosted checkout page' })),
  status: Type.String({ enum: ['UNVERIFIED', 'VERIFIED', 'INVALID'], description: 'UNVERIFIED until the verify action asked the provider' }),
  last_error: Nullable(Type.String({ description: 'Why the last verification failed' })),
  verified_at: Nullable(Type.String({ format: 'date-time' })),
  webhook_path: Type.String({ description: 'Where the provider must send its webhooks, under this service\'s base URL' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const connectionExample = {
  id: CONNECTION_ID, provider: 'stripe', secret_key_hint: 'sk_live_...4f2A', has_webhook_secret: true, publishable_key: 'pk_live_51HxAmPlE0000000000004f2A', status: 'VERIFIED', last_error: null,
  verified_at: '2026-04-01T09:30:00.000Z', webhook_path: `/api/v1/payment-providers/${CONNECTION_ID}/webhooks`, created_at: '2026-04-01T09:29:12.000Z',
};

export function connectionToWire(row: ConnectionRow) {
  return {
    id: row.id, provider: row.provider, secret_key_hint: row.secret_key_hint, has_webhook_secret: row.webhook_secret_sealed !== null, publishable_key: row.publishable_key,
    status: row.status, last_error: row.last_error, verified_at: isoOrNull(row.verified_at), webhook_path: `/api/v1/payment-providers/${row.id}/webhooks`,
    created_at: iso(row.created_at),
  };
}

export const AttachMethodRequest = Type.Object({
  card_number: Type.Optional(Type.String({ pattern: '^[0-9 -]{12,23}$', description: 'Sandbox provider only: a test card number (4242424242424242 succeeds, 4000000000000002 is declined, 4000002500003155 needs authentication, 4000000000000077 succeeds after 60 s)' })),
  provider_payment_method_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Stripe only: the PaymentMethod id Stripe.js created in the customer\'s browser (pm_...)' })),
  iban: Type.Optional(Type.String({ minLength: 15, maxLength: 42, description: 'GoCardless and Stripe (SEPA Direct Debit; the customer needs a billing_email): the IBAN to debit; a mandate is created on it, e.g. "DE89370400440532013000"' })),
  mandate_id: Type.Optional(Type.String({ pattern: '^MD[0-9A-Z]+$', description: 'GoCardless only: a mandate of this customer made in GoCardless\'s own flow, e.g. "MD000123ABC"' })),
  account_holder_name: Type.Optional(Type.String({ minLength: 1, maxLength: 140, description: 'With iban: the bank account holder (default: the customer\'s name)' })),
  set_default: Type.Optional(Type.Boolean({ description: 'Make it the default method; the first method always becomes the default' })),
}, { additionalProperties: false });

export const PaymentMethod = Type.Object({
  id: Type.String({ examples: [METHOD_ID] }),
  customer_id: Type.String(),
  provider: Type.String({ enum: ['sandbox', 'stripe', 'gocardless'] }),
  payment_method_type: Type.String({ enum: ['CARD', 'DIRECT_DEBIT'] }),
  card_brand: Nullable(Type.String()),
  card_last4: Nullable(Type.String()),
  exp_month: Nullable(Type.Integer()),
  exp_year: Nullable(Type.Integer()),
  direct_debit: Nullable(Type.Object({
    scheme: Type.String({ description: 'The mandate\'s scheme, e.g. sepa_core, bacs' }),
    mandate_reference: Nullable(Type.String({ description: 'The reference the payer sees on bank statements' })),
    bank_name: Nullable(Type.String()),
    account_number_ending: Nullable(Type.String({ description: 'Last digits of the debited account' })),
  }, { description: 'DIRECT_DEBIT methods (a GoCardless mandate); null for cards' })),
  is_default: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

export const methodExample = {
  id: METHOD_ID, customer_id: CUSTOMER_ID, provider: 'sandbox', payment_method_type: 'CARD', card_brand: 'visa', card_last4: '4242', exp_month: 12, exp_year: 2031,
  direct_debit: null, is_default: true, created_at: '2026-04-01T09:31:00.000Z',
};

export function methodToWire(row: PaymentMethodRow, defaultId: string | null) {
  return {
    id: row.id, customer_id: row.customer_id, provider: row.provider, payment_method_type: row.method_type, card_brand: row.card_brand, card_last4: row.card_last4,
    exp_month: row.exp_month, exp_year: row.exp_year,
    direct_debit: row.method_type === 'DIRECT_DEBIT'
      ? { scheme: row.mandate_scheme ?? '', mandate_reference: row.mandate_reference, bank_name: row.bank_name, account_number_ending: row.account_number_ending }
      : null,
    is_default: row.id === defaultId, created_at: iso(row.created_at),
  };
}

export const Settings = Type.Object({
  auto_charge: Type.Boolean({ description: 'Charge finalized invoices automatically (default true)' }),
  default_payment_method_id: Nullable(Type.String({ description: 'The method charged', examples: [METHOD_ID] })),
});
export const SettingsRequest = Type.Object({
  auto_charge: Type.Optional(Type.Boolean({ description: 'false: finalized invoices wait for a manual payment' })),
  default_payment_method_id: Type.Optional(Nullable(Type.String({ description: 'A method of this customer, or null', examples: [METHOD_ID] }))),
}, { additionalProperties: false });
export const settingsExample = { auto_charge: true, default_payment_method_id: METHOD_ID };
export const settingsToWire = (row: CustomerSettingsRow) => ({ auto_charge: row.auto_charge, default_payment_method_id: row.default_payment_method_id });

export const PaymentTransaction = Type.Object({
  id: Type.String({ examples: [ATTEMPT_ID] }),
  invoice_id: Type.String(),
  amount: DecimalString('Amount asked of the provider, decimal string, e.g. "144.00"'),
  currency: Type.String(),
  status: Type.String({ enum: ['PENDING', 'SUCCEEDED', 'FAILED', 'REQUIRES_ACTION'] }),
  occasion: Type.String({ enum: ['FINALIZATION', 'PAY_PAGE', 'RETRY'], description: 'FINALIZATION: the charge at finalization; PAY_PAGE: paid by the customer on the hosted pay page; RETRY: a dunning retry' }),
  retry_number: Type.Integer({ description: 'n for the n-th dunning retry, else 0 (finalization charge, pay page)' }),
  provider: Type.String({ enum: ['sandbox', 'stripe', 'gocardless'] }),
  provider_transaction_id: Nullable(Type.String({ description: 'The provider\'s payment id (Stripe: PaymentIntent id)' })),
  payment_method_id: Nullable(Type.String()),
  payment_method_info: Nullable(Type.Object({ payment_method_type: Type.String(), card_brand: Nullable(Type.String()), card_last4: Nullable(Type.String()) })),
  error: Nullable(Type.String({ description: 'The provider\'s reason code of a failure or needed action, e.g. card_declined' })),
  error_message: Nullable(Type.String()),
  processed_at: Nullable(Type.String({ format: 'date-time', description: 'When it succeeded' })),
  created_at: Type.String({ format: 'date-time' }),
});

export const transactionExample = {
  id: ATTEMPT_ID, invoice_id: INVOICE_ID, amount: '144.00', currency: 'EUR', status: 'FAILED', occasion: 'FINALIZATION', retry_number: 0, provider: 'sandbox', provider_transaction_id: 'pi_sbx_d0_14400_EUR_3f1c2b7a9d0e4c11',
  payment_method_id: METHOD_ID, payment_method_info: { payment_method_type: 'CARD', card_brand: 'visa', card_last4: '0002' }, error: 'card_declined',
  error_message: 'Your card was declined.', processed_at: null, created_at: '2026-04-01T10:00:00.000Z',
};

export function transactionToWire(row: AttemptRow, methods: Map<string, PaymentMethodRow>) {
  const method = row.payment_method_id ? methods.get(row.payment_method_id) : undefined;
  return {
    id: row.id, invoice_id: row.invoice_id, amount: formatMinor(row.amount_minor, row.currency), currency: row.currency, status: row.status,
    occasion: row.occasion, retry_number: row.retry_number, provider: row.provider, provider_transaction_id: row.provider_payment_id, payment_method_id: row.payment_method_id,
    payment_method_info: method ? { payment_method_type: method.method_type, card_brand: method.card_brand, card_last4: method.card_last4 } : null,
    error: row.failure_code, error_message: row.failure_message, processed_at: isoOrNull(row.settled_at), created_at: iso(row.created_at),
  };
}
