// Dunning through the HTTP API with the sandbox provider (docs/payments.md, "Dunning"): a decline,
// retries on the schedule as the ManualClock moves, an e-mail with a pay link after each failure
// (delivered to a real SMTP server on loopback), PAST_DUE, recovery, and the final actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpInbox, type ReceivedMail, type SmtpInbox } from '../harness/smtp-inbox.js';
import { createHarness, type Harness } from '../harness/app.js';
import { startStripeFake, type StripeFake } from '../harness/stripe-fake.js';
import { createCustomer, createDraft, outbox } from '../http/invoices-support.js';
import { seedPlan } from '../http/subscription-fixtures.js';
import { DUNNING_TASK } from '../../src/modules/payments/index.js';

const DAY = 86_400_000;
const inbox: ReceivedMail[] = [];
let smtp: SmtpInbox;
let h: Harness;
let fake: StripeFake;
const STRIPE_KEY = 'sk_live_51HxDunningScenarioKey9f2A';

beforeAll(async () => {
  smtp = await startSmtpInbox(inbox);
  const port = smtp.port;
  fake = await startStripeFake();
  fake.keys.add(STRIPE_KEY);
  h = await createHarness({
    smtp: { host: '127.0.0.1', port, secure: false, from: 'billing@tally.test' }, publicBaseUrl: 'https://billing.example.test', stripeApiBase: fake.apiBase,
  });
});
afterAll(async () => {
  await h.service.app.close();
  await h.db.drop();
  await fake.close();
  await smtp.close();
});

/** Runs jobs until nothing new arrives (the relay, the charge job, e-mail sends). */
async function settle(): Promise<void> {
  for (let round = 0; round < 6; round++) await h.drainJobs();
}

async function sweep(): Promise<void> {
  await h.service.tasks[DUNNING_TASK]!({ once: true });
  await settle();
}

async function setDunning(body: Record<string, unknown>) {
  const res = await h.request('PATCH', '/api/v1/dunning-settings', { body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

let seq = 0;
/** An ACTIVE subscription of a customer whose default card is `card`, and its 144.00 EUR invoice finalized (and charged). */
async function declinedSubscriptionInvoice(card = '4000000000000002') {
  seq += 1;
  const email = `payer${seq}@dunning.test`;
  const customer = await createCustomer(h, { name: `Payer ${seq}`, billing_email: email });
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  const created = await h.request('POST', '/api/v1/subscriptions', {
    body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01', price_components: { parameterized_components: [{ component_id: plan.slotComponentId, parameters: { initial_slot_count: 1 } }] } },
  });
  expect(created.statusCode, created.body).toBe(201);
  const subscriptionId = created.json().id as string;
  const saved = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: card } });
  expect(saved.statusCode, saved.body).toBe(201);
  const draft = await createDraft(h, customer.id, { subscriptionId });
  expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
  await settle();
  return { customerId: customer.id, email, subscriptionId, invoiceId: draft.invoice.id };
}

const transactions = async (invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, unknown>[];
const invoice = async (invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`)).json();
const subscriptionStatus = async (id: string) => (await h.request('GET', `/api/v1/subscriptions/${id}`)).json().status as string;
const mailsTo = (email: string) => inbox.filter((m) => m.to.includes(email));
const eventTypes = async (objectId: string) => (await outbox(h, objectId)).map((e) => e.event_type);

describe('dunning settings API', () => {
  it('answers the default, changes it, and refuses bad schedules with the field named', async () => {
    expect((await h.request('GET', '/api/v1/dunning-settings')).json()).toEqual({ retry_days: [3, 5, 7], final_action: 'NONE' });
    const bad = [
      [{ retry_days: [5, 3] }, 'retry_days: days must be strictly increasing, got 5 then 3'],
      [{ retry_days: [0] }, 'retry_days'],
      [{ retry_days: 'weekly' }, 'retry_days'],
      [{ final_action: 'SEND_LAWYERS' }, 'final_action'],
      [{ retries: [1] }, 'retries'],
    ] as const;
    for (const [body, message] of bad) {
      const res = await h.request('PATCH', '/api/v1/dunning-settings', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ code: expect.any(String), message: expect.stringContaining(message) });
    }
    expect(await setDunning({ final_action: 'MARK_UNCOLLECTIBLE' })).toEqual({ retry_days: [3, 5, 7], final_action: 'MARK_UNCOLLECTIBLE' });
    expect(await setDunning({ retry_days: [1, 2] })).toEqual({ retry_days: [1, 2], final_action: 'MARK_UNCOLLECTIBLE' });
    // per tenant: the other organization's tenant still has the default
    expect((await h.request('GET', '/api/v1/dunning-settings', { key: h.other.apiKey })).json()).toEqual({ retry_days: [3, 5, 7], final_action: 'NONE' });
    await setDunning({ retry_days: [3, 5, 7], final_action: 'NONE' });
  });
});

describe('dunning', () => {
  it('retries a declined invoice on days 3 and 5, mails a pay link each time, and recovers when a retry succeeds', async () => {
    await setDunning({ retry_days: [3, 5, 7], final_action: 'NONE' });
    const failedAt = h.clock.now().getTime();
    const { customerId, email, subscriptionId, invoiceId } = await declinedSubscriptionInvoice();
    const [first] = await transactions(invoiceId);
    expect(first).toMatchObject({ status: 'FAILED', occasion: 'FINALIZATION', retry_number: 0, error: 'card_declined' });
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');
    const listed = async (status: string) => ((await h.request('GET', '/api/v1/subscriptions', { query: { customer_id: customerId, statuses: status } })).json().data as { id: string }[]).map((s) => s.id);
    expect(await listed('PAST_DUE')).toEqual([subscriptionId]);
    expect(await listed('ACTIVE')).toEqual([]);
    expect(await eventTypes(invoiceId)).toEqual(expect.arrayContaining(['invoice.finalized', 'invoice.overdue', 'invoice.payment_failed']));
    expect(await eventTypes(first!.id as string)).toEqual(['payment.failed']);
    expect(await eventTypes(subscriptionId)).toContain('subscription.past_due');
    const [failedEvent] = (await outbox(h, invoiceId)).filter((e) => e.event_type === 'invoice.payment_failed');
    expect(failedEvent!.payload).toMatchObject({ attempt_count: 1, failure_code: 'card_declined', next_retry_at: new Date(failedAt + 3 * DAY).toISOString(), final_action: null });
    const payUrl = failedEvent!.payload.pay_url as string;
    expect(payUrl).toMatch(/^https:\/\/billing\.example\.test\/pay\//);
    // the one pay link (payUrlFor): the same URL the invoice answer shows as payment_url
    expect((await h.request('GET', `/api/v1/invoices/${invoiceId}`)).json().payment_url).toBe(payUrl);
    await expect.poll(() => mailsTo(email).filter((m) => /Payment failed/.test(m.raw)).length).toBe(1);
    expect(mailsTo(email).find((m) => /Payment failed/.test(m.raw))!.raw).toContain(payUrl.split('/pay/')[1]!.slice(0, 20));

    // one minute before day 3 nothing happens; on day 3 the first retry is declined again
    h.clock.set(new Date(failedAt + 3 * DAY - 60_000));
    await sweep();
    expect(await transactions(invoiceId)).toHaveLength(1);
    h.clock.set(new Date(failedAt + 3 * DAY));
    await sweep();
    expect((await transactions(invoiceId)).map((t) => [t.occasion, t.retry_number, t.status])).toEqual([['FINALIZATION', 0, 'FAILED'], ['RETRY', 1, 'FAILED']]);
    await expect.poll(() => mailsTo(email).filter((m) => /Payment failed/.test(m.raw)).length).toBe(2);
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');

    // the customer saves a working card; the day-5 retry charges it
    const card = await h.request('POST', `/api/v1/customers/${customerId}/payment-methods`, { body: { card_number: '4242424242424242', set_default: true } });
    expect(card.statusCode).toBe(201);
    h.clock.set(new Date(failedAt + 5 * DAY));
    await sweep();
    const all = await transactions(invoiceId);
    expect(all.map((t) => [t.retry_number, t.status])).toEqual([[0, 'FAILED'], [1, 'FAILED'], [2, 'SUCCEEDED']]);
    expect(await invoice(invoiceId)).toMatchObject({ payment_status: 'PAID', status: 'FINALIZED' });
    expect(await subscriptionStatus(subscriptionId)).toBe('ACTIVE');
    expect(await listed('ACTIVE')).toEqual([subscriptionId]);
    expect(await eventTypes(all[2]!.id as string)).toEqual(['payment.succeeded']);
    expect(await eventTypes(invoiceId)).toContain('invoice.paid');
    expect((await eventTypes(subscriptionId)).slice(-1)).toEqual(['subscription.updated']);
    await expect.poll(() => mailsTo(email).filter((m) => /Receipt for invoice/.test(m.raw)).length).toBe(1);

    // day 7: nothing more is charged
    h.clock.set(new Date(failedAt + 7 * DAY));
    await sweep();
    expect(await transactions(invoiceId)).toHaveLength(3);
    expect(mailsTo(email).filter((m) => /Payment failed/.test(m.raw))).toHaveLength(2);
  });

  it('NONE: after the last retry the invoice stays owed and the subscription PAST_DUE, until it is paid by hand', async () => {
    await setDunning({ retry_days: [1], final_action: 'NONE' });
    const { subscriptionId, invoiceId } = await declinedSubscriptionInvoice();
    h.clock.advance(DAY);
    await sweep();
    expect(await transactions(invoiceId)).toHaveLength(2);
    const last = (await outbox(h, invoiceId)).filter((e) => e.event_type === 'invoice.payment_failed').at(-1)!;
    expect(last.payload).toMatchObject({ attempt_count: 2, next_retry_at: null, final_action: 'NONE' });
    expect(await invoice(invoiceId)).toMatchObject({ status: 'FINALIZED', payment_status: 'UNPAID' });
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');
    h.clock.advance(10 * DAY);
    await sweep();
    expect(await transactions(invoiceId)).toHaveLength(2);
    // a manual payment recovers it too (invoice.paid)
    expect((await h.request('POST', `/api/v1/invoices/${invoiceId}/mark-paid`, { body: {} })).statusCode).toBe(200);
    await settle();
    expect(await subscriptionStatus(subscriptionId)).toBe('ACTIVE');
  });

  it('MARK_UNCOLLECTIBLE: after the last retry the invoice is written off and the subscription is no longer past due', async () => {
    await setDunning({ retry_days: [2], final_action: 'MARK_UNCOLLECTIBLE' });
    const { subscriptionId, invoiceId } = await declinedSubscriptionInvoice();
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');
    h.clock.advance(2 * DAY);
    await sweep();
    expect(await invoice(invoiceId)).toMatchObject({ status: 'UNCOLLECTIBLE', payment_status: 'UNPAID' });
    expect(await subscriptionStatus(subscriptionId)).toBe('ACTIVE');
  });

  it('CANCEL_SUBSCRIPTION with no retries cancels at the first failure', async () => {
    await setDunning({ retry_days: [], final_action: 'CANCEL_SUBSCRIPTION' });
    const { subscriptionId, invoiceId } = await declinedSubscriptionInvoice();
    expect(await transactions(invoiceId)).toHaveLength(1);
    const sub = (await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json();
    expect(sub).toMatchObject({ status: 'CANCELLED', cancellation_reason: 'payment_failed' });
    expect(await eventTypes(subscriptionId)).toEqual(expect.arrayContaining(['subscription.past_due', 'subscription.cancelled']));
    expect(await invoice(invoiceId)).toMatchObject({ status: 'FINALIZED', payment_status: 'UNPAID' });
  });

  it('logs the dunning e-mail as skipped when the tenant disables e-mails', async () => {
    await setDunning({ retry_days: [3, 5, 7], final_action: 'NONE' });
    await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: true } });
    try {
      const { email, invoiceId } = await declinedSubscriptionInvoice();
      const log = (await h.request('GET', '/api/v1/emails', { query: { object_id: invoiceId } })).json().data as { kind: string; status: string }[];
      expect(log).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'PAYMENT_FAILED', status: 'SKIPPED' })]));
      expect(mailsTo(email)).toHaveLength(0);
    } finally {
      await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: false } });
    }
  });

  it('stripe: a declined PaymentIntent is retried on day 3 with the card saved since, one charge per attempt', async () => {
    await setDunning({ retry_days: [3, 5, 7], final_action: 'NONE' });
    const key = h.production.apiKey;
    expect((await h.request('POST', '/api/v1/payment-providers', { key, body: { provider: 'stripe', secret_key: STRIPE_KEY } })).statusCode).toBe(201);
    // the production tenant has its own settings: the default
    expect((await h.request('GET', '/api/v1/dunning-settings', { key })).json()).toEqual({ retry_days: [3, 5, 7], final_action: 'NONE' });
    const customer = await createCustomer(h, { billing_email: 'stripe-payer@dunning.test' }, key);
    const save = (method: string) => h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { key, body: { provider_payment_method_id: method, set_default: true } });
    expect((await save('pm_card_chargeCustomerFail')).statusCode).toBe(201);
    const before = fake.charges;
    const draft = await createDraft(h, customer.id, { tenantId: h.production.id });
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, { key })).statusCode).toBe(200);
    await settle();
    const list = async () => ((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/payment-transactions`, { key })).json().data as Record<string, unknown>[]).map((t) => [t.retry_number, t.status, t.error]);
    expect(await list()).toEqual([[0, 'FAILED', 'card_declined']]);
    expect((await save('pm_card_visa')).statusCode).toBe(201);
    h.clock.advance(3 * DAY);
    await sweep();
    await sweep();
    expect(await list()).toEqual([[0, 'FAILED', 'card_declined'], [1, 'SUCCEEDED', null]]);
    expect(fake.charges - before).toBe(2);
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`, { key })).json()).toMatchObject({ payment_status: 'PAID' });
    await expect.poll(() => mailsTo('stripe-payer@dunning.test').map((m) => (/Payment failed/.test(m.raw) ? 'failed' : /Receipt for invoice/.test(m.raw) ? 'receipt' : 'invoice')).sort()).toEqual(['failed', 'invoice', 'receipt']);
  });
});
