// Stripe behind the payment provider port, through the official SDK (docs/payments.md, "Stripe").
// Off-session charges are PaymentIntents confirmed at once on a saved method; methods are saved
// with SetupIntents (usage off_session); webhooks are verified with the SDK's signature check.
// SEPA Direct Debit: an IBAN becomes a `sepa_debit` PaymentMethod whose SetupIntent carries the
// mandate (https://docs.stripe.com/payments/sepa-debit/set-up-payment); its charges answer
// `processing` (PENDING here) and settle days later by webhook.
// The SDK is a type here: it is imported, and its client built, at the provider's first call
// (docs/performance.md, "Memory"), so a server that never talks to Stripe never loads it.
import type Stripe from 'stripe';
import { atFirstUse } from '../../kernel/lazy.js';
import {
  ProviderAuthenticationError, WebhookSignatureError,
  type ChargeRequest, type PaymentProvider, type ProviderEvent, type ProviderPayment, type ProviderPaymentStatus, type SetupResult,
} from './provider.js';

/** The Stripe API version requests are pinned to: the one the pinned SDK (stripe 23.1.0) is generated for. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

export interface StripeAdapterOptions {
  secretKey: string;
  /** Webhook signing secret (`whsec_...`); without it webhooks are refused. */
  webhookSecret: string | null;
  /** API base, e.g. `https://api.stripe.com` (default) or a local fake's `http://127.0.0.1:PORT`. */
  apiBase: string;
}

/** An IBAN as the save-method API takes it (spaces removed): the SEPA path, not a PaymentMethod id. */
const IBAN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;
const STRIPE_ID = /^[a-z]+_[A-Za-z0-9_]+$/;

/** `requires_action` and friends, mapped onto our four statuses. */
function statusOf(intent: Stripe.PaymentIntent): ProviderPaymentStatus {
  switch (intent.status) {
    case 'succeeded':
      return 'SUCCEEDED';
    case 'requires_action':
    case 'requires_confirmation':
      return 'REQUIRES_ACTION';
    case 'requires_payment_method':
    case 'canceled':
      // an off-session charge the card refused for want of authentication can still be paid by the customer on-session
      return intent.last_payment_error?.code === 'authentication_required' ? 'REQUIRES_ACTION' : 'FAILED';
    default:
      return 'PENDING';
  }
}

function toPayment(intent: Stripe.PaymentIntent): ProviderPayment {
  const error = intent.last_payment_error;
  return {
    id: intent.id,
    status: statusOf(intent),
    amountMinor: BigInt(intent.amount),
    currency: intent.currency.toUpperCase(),
    failureCode: error ? (error.code ?? error.decline_code ?? 'payment_failed') : null,
    failureMessage: error?.message ?? null,
    metadata: { ...(intent.metadata ?? {}) },
  };
}

export function createStripeProvider(options: StripeAdapterOptions): PaymentProvider {
  const base = new URL(options.apiBase);
  /** The SDK and the client, built once at the first call. */
  const sdk = atFirstUse(async () => {
    const { default: Sdk } = await import('stripe');
    const stripe = new Sdk(options.secretKey, {
      apiVersion: STRIPE_API_VERSION as Stripe.LatestApiVersion,
      host: base.hostname,
      port: Number(base.port || (base.protocol === 'http:' ? 80 : 443)),
      protocol: base.protocol === 'http:' ? 'http' : 'https',
      // retries are ours (same idempotency key); the SDK's own would hide a crash window
      maxNetworkRetries: 0,
      telemetry: false,
      timeout: 30_000,
    });
    return { Sdk, stripe };
  });

  /**
   * Saves an IBAN: a sepa_debit PaymentMethod (Stripe requires the holder's name and e-mail), then a
   * SetupIntent confirmed with mandate_data so Stripe records the mandate. The mandate was collected
   * by the merchant (our API or form), not in Stripe.js, so its acceptance is `offline`.
   */
  async function setupSepaDebit(stripe: Stripe, customerId: string, iban: string, idempotencyKey: string, name: string, email: string): Promise<SetupResult> {
    if (!IBAN.test(iban)) {
      return { status: 'FAILED', failureCode: 'invalid_bank_account_iban', failureMessage: `iban must be an IBAN (2 letters, 2 check digits, 11 to 30 letters or digits), e.g. "DE89370400440532013000"` };
    }
    const pm = await stripe.paymentMethods.create(
      { type: 'sepa_debit', sepa_debit: { iban }, billing_details: { name, email } },
      { idempotencyKey: `${idempotencyKey}:pm` },
    );
    const intent = await stripe.setupIntents.create(
      {
        customer: customerId, payment_method: pm.id, allowed_payment_method_types: ['sepa_debit'], confirm: true, usage: 'off_session',
        mandate_data: { customer_acceptance: { type: 'offline' } },
      },
      { idempotencyKey },
    );
    if (intent.status !== 'succeeded') {
      return { status: 'FAILED', failureCode: intent.last_setup_error?.code ?? 'setup_failed', failureMessage: intent.last_setup_error?.message ?? `the SEPA mandate setup is ${intent.status}` };
    }
    const mandateId = typeof intent.mandate === 'string' ? intent.mandate : intent.mandate?.id;
    const mandate = mandateId ? await stripe.mandates.retrieve(mandateId) : null;
    return {
      status: 'SUCCEEDED',
      method: {
        id: pm.id, type: 'DIRECT_DEBIT', cardBrand: null, cardLast4: null, expMonth: null, expYear: null,
        // Stripe debits under the SEPA Core scheme only; named as GoCardless names it
        directDebit: { scheme: 'sepa_core', bankName: null, accountNumberEnding: pm.sepa_debit?.last4 ?? null, mandateReference: mandate?.payment_method_details.sepa_debit?.reference ?? null },
      },
    };
  }

  return {
    name: 'stripe',
    async verify() {
      const { Sdk, stripe } = await sdk();
      try {
        await stripe.balance.retrieve();
      } catch (error) {
        if (error instanceof Sdk.errors.StripeAuthenticationError || error instanceof Sdk.errors.StripePermissionError) {
          throw new ProviderAuthenticationError(error.message);
        }
        throw error;
      }
    },
    async createCustomer({ name, email, reference, idempotencyKey }) {
      const { stripe } = await sdk();
      const customer = await stripe.customers.create({ name, ...(email ? { email } : {}), metadata: { billing_customer_id: reference } }, { idempotencyKey });
      return { id: customer.id };
    },
    async setupPaymentMethod({ customerId, method, idempotencyKey, holderName, billingEmail }): Promise<SetupResult> {
      const { Sdk, stripe } = await sdk();
      try {
        // Stripe's object ids are `prefix_...`; anything else is an IBAN the API was given
        if (!STRIPE_ID.test(method)) return await setupSepaDebit(stripe, customerId, method, idempotencyKey, holderName ?? '', billingEmail ?? '');
        const intent = await stripe.setupIntents.create(
          { customer: customerId, payment_method: method, confirm: true, usage: 'off_session' },
          { idempotencyKey },
        );
        if (intent.status !== 'succeeded') {
          return { status: 'REQUIRES_ACTION', failureCode: 'authentication_required', failureMessage: `the setup is ${intent.status}; the customer must complete it` };
        }
        const pm = await stripe.paymentMethods.retrieve(typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method!.id);
        return {
          status: 'SUCCEEDED',
          method: { id: pm.id, type: 'CARD', cardBrand: pm.card?.brand ?? null, cardLast4: pm.card?.last4 ?? null, expMonth: pm.card?.exp_month ?? null, expYear: pm.card?.exp_year ?? null },
        };
      } catch (error) {
        if (error instanceof Sdk.errors.StripeCardError) {
          return { status: 'FAILED', failureCode: error.code ?? error.decline_code ?? 'card_error', failureMessage: error.message };
        }
        // Stripe refuses a malformed IBAN as an invalid request on `sepa_debit[iban]`: the payer's mistake, not ours
        if (error instanceof Sdk.errors.StripeInvalidRequestError && error.param?.startsWith('sepa_debit')) {
          return { status: 'FAILED', failureCode: error.code ?? 'invalid_iban', failureMessage: error.message };
        }
        throw error;
      }
    },
    async charge(request: ChargeRequest) {
      const { Sdk, stripe } = await sdk();
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: Number(request.amountMinor),
            currency: request.currency.toLowerCase(),
            customer: request.customerId,
            payment_method: request.paymentMethodId,
            // a SEPA debit must be allowed by name (the pinned API's allowed_payment_method_types, formerly payment_method_types); cards keep the account's defaults
            ...(request.methodType === 'DIRECT_DEBIT' ? { allowed_payment_method_types: ['sepa_debit' as const] } : {}),
            off_session: true,
            confirm: true,
            description: request.description,
            metadata: request.metadata,
          },
          { idempotencyKey: request.idempotencyKey },
        );
        return toPayment(intent);
      } catch (error) {
        // a decline is an answer: Stripe puts the PaymentIntent it created on the error
        if (error instanceof Sdk.errors.StripeError && error.type === 'StripeCardError' && error.payment_intent) return toPayment(error.payment_intent);
        throw error;
      }
    },
    async getPayment(paymentId) {
      const { stripe } = await sdk();
      return toPayment(await stripe.paymentIntents.retrieve(paymentId));
    },
    async refund({ paymentId, amountMinor, idempotencyKey }) {
      const { stripe } = await sdk();
      const refund = await stripe.refunds.create({ payment_intent: paymentId, amount: Number(amountMinor) }, { idempotencyKey });
      const status = refund.status === 'succeeded' ? 'SUCCEEDED' : refund.status === 'failed' || refund.status === 'canceled' ? 'FAILED' : 'PENDING';
      return { id: refund.id, paymentId, status, amountMinor: BigInt(refund.amount) };
    },
    async parseWebhook(rawBody, headers): Promise<ProviderEvent[]> {
      if (!options.webhookSecret) throw new WebhookSignatureError('this connection has no webhook secret');
      const signature = headers['stripe-signature'];
      if (typeof signature !== 'string') throw new WebhookSignatureError('missing Stripe-Signature header');
      const { stripe } = await sdk();
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, options.webhookSecret);
      } catch (error) {
        throw new WebhookSignatureError(error instanceof Error ? error.message : 'signature does not verify');
      }
      const object = event.data.object as { object?: string };
      const payment = object.object === 'payment_intent' ? toPayment(object as Stripe.PaymentIntent) : null;
      return [{ id: event.id, type: event.type, payment, paymentId: payment?.id ?? null }];
    },
  };
}
