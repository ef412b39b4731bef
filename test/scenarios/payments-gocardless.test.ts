// GoCardless end to end: connection, a mandate as the saved method, the charge at finalization
// staying PENDING, then signed webhooks (confirmed, failed, replayed, batched) settling it, a
// chargeback undoing it, and ended mandates detaching the method; the
// real `gocardless-nodejs` SDK against the local fake (docs/payments.md, "GoCardless").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { startGoCardlessFake, type GoCardlessFake } from '../harness/gocardless-fake.js';
import { createCustomer, createDraft, outbox } from '../http/invoices-support.js';
import { RECONCILE_TASK } from '../../src/modules/payments/index.js';

const ACCESS_TOKEN = 'live_ScenarioAccessToken00Xy7Q';
const WEBHOOK_SECRET = 'gc-endpoint-secret-8d2f1c';
const overrides: Partial<Config> = {};
let fake: GoCardlessFake;

beforeAll(async () => {
  fake = await startGoCardlessFake();
  fake.tokens.add(ACCESS_TOKEN);
  overrides.gocardlessApiBase = fake.apiBase;
});
afterAll(async () => fake.close());
const harness = useHarness(overrides);

const asProduction = (h: Harness) => ({ key: h.production.apiKey });
let connection: { id: string; webhook_path: string };

async function customerWithMandate(h: Harness) {
  const customer = await createCustomer(h, {}, h.production.apiKey);
  const res = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { ...asProduction(h), body: { iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'ACME SAS' } });
  expect(res.statusCode, res.body).toBe(201);
  return { customer, method: res.json() };
}

async function finalize(h: Harness, customerId: string) {
  const draft = await createDraft(h, customerId, { tenantId: h.production.id });
  expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, asProduction(h))).statusCode).toBe(200);
  await h.drainJobs();
  return draft.invoice.id;
}

const transactions = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`, asProduction(h))).json().data as Record<string, unknown>[];
const invoiceOf = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`, asProduction(h))).json();
const postWebhook = (h: Harness, event: { body: string; headers: Record<string, string> }) =>
  h.service.app.inject({ method: 'POST', url: connection.webhook_path, headers: event.headers, payload: event.body });

describe('gocardless connection', () => {
  it('stores the token without calling GoCardless, verifies on demand, refuses malformed tokens and a second provider', async () => {
    const h = harness();
    const before = fake.requests.length;
    const res = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'gocardless', secret_key: ACCESS_TOKEN, webhook_secret: WEBHOOK_SECRET } });
    expect(res.statusCode, res.body).toBe(201);
    connection = res.json();
    expect(fake.requests.length).toBe(before);
    expect(res.json()).toMatchObject({ provider: 'gocardless', secret_key_hint: 'live_...Xy7Q', has_webhook_secret: true, status: 'UNVERIFIED' });
    expect((await h.request('POST', `/api/v1/payment-providers/${connection.id}/verify`, asProduction(h))).json()).toMatchObject({ status: 'VERIFIED' });
    expect(fake.requests.at(-1)).toBe('GET /creditors');
    const malformed = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'gocardless', secret_key: 'sk_live_notgocardless' } });
    expect(malformed.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('GoCardless access token') });
    const stripe = await h.request('POST', '/api/v1/payment-providers', { ...asProduction(h), body: { provider: 'stripe', secret_key: 'sk_live_51HxSecondProvider0' } });
    expect(stripe.statusCode).toBe(409);
    const dump = (await h.db.pool.query(`SELECT row_to_json(c)::text AS row FROM payment_provider_connections c`)).rows.map((r) => String(r.row)).join('\n');
    for (const secret of [ACCESS_TOKEN, WEBHOOK_SECRET]) expect(dump).not.toContain(secret);
  });

  it('saves an IBAN as a mandate, shown as a DIRECT_DEBIT method; refuses a card number', async () => {
    const h = harness();
    const { customer, method } = await customerWithMandate(h);
    expect(method).toMatchObject({ provider: 'gocardless', payment_method_type: 'DIRECT_DEBIT', is_default: true, card_last4: null, direct_debit: { scheme: 'sepa_core', account_number_ending: '00', mandate_reference: expect.any(String) } });
    const card = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { ...asProduction(h), body: { provider_payment_method_id: 'pm_card_visa' } });
    expect(card.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('iban') });
    const wrongIban = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { ...asProduction(h), body: { iban: 'DE00370400440532013000' } });
    expect(wrongIban.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('iban is invalid') });
  });
});

describe('charging by direct debit', () => {
  it('charges at finalization, stays PENDING through submission; a confirmed webhook makes it SUCCEEDED and the invoice PAID, once', async () => {
    const h = harness();
    const { customer } = await customerWithMandate(h);
    const before = fake.payments;
    const invoiceId = await finalize(h, customer.id);
    expect(fake.payments).toBe(before + 1);
    const [pending] = await transactions(h, invoiceId);
    expect(pending).toMatchObject({ status: 'PENDING', amount: '144.00', provider: 'gocardless', provider_transaction_id: expect.stringMatching(/^PM/), payment_method_info: { payment_method_type: 'DIRECT_DEBIT' } });
    const paymentId = pending!.provider_transaction_id as string;
    expect(fake.payment(paymentId)).toMatchObject({ amount: 14400, currency: 'EUR', status: 'pending_submission', metadata: { attempt_id: pending!.id, invoice_id: invoiceId } });
    // days pass: submitted to the bank, still not collected; the reconciler finds it still PENDING
    expect((await postWebhook(h, fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'submitted')]))).json()).toEqual({ received: true, duplicate: false });
    h.clock.advance(10 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'PENDING' })]);
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('UNPAID');
    // collected
    const confirmed = fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'confirmed')]);
    expect((await postWebhook(h, confirmed)).json()).toEqual({ received: true, duplicate: false });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', error: null, processed_at: expect.any(String) })]);
    // the same delivery again, and paid_out later: applied once, nothing moves
    expect((await postWebhook(h, confirmed)).json()).toEqual({ received: true, duplicate: true });
    expect((await postWebhook(h, fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'paid_out')]))).statusCode).toBe(200);
    const invoice = await invoiceOf(h, invoiceId);
    expect(invoice.payment_status).toBe('PAID');
    expect(invoice.transactions).toHaveLength(1);
    expect(fake.payments).toBe(before + 1);
  });

  it('a failed webhook makes it FAILED with GoCardless\'s cause; replayed, applied once; a forged one is refused', async () => {
    const h = harness();
    const { customer } = await customerWithMandate(h);
    const invoiceId = await finalize(h, customer.id);
    const [pending] = await transactions(h, invoiceId);
    const paymentId = pending!.provider_transaction_id as string;
    // one delivery may carry several events (GoCardless batches them)
    const failed = fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'submitted'), fake.advance(paymentId, 'failed')]);
    expect((await postWebhook(h, failed)).json()).toEqual({ received: true, duplicate: false });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'FAILED', error: 'insufficient_funds', error_message: expect.stringContaining('insufficient funds') })]);
    expect((await postWebhook(h, failed)).json()).toEqual({ received: true, duplicate: true });
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('UNPAID');
    const forged = { ...failed, headers: { ...failed.headers, 'webhook-signature': '0'.repeat(64) } };
    const refused = await postWebhook(h, forged);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('Webhook-Signature');
  });

  it('a crash between GoCardless\'s answer and our write is settled by the webhook, with one payment', async () => {
    const h = harness();
    const { customer } = await customerWithMandate(h);
    const { charging } = h.service.payments;
    charging.hooks.afterProviderAnswer = () => {
      throw new Error('killed after the provider answered');
    };
    const before = fake.payments;
    let invoiceId: string;
    try {
      invoiceId = await finalize(h, customer.id);
    } finally {
      charging.hooks.afterProviderAnswer = undefined;
    }
    const [stuck] = await transactions(h, invoiceId);
    expect(stuck).toMatchObject({ status: 'PENDING', provider_transaction_id: null });
    // the reconciler asks again with the same Idempotency-Key: GoCardless answers a conflict, the SDK fetches that payment
    h.clock.advance(10 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    const paymentId = fake.paymentForAttempt(stuck!.id as string)!;
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'PENDING', provider_transaction_id: paymentId })]);
    await postWebhook(h, fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'confirmed')]));
    expect(fake.payments).toBe(before + 1);
    expect((await invoiceOf(h, invoiceId)).payment_status).toBe('PAID');
  });
});

describe('after collection: chargebacks and ended mandates', () => {
  it('a chargeback undoes a SUCCEEDED payment: the invoice is unpaid again, payment.failed and invoice.payment_failed; replayed, applied once', async () => {
    const h = harness();
    const { customer } = await customerWithMandate(h);
    const invoiceId = await finalize(h, customer.id);
    const [pending] = await transactions(h, invoiceId);
    const paymentId = pending!.provider_transaction_id as string;
    await postWebhook(h, fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'confirmed'), fake.advance(paymentId, 'paid_out')]));
    expect(await invoiceOf(h, invoiceId)).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00' });

    const chargeback = fake.signedWebhook(WEBHOOK_SECRET, [fake.advance(paymentId, 'charged_back')]);
    expect((await postWebhook(h, chargeback)).json()).toEqual({ received: true, duplicate: false });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'FAILED', error: 'refund_requested', error_message: 'The customer asked their bank to refund this payment.' })]);
    const invoice = await invoiceOf(h, invoiceId);
    expect(invoice).toMatchObject({ status: 'FINALIZED', payment_status: 'UNPAID', amount_paid: '0.00', paid_at: null, payment_url: expect.stringContaining('/pay/ip_') });
    expect(invoice.transactions).toEqual([expect.objectContaining({ status: 'FAILED', provider_transaction_id: paymentId })]);
    // besides invoice.created, .finalized and .accounting_pdf_generated
    const events = async () => (await outbox(h, invoiceId)).map((e) => e.event_type).filter((type) => ['invoice.paid', 'invoice.payment_failed'].includes(type));
    expect(await events()).toEqual(['invoice.paid', 'invoice.payment_failed']);
    const [failed] = (await outbox(h, invoiceId)).filter((e) => e.event_type === 'invoice.payment_failed');
    expect(failed!.payload).toMatchObject({ payment_status: 'UNPAID', failure_code: 'refund_requested', amount_remaining: '144.00', payment_id: pending!.id });
    // the same pay link (built without a request, so on the default origin)
    expect(new URL(failed!.payload.pay_url as string).pathname).toBe(new URL(invoice.payment_url as string).pathname);
    expect((await outbox(h, pending!.id as string)).map((e) => [e.event_type, e.payload.status])).toEqual([['payment.succeeded', 'SUCCEEDED'], ['payment.failed', 'FAILED']]);

    // the same delivery again changes nothing
    expect((await postWebhook(h, chargeback)).json()).toEqual({ received: true, duplicate: true });
    expect(await events()).toHaveLength(2);
    expect((await invoiceOf(h, invoiceId)).amount_paid).toBe('0.00');
  });

  it.each(['cancelled', 'expired', 'failed'] as const)('a %s mandate is detached: no longer listed nor the default, and the next invoice is not charged', async (action) => {
    const h = harness();
    const { customer, method } = await customerWithMandate(h);
    const mandateId = (await h.db.pool.query('SELECT provider_method_id FROM payment_methods WHERE id = $1', [method.id])).rows[0].provider_method_id as string;
    const delivery = fake.signedWebhook(WEBHOOK_SECRET, [fake.endMandate(mandateId, action)]);
    expect((await postWebhook(h, delivery)).json()).toEqual({ received: true, duplicate: false });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/payment-methods`, asProduction(h))).json().data).toEqual([]);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/payment-settings`, asProduction(h))).json()).toMatchObject({ default_payment_method_id: null });
    const before = fake.payments;
    const invoiceId = await finalize(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([]);
    expect(fake.payments).toBe(before);
    expect((await postWebhook(h, delivery)).json()).toEqual({ received: true, duplicate: true });
  });
});
