// GoCardless (direct debit) behind the payment provider port, through the official SDK
// `gocardless-nodejs` (docs/payments.md, "GoCardless"). A saved method is a mandate on the
// customer's bank account; a charge is a payment against the mandate, PENDING until GoCardless
// collects it days later (pending_submission → submitted → confirmed → paid_out, or failed).
// Webhooks name the payment without its state, so the module looks the payment up.
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
// The SDK is a type here: it is imported, and its client built, at the provider's first call
// (docs/performance.md, "Memory"), so a server that never talks to GoCardless never loads it.
import type { Mandate, Payment } from 'gocardless-nodejs';
import { atFirstUse } from '../../kernel/lazy.js';
import {
  ProviderAuthenticationError, WebhookSignatureError,
  type ChargeRequest, type PaymentProvider, type ProviderEvent, type ProviderPayment, type ProviderPaymentStatus, type SetupResult,
} from './provider.js';

/**
 * The GoCardless API version the pinned SDK (gocardless-nodejs 10.1.2) sends as `GoCardless-Version`
 * (its `API_VERSION`; written out so that naming it does not load the SDK, and checked against it
 * by test/unit/adapters/payments/gocardless.test.ts).
 */
export const GOCARDLESS_API_VERSION = '2015-07-06';

type GoCardlessSdk = typeof import('gocardless-nodejs');
type GoCardlessClient = ReturnType<GoCardlessSdk['default']>;

const LIVE_BASE = 'https://api.gocardless.com';
const SANDBOX_BASE = 'https://api-sandbox.gocardless.com';

export interface GoCardlessAdapterOptions {
  /** Access token (`live_...` or `sandbox_...`). */
  accessToken: string;
  /** Secret of the webhook endpoint; without it webhooks are refused. */
  webhookSecret: string | null;
  /**
   * API base. Empty: by the token (`sandbox_...` → GoCardless's sandbox, else live). Another origin
   * (a local fake `http://127.0.0.1:PORT`): requests are routed there (see `clientFor`).
   */
  apiBase: string;
}

/** GoCardless's payment statuses onto ours (https://developer.gocardless.com/api-reference#payments-payments). */
function statusOf(status: string | undefined): ProviderPaymentStatus {
  switch (status) {
    case 'confirmed':
    case 'paid_out':
      return 'SUCCEEDED';
    case 'failed':
    case 'cancelled':
    case 'customer_approval_denied':
    case 'charged_back':
      return 'FAILED';
    default:
      // pending_customer_approval, pending_submission, submitted: the bank has not answered yet
      return 'PENDING';
  }
}

/**
 * The SDK has no base-URL option: it talks to api.gocardless.com or api-sandbox.gocardless.com.
 * For any other origin, its documented `proxy` option (got agents) is given an agent whose
 * connections go to that origin instead, so the SDK's own requests, headers and error handling
 * are what is exercised.
 */
function clientFor(sdk: GoCardlessSdk, accessToken: string, apiBase: string): GoCardlessClient {
  const { default: gocardless, Environments } = sdk;
  const base = apiBase || (accessToken.startsWith('sandbox_') ? SANDBOX_BASE : LIVE_BASE);
  const url = new URL(base);
  if (url.origin === LIVE_BASE) return gocardless(accessToken, Environments.Live, {});
  if (url.origin === SANDBOX_BASE) return gocardless(accessToken, Environments.Sandbox, {});
  const host = url.hostname;
  const port = Number(url.port || (url.protocol === 'http:' ? 80 : 443));
  const agent = new https.Agent();
  (agent as unknown as { createConnection: () => Duplex }).createConnection = () =>
    url.protocol === 'http:' ? net.connect({ host, port }) : tls.connect({ host, port, servername: host });
  return gocardless(accessToken, Environments.Live, { proxy: { https: agent } });
}

const IBAN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;
const MANDATE_ID = /^MD[0-9A-Z]+$/;
const INACTIVE_MANDATE = new Set(['failed', 'cancelled', 'expired', 'consumed', 'blocked', 'suspended_by_payer']);
/** Mandate events after which GoCardless refuses payments on it (https://developer.gocardless.com/api-reference#event-types-mandate). */
const REVOKING_MANDATE_ACTIONS = new Set(['cancelled', 'expired', 'failed', 'blocked', 'consumed']);

export function createGoCardlessProvider(options: GoCardlessAdapterOptions): PaymentProvider {
  /** The SDK and the client, built once at the first call. */
  const load = atFirstUse(async () => {
    const sdk = await import('gocardless-nodejs');
    return { sdk, client: clientFor(sdk, options.accessToken, options.apiBase) };
  });

  /** Why a payment failed: GoCardless puts it on the payment's `failed`/`cancelled` event, not on the payment. */
  async function failureOf(payment: Payment): Promise<{ code: string; message: string }> {
    const action = payment.status === 'cancelled' || payment.status === 'charged_back' ? payment.status : 'failed';
    const { client } = await load();
    const events = await client.events.list({ payment: payment.id!, action, limit: 1 } as never);
    const details = events.events?.[0]?.details;
    return { code: details?.cause ?? payment.status ?? 'failed', message: details?.description ?? `the payment is ${payment.status}` };
  }

  async function toPayment(payment: Payment): Promise<ProviderPayment> {
    const status = statusOf(payment.status);
    const failure = status === 'FAILED' ? await failureOf(payment) : null;
    return {
      id: payment.id!,
      status,
      amountMinor: BigInt(payment.amount!),
      currency: String(payment.currency).toUpperCase(),
      failureCode: failure?.code ?? null,
      failureMessage: failure?.message ?? null,
      metadata: Object.fromEntries(Object.entries(payment.metadata ?? {}).map(([k, v]) => [k, String(v)])),
      ...(payment.status === 'charged_back' ? { reversed: true } : {}),
    };
  }

  function saved(mandate: Mandate, account: { bank_name?: string | null; account_number_ending?: string | null } | null): SetupResult {
    return {
      status: 'SUCCEEDED',
      method: {
        id: mandate.id!, type: 'DIRECT_DEBIT', cardBrand: null, cardLast4: null, expMonth: null, expYear: null,
        directDebit: { scheme: String(mandate.scheme), bankName: account?.bank_name ?? null, accountNumberEnding: account?.account_number_ending ?? null, mandateReference: mandate.reference ?? null },
      },
    };
  }

  return {
    name: 'gocardless',
    async verify() {
      const { sdk: { AuthenticationError, PermissionsError }, client } = await load();
      try {
        await client.creditors.list({ limit: 1 } as never);
      } catch (error) {
        if (error instanceof AuthenticationError || error instanceof PermissionsError) throw new ProviderAuthenticationError(error.message);
        throw error;
      }
    },
    async createCustomer({ name, email, reference, idempotencyKey }) {
      const { client } = await load();
      const customer = await client.customers.create({ company_name: name, ...(email ? { email } : {}), metadata: { billing_customer_id: reference } }, idempotencyKey);
      return { id: customer.id! };
    },
    async setupPaymentMethod({ customerId, method, idempotencyKey, holderName }): Promise<SetupResult> {
      const value = method.replace(/\s+/g, '').toUpperCase();
      const { sdk: { ValidationFailedError }, client } = await load();
      try {
        if (MANDATE_ID.test(value)) {
          // a mandate the customer set up in GoCardless's own flow (Billing Request Flow)
          const mandate = await client.mandates.find(value);
          const account = mandate.links?.customer_bank_account ? await client.customerBankAccounts.find(mandate.links.customer_bank_account) : null;
          if (account?.links?.customer !== customerId) return { status: 'FAILED', failureCode: 'mandate_of_another_customer', failureMessage: `mandate ${value} does not belong to this customer` };
          if (INACTIVE_MANDATE.has(String(mandate.status))) return { status: 'FAILED', failureCode: 'mandate_inactive', failureMessage: `mandate ${value} is ${mandate.status}` };
          return saved(mandate, account);
        }
        if (!IBAN.test(value)) return { status: 'FAILED', failureCode: 'invalid_bank_details', failureMessage: 'expected an IBAN, e.g. "DE89370400440532013000", or a GoCardless mandate id, e.g. "MD000123ABC"' };
        const account = await client.customerBankAccounts.create(
          { iban: value, account_holder_name: holderName ?? 'Account holder', links: { customer: customerId } },
          `${idempotencyKey}:bank_account`,
        );
        const mandate = await client.mandates.create({ links: { customer_bank_account: account.id! } } as never, `${idempotencyKey}:mandate`);
        return saved(mandate, account);
      } catch (error) {
        // GoCardless refuses bank details it cannot debit with a 422 validation_failed naming the field
        if (error instanceof ValidationFailedError) return { status: 'FAILED', failureCode: 'validation_failed', failureMessage: error.toString() };
        throw error;
      }
    },
    async charge(request: ChargeRequest) {
      const { client } = await load();
      // a repeated Idempotency-Key is answered 409 idempotent_creation_conflict; the SDK then fetches the payment it names
      const payment = await client.payments.create(
        {
          amount: Number(request.amountMinor),
          currency: request.currency.toUpperCase() as never,
          description: request.description,
          links: { mandate: request.paymentMethodId },
          metadata: request.metadata,
        },
        request.idempotencyKey,
      );
      return toPayment(payment);
    },
    async getPayment(paymentId) {
      const { client } = await load();
      return toPayment(await client.payments.find(paymentId));
    },
    async refund({ paymentId, amountMinor, idempotencyKey }) {
      // GoCardless asks for the total refunded including this one, against accidental repeats
      const { client } = await load();
      const earlier = await client.refunds.list({ payment: paymentId } as never);
      const refundedMinor = (earlier.refunds ?? []).filter((r) => !['cancelled', 'bounced', 'funds_returned'].includes(String(r.status))).reduce((sum, r) => sum + BigInt(r.amount ?? 0), 0n);
      const refund = await client.refunds.create(
        { amount: Number(amountMinor), total_amount_confirmation: Number(refundedMinor + amountMinor), links: { payment: paymentId } } as never,
        idempotencyKey,
      );
      // created → pending_submission → submitted → refund_settled, or cancelled / bounced / funds_returned
      const state = String(refund.status);
      const status = state === 'refund_settled' ? 'SUCCEEDED' : ['cancelled', 'bounced', 'funds_returned'].includes(state) ? 'FAILED' : 'PENDING';
      return { id: refund.id!, paymentId, status, amountMinor: BigInt(refund.amount!) };
    },
    async parseWebhook(rawBody, headers): Promise<ProviderEvent[]> {
      if (!options.webhookSecret) throw new WebhookSignatureError('this connection has no webhook secret');
      const signature = headers['webhook-signature'];
      if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) throw new WebhookSignatureError('missing or malformed Webhook-Signature header');
      const { sdk: { parse: parseGoCardlessWebhook } } = await load();
      let events;
      try {
        events = parseGoCardlessWebhook(rawBody, options.webhookSecret, signature);
      } catch {
        throw new WebhookSignatureError('Webhook-Signature does not match the body');
      }
      if (!Array.isArray(events)) throw new WebhookSignatureError('webhook body has no events');
      return events.map((event) => ({
        id: String(event.id),
        type: `${event.resource_type}.${event.action}`,
        payment: null,
        paymentId: event.resource_type === 'payments' ? (event.links?.payment ?? null) : null,
        // a mandate that ended can no longer be debited: the module detaches the method saved on it
        revokedMethodId: event.resource_type === 'mandates' && REVOKING_MANDATE_ACTIONS.has(String(event.action)) ? (event.links?.mandate ?? null) : null,
      }));
    },
  };
}
