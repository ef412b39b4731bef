// Stripe end to end: connection, methods, the charge at finalization, a crash between charge and
// record, webhooks replayed and reordered; the real SDK against the local fake (docs/payments.md).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { startStripeFake, type StripeFake } from '../harness/stripe-fake.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';
import { CHARGE_TASK, DUNNING_TASK, RECONCILE_TASK } from '../../src/modules/payments/index.js';

const SECRET_KEY = 'sk_live_51HxScenarioSecretKey9f2A';
const WEBHOOK_SECRET = 'whsec_ScenarioSigningSecret77';
const overrides: Partial<Config> = { logLevel: 'trace' };
let fake: StripeFake;
// what the service writes to standard output (pino writes to fd 1 through fs)
const written: string[] = [];

beforeAll(async () => {
  fake = await startStripeFake();
  fake.keys.add(SECRET_KEY);
  overrides.stripeApiBase = fake.apiBase;
  for (const name of ['writeSync', 'write'] as const) {
    const original = fs[name] as (...args: unknown[]) => unknown;
    vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
      if (args[0] === 1) {
        written.push(String(args[1]));
        const callback = args.find((a) => typeof a === 'function') as ((e: null, n: number) => void) | undefined;
        if (name === 'write') return callback?.(null, Buffer.byteLength(String(args[1])));
        return Buffer.byteLength(String(args[1]));
      }
      return original.apply(fs, args);
    }) as never);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await fake.close();
});
const harness = useHarness(overrides);

const asProduction = (h: Harness) => ({ key: h.production.apiKey });

async function connect(h: Harness) {
  const res = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'stripe', secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; webhook_path: string };
}

let connection: { id: string; webhook_path: string };

async function customerWithMethod(h: Harness, method: string) {
  const customer = await createCustomer(h, {}, h.production.apiKey);
  const res = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { ...asProduction(h), body: { provider_payment_method_id: method } });
  expect(res.statusCode, res.body).toBe(201);
  return customer;
}

async function finalize(h: Harness, customerId: string) {
  const draft = await createDraft(h, customerId, { tenantId: h.production.id });
  expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, asProduction(h))).statusCode).toBe(200);
  return draft.invoice.id;
}

const transactions = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`, asProduction(h))).json().data as Record<string, unknown>[];
const invoiceOf = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`, asProduction(h))).json();

const postWebhook = (h: Harness, path: string, event: { body: string; headers: Record<string, string> }) =>
  h.service.app.inject({ method: 'POST', url: path, headers: event.headers, payload: event.body });

describe('stripe connection', () => {
  it('stores the keys without calling Stripe, shows only a hint, verifies on demand, refuses a sandbox tenant', async () => {
    const h = harness();
    const before = fake.requests.length;
    connection = await connect(h);
    expect(fake.requests.length).toBe(before);
    const shown = (await h.request('GET', `/api/v1/payment-providers/${connection.id}`, asProduction(h))).json();
    expect(shown).toMatchObject({ provider: 'stripe', secret_key_hint: 'sk_live_...9f2A', has_webhook_secret: true, status: 'UNVERIFIED', webhook_path: `/api/v1/payment-providers/${connection.id}/webhooks` });
    expect(JSON.stringify(shown)).not.toContain(SECRET_KEY);
    const verified = await h.request('POST', `/api/v1/payment-providers/${connection.id}/verify`, asProduction(h));
    expect(verified.json()).toMatchObject({ status: 'VERIFIED', verified_at: expect.any(String) });
    expect(fake.requests.at(-1)).toBe('GET /v1/balance');
    expect((await h.request('GET', '/api/v1/payment-providers', asProduction(h))).json().data).toHaveLength(1);
    const twice = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'stripe', secret_key: SECRET_KEY } });
    expect(twice.statusCode).toBe(409);
    const sandbox = await h.request('POST', '/api/v1/payment-providers', { body: { provider: 'stripe', secret_key: SECRET_KEY } });
    expect(sandbox.statusCode).toBe(409);
    const malformed = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'stripe', secret_key: 'pk_live_oops' } });
    expect(malformed.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('secret_key') });
    expect((await h.request('GET', `/api/v1/payment-providers/${connection.id}`, { key: h.other.apiKey })).statusCode).toBe(404);
  });

  it('keeps the keys out of the database in clear and out of the logs', async () => {
    const h = harness();
    const dump = await h.db.pool.query(`SELECT row_to_json(c)::text AS row FROM payment_provider_connections c`);
    expect(dump.rows).toHaveLength(1);
    for (const secret of [SECRET_KEY, WEBHOOK_SECRET, SECRET_KEY.slice(8, -4)]) expect(dump.rows[0].row).not.toContain(secret);
    const log = written.join('');
    expect(log).toContain('/api/v1/payment-providers');
    for (const secret of [SECRET_KEY, WEBHOOK_SECRET]) expect(log).not.toContain(secret);
  });
});

describe('SEPA Direct Debit through stripe', () => {
  const DAY = 86_400_000;
  async function customerWithIban(h: Harness, iban: string) {
    const customer = await createCustomer(h, { billing_email: 'sepa-payer@example.com' }, h.production.apiKey);
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { ...asProduction(h), body: { iban, account_holder_name: 'Jenny Rosen' } });
    expect(res.statusCode, res.body).toBe(201);
    return { customer, method: res.json() };
  }

  it('saves an IBAN as a sepa_debit PaymentMethod with an offline-accepted mandate; refuses a customer without billing e-mail and an unknown IBAN', async () => {
    const h = harness();
    const { method } = await customerWithIban(h, 'AT611904300234573201');
    expect(method).toMatchObject({ provider: 'stripe', payment_method_type: 'DIRECT_DEBIT', card_last4: null, is_default: true,
      direct_debit: { scheme: 'sepa_core', account_number_ending: '3201', mandate_reference: expect.stringMatching(/^FAKE/), bank_name: null } });
    expect(fake.lastSetupParams).toMatchObject({ 'mandate_data[customer_acceptance][type]': 'offline', allowed_payment_method_types: { 0: 'sepa_debit' }, usage: 'off_session', confirm: 'true' });
    const noEmail = await createCustomer(h, {}, h.production.apiKey);
    const before = fake.requests.length;
    const refused = await h.request('POST', `/api/v1/customers/${noEmail.id}/payment-methods`, { ...asProduction(h), body: { iban: 'AT611904300234573201' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('billing_email') });
    expect(fake.requests.length).toBe(before);
    const other = await createCustomer(h, { billing_email: 'x@example.com' }, h.production.apiKey);
    const unknown = await h.request('POST', `/api/v1/customers/${other.id}/payment-methods`, { ...asProduction(h), body: { iban: 'FR1420041010050500013M02606' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('invalid_bank_account_iban') });
    const malformed = await h.request('POST', `/api/v1/customers/${other.id}/payment-methods`, { ...asProduction(h), body: { iban: 'not an iban at all 12' } });
    expect(malformed.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('iban must be an IBAN') });
    // spaces and lower case are the payer's way of writing it: accepted
    const spaced = await h.request('POST', `/api/v1/customers/${other.id}/payment-methods`, { ...asProduction(h), body: { iban: 'de89 3704 0044 0532 0130 00' } });
    expect(spaced.statusCode, spaced.body).toBe(201);
    expect((await h.request('GET', `/api/v1/customers/${other.id}/payment-methods`, asProduction(h))).json().data).toHaveLength(1);
  });

  it('debits at finalization: processing is PENDING; payment_intent.succeeded makes it SUCCEEDED and the invoice PAID', async () => {
    const h = harness();
    const { customer } = await customerWithIban(h, 'AT611904300234573201');
    const invoiceId = await finalize(h, customer.id);
    await h.drainJobs();
    const [pending] = await transactions(h, invoiceId);
    expect(pending).toMatchObject({ status: 'PENDING', provider_transaction_id: expect.stringMatching(/^pi_/), payment_method_info: { payment_method_type: 'DIRECT_DEBIT' } });
    const intentId = pending!.provider_transaction_id as string;
    expect(fake.paymentIntent(intentId)).toMatchObject({ status: 'processing', amount: 14400, currency: 'eur' });
    expect((await invoiceOf(h, invoiceId)).payment_status).not.toBe('PAID');
    const type = fake.settle(intentId);
    expect(type).toBe('payment_intent.succeeded');
    const res = await postWebhook(h, connection.webhook_path, fake.signedEvent(WEBHOOK_SECRET, 'evt_sepa_ok', type, intentId));
    expect(res.json()).toEqual({ received: true, duplicate: false });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', provider_transaction_id: intentId })]);
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('PAID');
  });

  it('a failing IBAN: payment_intent.payment_failed makes it FAILED with insufficient_funds, and dunning retries on day 3', async () => {
    const h = harness();
    const { customer } = await customerWithIban(h, 'AT861904300235473202');
    const before = fake.charges;
    const invoiceId = await finalize(h, customer.id);
    await h.drainJobs();
    const [pending] = await transactions(h, invoiceId);
    expect(pending).toMatchObject({ status: 'PENDING' });
    const intentId = pending!.provider_transaction_id as string;
    const type = fake.settle(intentId);
    expect(type).toBe('payment_intent.payment_failed');
    expect((await postWebhook(h, connection.webhook_path, fake.signedEvent(WEBHOOK_SECRET, 'evt_sepa_fail', type, intentId))).statusCode).toBe(200);
    const list = async () => (await transactions(h, invoiceId)).map((t) => [t.retry_number, t.status, t.error]);
    expect(await list()).toEqual([[0, 'FAILED', 'insufficient_funds']]);
    expect((await invoiceOf(h, invoiceId)).payment_status).not.toBe('PAID');
    h.clock.advance(3 * DAY);
    await h.service.tasks[DUNNING_TASK]!({ once: true });
    await h.drainJobs();
    expect(await list()).toEqual([[0, 'FAILED', 'insufficient_funds'], [1, 'PENDING', null]]);
    expect(fake.charges - before).toBe(2);
  });
});

describe('charging through stripe', () => {
  it('charges the saved card off-session at finalization; the invoice becomes PAID', async () => {
    const h = harness();
    const customer = await customerWithMethod(h, 'pm_card_visa');
    const invoiceId = await finalize(h, customer.id);
    await h.drainJobs();
    const [tx] = await transactions(h, invoiceId);
    expect(tx).toMatchObject({ status: 'SUCCEEDED', amount: '144.00', provider: 'stripe', provider_transaction_id: expect.stringMatching(/^pi_/), payment_method_info: { card_last4: '4242' } });
    expect(fake.paymentIntent(tx!.provider_transaction_id as string)).toMatchObject({ amount: 14400, currency: 'eur', metadata: { attempt_id: tx!.id, invoice_id: invoiceId } });
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('PAID');
  });

  it('records a decline with Stripe\'s code', async () => {
    const h = harness();
    const customer = await customerWithMethod(h, 'pm_card_chargeCustomerFail');
    const invoiceId = await finalize(h, customer.id);
    await h.drainJobs();
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'FAILED', error: 'card_declined', provider_transaction_id: expect.stringMatching(/^pi_/) })]);
  });

  it('never charges twice: the write fails after Stripe charged, the webhook and the reconciler settle it with one charge', async () => {
    const h = harness();
    const customer = await customerWithMethod(h, 'pm_card_visa');
    const { charging } = h.service.payments;
    charging.hooks.afterProviderAnswer = () => {
      throw new Error('connection lost after the provider answered');
    };
    const before = fake.charges;
    let invoiceId: string;
    try {
      invoiceId = await finalize(h, customer.id);
      await h.drainJobs();
    } finally {
      charging.hooks.afterProviderAnswer = undefined;
    }
    expect(fake.charges).toBe(before + 1);
    const [stuck] = await transactions(h, invoiceId);
    expect(stuck).toMatchObject({ status: 'PENDING', provider_transaction_id: null });
    // Stripe's webhook arrives (found by the attempt id in its metadata), twice
    const paymentIntentId = fake.intentForAttempt(stuck!.id as string)!;
    const event = fake.signedEvent(WEBHOOK_SECRET, 'evt_crash_1', 'payment_intent.succeeded', paymentIntentId);
    const first = await postWebhook(h, connection.webhook_path, event);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    expect((await postWebhook(h, connection.webhook_path, event)).json()).toEqual({ received: true, duplicate: true });
    // and the job's retry and the reconciler find it settled: same key, no new charge
    await h.service.tasks[CHARGE_TASK]!({ tenant_id: h.production.id, attempt_id: stuck!.id });
    h.clock.advance(10 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    expect(fake.charges).toBe(before + 1);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', provider_transaction_id: paymentIntentId })]);
    const invoice = await invoiceOf(h, invoiceId);
    expect(invoice.payment_status).toBe('PAID');
    expect(invoice.transactions).toHaveLength(1);
  });

  it('reconciles a crash without a webhook by asking again with the same idempotency key (a Stripe replay)', async () => {
    const h = harness();
    const customer = await customerWithMethod(h, 'pm_card_visa');
    const { charging } = h.service.payments;
    charging.hooks.afterProviderAnswer = () => {
      throw new Error('killed');
    };
    const before = fake.charges;
    let invoiceId: string;
    try {
      invoiceId = await finalize(h, customer.id);
      await h.drainJobs();
    } finally {
      charging.hooks.afterProviderAnswer = undefined;
    }
    h.clock.advance(10 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    expect(fake.charges).toBe(before + 1);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED' })]);
  });

  it('applies webhooks in any order: a late failure event does not undo a success', async () => {
    const h = harness();
    const customer = await customerWithMethod(h, 'pm_card_chargeCustomerFail');
    const invoiceId = await finalize(h, customer.id);
    await h.drainJobs();
    const [failed] = await transactions(h, invoiceId);
    // the customer paid on-session later (the fake's intent succeeds), then the events arrive newest first
    const intent = fake.paymentIntent(failed!.provider_transaction_id as string)!;
    const failedEvent = fake.signedEvent(WEBHOOK_SECRET, 'evt_order_1', 'payment_intent.payment_failed', String(intent.id));
    Object.assign(intent, { status: 'succeeded', last_payment_error: null, amount_received: intent.amount });
    const succeededEvent = fake.signedEvent(WEBHOOK_SECRET, 'evt_order_2', 'payment_intent.succeeded', String(intent.id));
    expect((await postWebhook(h, connection.webhook_path, succeededEvent)).statusCode).toBe(200);
    expect((await postWebhook(h, connection.webhook_path, failedEvent)).json()).toEqual({ received: true, duplicate: false });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', error: null })]);
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('PAID');
    const forged = { ...succeededEvent, headers: { ...succeededEvent.headers, 'stripe-signature': 't=1,v1=00' } };
    expect((await postWebhook(h, connection.webhook_path, forged)).statusCode).toBe(400);
  });

  it('disconnecting deletes the keys; the connection\'s webhooks are refused', async () => {
    const h = harness();
    expect((await h.request('DELETE', `/api/v1/payment-providers/${connection.id}`, asProduction(h))).statusCode).toBe(204);
    expect((await h.db.pool.query(`SELECT count(*)::int AS n FROM payment_provider_connections`)).rows[0].n).toBe(0);
    expect((await postWebhook(h, connection.webhook_path, { body: '{}', headers: { 'content-type': 'application/json' } })).statusCode).toBe(404);
  });
});
