// Provider connections, payment methods, a customer's payment settings, and the attempts of an
// invoice (docs/payments.md).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { AppError, badRequest, conflict, notFound } from '../../kernel/errors.js';
import { secretHint } from '../../kernel/secret-box.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { findTenantProfile } from '../accounts/index.js';
import { findCustomer } from '../customers/index.js';
import { findInvoice } from '../invoices/index.js';
import { ProviderAuthenticationError, WebhookSignatureError } from '../../adapters/payments/provider.js';
import { sealContext, type Providers } from './providers.js';
import type { Charging } from './charging.js';
import * as repo from './repository.js';
import type { AttemptRow, ConnectionRow, CustomerSettingsRow, PaymentMethodRow } from './repository.js';

const STRIPE_SECRET_KEY = /^(sk|rk)_(live|test)_[A-Za-z0-9]{8,}$/;
const STRIPE_PUBLISHABLE_KEY = /^pk_(live|test)_[A-Za-z0-9]{8,}$/;
const STRIPE_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]{8,}$/;
const GOCARDLESS_ACCESS_TOKEN = /^(live|sandbox)_[A-Za-z0-9_-]{8,}$/;
// GoCardless lets the merchant choose the webhook endpoint secret: any printable text
const GOCARDLESS_WEBHOOK_SECRET = /^[\x21-\x7e]{8,255}$/;
const CONNECTABLE = ['stripe', 'gocardless'] as const;

export interface ConnectInput {
  provider: string;
  secret_key: string;
  webhook_secret?: string | null;
  /** Stripe only: the publishable key for Stripe Elements (public). */
  publishable_key?: string | null;
}

export interface AttachMethodInput {
  card_number?: string;
  provider_payment_method_id?: string;
  iban?: string;
  mandate_id?: string;
  account_holder_name?: string;
  set_default?: boolean;
}

export interface SettingsInput {
  auto_charge?: boolean;
  default_payment_method_id?: string | null;
}

export function createPaymentsService(deps: { pool: Pool; clock: Clock; providers: Providers; charging: Charging }) {
  const { pool, clock, providers, charging } = deps;

  async function connect(tenantId: string, input: ConnectInput): Promise<ConnectionRow> {
    const provider = CONNECTABLE.find((name) => name === input.provider);
    if (!provider) throw badRequest(`provider must be 'stripe' or 'gocardless' (the sandbox provider needs no connection), got '${input.provider}'`);
    const webhookSecret = input.webhook_secret ?? null;
    const publishableKey = input.publishable_key ?? null;
    if (provider === 'stripe') {
      if (!STRIPE_SECRET_KEY.test(input.secret_key)) throw badRequest('secret_key must be a Stripe secret or restricted key, e.g. sk_live_51H...');
      if (webhookSecret !== null && !STRIPE_WEBHOOK_SECRET.test(webhookSecret)) throw badRequest('webhook_secret must be a Stripe webhook signing secret, e.g. whsec_3f9a...');
      if (publishableKey !== null && !STRIPE_PUBLISHABLE_KEY.test(publishableKey)) throw badRequest('publishable_key must be a Stripe publishable key, e.g. pk_live_51H...');
    } else {
      if (publishableKey !== null) throw badRequest('publishable_key is for stripe only (Stripe Elements); leave it out for gocardless');
      if (!GOCARDLESS_ACCESS_TOKEN.test(input.secret_key)) throw badRequest('secret_key must be a GoCardless access token, e.g. live_Xk3... or sandbox_Xk3...');
      if (webhookSecret !== null && !GOCARDLESS_WEBHOOK_SECRET.test(webhookSecret)) throw badRequest('webhook_secret must be the secret of your GoCardless webhook endpoint: 8 to 255 printable characters, no spaces');
    }
    return withTx(pool, async (tx) => {
      const tenant = await findTenantProfile(tx, tenantId);
      // a sandbox tenant never reaches out to a provider: it charges through the built-in sandbox
      if (tenant?.environment === 'sandbox') throw conflict(`a sandbox tenant charges through the built-in sandbox provider; connect ${provider} on your production tenant`);
      const existing = await repo.listConnections(tx, tenantId);
      if (existing.some((c) => c.provider === provider)) throw conflict(`${provider} is already connected; DELETE the connection first to replace its keys`);
      // the tenant's provider is its one connection (providers.forTenant): a second would leave which one charges undefined
      if (existing.length > 0) throw conflict(`${existing[0]!.provider} is already connected; DELETE it first to charge through ${provider}`);
      const now = clock.now();
      const id = newId('paymentProviderConnection', now.getTime());
      const row: ConnectionRow = {
        id, tenant_id: tenantId, provider,
        secret_key_sealed: providers.box.seal(input.secret_key, sealContext(tenantId, id, 'secret_key')),
        secret_key_hint: secretHint(input.secret_key),
        webhook_secret_sealed: webhookSecret === null ? null : providers.box.seal(webhookSecret, sealContext(tenantId, id, 'webhook_secret')),
        publishable_key: publishableKey, status: 'UNVERIFIED', last_error: null, verified_at: null, created_at: now, updated_at: now,
      };
      await repo.insertConnection(tx, row);
      return row;
    });
  }

  async function getConnection(tenantId: string, id: string): Promise<ConnectionRow> {
    const row = await repo.findConnection(pool, tenantId, id);
    if (!row) throw notFound('payment provider connection');
    return row;
  }

  /** Checks the stored keys with one read-only call to the provider; the answer is kept on the connection. */
  async function verify(tenantId: string, id: string): Promise<ConnectionRow> {
    const connection = await getConnection(tenantId, id);
    let status: repo.ConnectionStatus = 'VERIFIED';
    let error: string | null = null;
    try {
      await providers.forConnection(connection).verify();
    } catch (failure) {
      if (!(failure instanceof ProviderAuthenticationError)) throw failure;
      status = 'INVALID';
      error = failure.message;
    }
    await repo.setConnectionStatus(pool, tenantId, id, status, error, clock.now());
    return getConnection(tenantId, id);
  }

  async function disconnect(tenantId: string, id: string): Promise<void> {
    if (!(await repo.deleteConnection(pool, tenantId, id))) throw notFound('payment provider connection');
  }

  async function customerOf(tenantId: string, customerId: string) {
    const customer = await findCustomer(pool, tenantId, customerId);
    if (!customer) throw notFound('customer');
    return customer;
  }

  /** Saves a method with the tenant's provider (creating the provider's customer on first use). */
  async function attachMethod(tenantId: string, customerId: string, input: AttachMethodInput): Promise<PaymentMethodRow> {
    const customer = await customerOf(tenantId, customerId);
    const provider = await providers.forTenant(pool, tenantId);
    if (!provider) throw conflict('no payment provider: connect one with POST /api/v1/payment-providers');
    const method = provider.name === 'sandbox' ? input.card_number : provider.name === 'gocardless' ? (input.mandate_id ?? input.iban) : (input.provider_payment_method_id ?? input.iban?.replace(/\s/g, '').toUpperCase());
    // Stripe requires the payer's e-mail on a SEPA Direct Debit method (billing_details.email)
    if (provider.name === 'stripe' && !input.provider_payment_method_id && input.iban && !customer.billing_email) {
      throw badRequest('billing_email is required on the customer to save an IBAN with stripe (SEPA Direct Debit needs the payer\'s e-mail): set it with PATCH /api/v1/customers/{id}, e.g. "billing@example.com"');
    }
    if (!method) {
      throw badRequest(provider.name === 'sandbox'
        ? 'card_number is required for the sandbox provider, e.g. "4242424242424242"'
        : provider.name === 'gocardless'
          ? 'iban (e.g. "DE89370400440532013000") or mandate_id (a GoCardless mandate of this customer, e.g. "MD000123ABC") is required for gocardless'
          : 'provider_payment_method_id (the PaymentMethod id Stripe.js gave you, e.g. "pm_1Q2w3E...") or iban (SEPA Direct Debit, e.g. "DE89370400440532013000") is required for stripe');
    }
    let providerCustomerId = await repo.findProviderCustomer(pool, tenantId, customer.id, provider.name);
    if (!providerCustomerId) {
      providerCustomerId = (await provider.createCustomer({ name: customer.name, email: customer.billing_email ?? null, reference: customer.id, idempotencyKey: `customer:${tenantId}:${customer.id}` })).id;
      await repo.insertProviderCustomer(pool, tenantId, customer.id, provider.name, providerCustomerId, clock.now());
    }
    const setup = await provider.setupPaymentMethod({ customerId: providerCustomerId, method, idempotencyKey: `setup:${randomUUID()}`, holderName: input.account_holder_name ?? customer.name, billingEmail: customer.billing_email ?? null });
    if (setup.status !== 'SUCCEEDED') throw new AppError('BAD_REQUEST', `the payment method was refused by ${provider.name}: ${setup.failureCode} (${setup.failureMessage})`);
    return withTx(pool, async (tx) => {
      const now = clock.now();
      const row: PaymentMethodRow = {
        id: newId('paymentMethod', now.getTime()), customer_id: customer.id, provider: provider.name, provider_method_id: setup.method.id, method_type: setup.method.type,
        card_brand: setup.method.cardBrand, card_last4: setup.method.cardLast4, exp_month: setup.method.expMonth, exp_year: setup.method.expYear,
        mandate_scheme: setup.method.directDebit?.scheme ?? null, mandate_reference: setup.method.directDebit?.mandateReference ?? null,
        bank_name: setup.method.directDebit?.bankName ?? null, account_number_ending: setup.method.directDebit?.accountNumberEnding ?? null, created_at: now,
      };
      await repo.insertPaymentMethod(tx, tenantId, row);
      const settings = await repo.findCustomerSettings(tx, tenantId, customer.id);
      if (input.set_default !== false && (input.set_default === true || !settings.default_payment_method_id)) {
        await repo.upsertCustomerSettings(tx, tenantId, customer.id, { ...settings, default_payment_method_id: row.id }, now);
      }
      return row;
    });
  }

  async function listMethods(tenantId: string, customerId: string): Promise<{ methods: PaymentMethodRow[]; settings: CustomerSettingsRow }> {
    const customer = await customerOf(tenantId, customerId);
    return { methods: await repo.listPaymentMethods(pool, tenantId, customer.id), settings: await repo.findCustomerSettings(pool, tenantId, customer.id) };
  }

  async function detachMethod(tenantId: string, customerId: string, methodId: string): Promise<void> {
    const customer = await customerOf(tenantId, customerId);
    const method = await repo.findPaymentMethod(pool, tenantId, methodId);
    if (!method || method.customer_id !== customer.id) throw notFound('payment method');
    await withTx(pool, (tx) => repo.detachPaymentMethod(tx, tenantId, method.id, clock.now()));
  }

  async function getSettings(tenantId: string, customerId: string): Promise<CustomerSettingsRow> {
    const customer = await customerOf(tenantId, customerId);
    return repo.findCustomerSettings(pool, tenantId, customer.id);
  }

  async function updateSettings(tenantId: string, customerId: string, input: SettingsInput): Promise<CustomerSettingsRow> {
    const customer = await customerOf(tenantId, customerId);
    return withTx(pool, async (tx) => {
      const current = await repo.findCustomerSettings(tx, tenantId, customer.id);
      const next: CustomerSettingsRow = {
        auto_charge: input.auto_charge ?? current.auto_charge,
        default_payment_method_id: input.default_payment_method_id === undefined ? current.default_payment_method_id : input.default_payment_method_id,
      };
      if (next.default_payment_method_id !== null) {
        const method = await repo.findPaymentMethod(tx, tenantId, next.default_payment_method_id);
        if (!method || method.customer_id !== customer.id) throw badRequest(`default_payment_method_id must be a payment method of this customer, e.g. "pm_01KPB...", got '${next.default_payment_method_id}'`);
      }
      await repo.upsertCustomerSettings(tx, tenantId, customer.id, next, clock.now());
      return next;
    });
  }

  async function listAttempts(tenantId: string, invoiceId: string): Promise<{ attempts: AttemptRow[]; methods: Map<string, PaymentMethodRow> }> {
    const invoice = await findInvoice(pool, tenantId, invoiceId);
    if (!invoice) throw notFound('invoice');
    const attempts = await repo.listAttemptsOfInvoice(pool, tenantId, invoice.id);
    const methods = new Map<string, PaymentMethodRow>();
    for (const method of await repo.listPaymentMethods(pool, tenantId, invoice.customer_id)) methods.set(method.id, method);
    return { attempts, methods };
  }

  /**
   * A provider webhook sent to a connection's URL: verified with its secret, each of its events
   * applied once. An event that only names its payment (GoCardless) is applied with the payment's
   * state looked up now. `duplicate`: every event was processed before.
   */
  async function receiveWebhook(connectionId: string, rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<{ duplicate: boolean }> {
    const connection = await repo.findConnectionById(pool, connectionId);
    if (!connection) throw notFound('payment provider connection');
    const provider = providers.forConnection(connection);
    let events;
    try {
      events = await provider.parseWebhook(rawBody, headers);
    } catch (error) {
      if (error instanceof WebhookSignatureError) throw badRequest(`webhook refused: ${error.message}`);
      throw error;
    }
    let applied = 0;
    for (const event of events) {
      const payment = event.payment ?? (event.paymentId ? await provider.getPayment(event.paymentId) : null);
      if (await charging.applyEvent(connection.tenant_id, connection.provider, { ...event, payment })) applied += 1;
    }
    return { duplicate: events.length > 0 && applied === 0 };
  }

  return { connect, getConnection, listConnections: (tenantId: string) => repo.listConnections(pool, tenantId), verify, disconnect, attachMethod, listMethods, detachMethod, getSettings, updateSettings, listAttempts, receiveWebhook };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
