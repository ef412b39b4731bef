// Dunning driven by a test clock (docs/payments.md, "Dunning on test clocks"; docs/test-clocks.md):
// a sandbox customer on a clock with the declining card, its subscription's first invoice
// finalized by the clock's advance, the charge declined, then advances over days 3, 5 and 7 run
// the retries, e-mails with a pay link and the final action at the clock's time, for that clock's
// customers only. A good card paid on the pay page recovers it; deleting the clock afterwards
// takes its dunning and refund rows with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpInbox, type ReceivedMail, type SmtpInbox } from '../harness/smtp-inbox.js';
import { createHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft, outbox } from '../http/invoices-support.js';
import { seedPlan } from '../http/subscription-fixtures.js';
import { DUNNING_TASK } from '../../src/modules/payments/index.js';

const DAY = 86_400_000;
const DECLINED = '4000000000000002';
const inbox: ReceivedMail[] = [];
let smtp: SmtpInbox;
let h: Harness;

beforeAll(async () => {
  smtp = await startSmtpInbox(inbox);
  h = await createHarness({ smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'billing@tally.test' }, publicBaseUrl: 'https://billing.example.test' });
});
afterAll(async () => {
  await h.service.app.close();
  await h.db.drop();
  await smtp.close();
});

/** Runs jobs until nothing new arrives (the relay, the charge job, e-mail sends). */
async function settle(): Promise<void> {
  for (let round = 0; round < 6; round++) await h.drainJobs();
}

async function advance(clockId: string, to: Date): Promise<void> {
  const res = await h.request('POST', `/api/v1/test-clocks/${clockId}/advance`, { body: { frozen_time: to.toISOString() } });
  expect(res.statusCode, res.body).toBe(200);
  await settle();
  expect((await h.request('GET', `/api/v1/test-clocks/${clockId}`)).json()).toMatchObject({ status: 'READY', frozen_time: to.toISOString() });
}

async function saveCard(customerId: string, card: string, setDefault = false): Promise<string> {
  const res = await h.request('POST', `/api/v1/customers/${customerId}/payment-methods`, { body: { card_number: card, set_default: setDefault } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

/** By retry number: the finalization charge is made by the charge job at service time, after the clock's retries in time order. */
const transactions = async (invoiceId: string) =>
  ((await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, unknown>[])
    .sort((a, b) => (a.occasion === 'PAY_PAGE' ? 1 : 0) - (b.occasion === 'PAY_PAGE' ? 1 : 0) || Number(a.retry_number) - Number(b.retry_number));
const invoiceOf = async (invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`)).json();
const subscriptionStatus = async (id: string) => (await h.request('GET', `/api/v1/subscriptions/${id}`)).json().status as string;
const paymentFailedEvents = async (invoiceId: string) => (await outbox(h, invoiceId)).filter((e) => e.event_type === 'invoice.payment_failed');
const failedMailsTo = (email: string) => inbox.filter((m) => m.to.includes(email) && /Payment failed/.test(m.raw));

/** Pays on the invoice's hosted pay page with a saved method, as a browser would (cookie and CSRF field from the page). */
async function payOnPage(payUrl: string, methodId: string) {
  const path = new URL(payUrl).pathname;
  const page = await h.service.app.inject({ method: 'GET', url: path });
  expect(page.statusCode).toBe(200);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  return h.service.app.inject({
    method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, method: methodId }).toString(),
  });
}

describe('dunning on a test clock', () => {
  it('runs retries on days 3, 5 and 7 and the final action at the clock\'s time, for that clock\'s customers only, and recovers on payment', async () => {
    expect((await h.request('PATCH', '/api/v1/dunning-settings', { body: { retry_days: [3, 5, 7], final_action: 'NONE' } })).statusCode).toBe(200);
    // a customer on no clock with a declined invoice: neither the clock's advance nor its failure time may touch it
    const outsider = await createCustomer(h, { name: 'Outsider', billing_email: 'outsider@clock.test' });
    await saveCard(outsider.id, DECLINED, true);
    const outsiderDraft = await createDraft(h, outsider.id);
    expect((await h.request('POST', `/api/v1/invoices/${outsiderDraft.invoice.id}/finalize`)).statusCode).toBe(200);
    await settle();
    expect((await transactions(outsiderDraft.invoice.id)).map((t) => t.status)).toEqual(['FAILED']);

    const clock = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-01-01T00:00:00Z', name: 'Dunning' } });
    expect(clock.statusCode, clock.body).toBe(201);
    const clockId = clock.json().id as string;
    const email = 'clocked-payer@clock.test';
    const customer = await h.request('POST', '/api/v1/customers', { body: { name: 'Clocked payer', currency: 'EUR', billing_email: email, test_clock_id: clockId } });
    expect(customer.statusCode, customer.body).toBe(201);
    const customerId = customer.json().id as string;
    await saveCard(customerId, DECLINED, true);
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const sub = await h.request('POST', '/api/v1/subscriptions', {
      body: { customer_id_or_alias: customerId, plan_version_id: plan.versionId, start_date: '2026-01-01', billing_day_anchor: 1 },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const subscriptionId = sub.json().id as string;

    // the first invoice (dated 2026-01-01) is finalized when its 24-hour grace period ends on the clock; its charge is declined
    const finalizedAt = new Date('2026-01-02T00:00:00Z');
    await advance(clockId, finalizedAt);
    const invoices = (await h.request('GET', '/api/v1/invoices', { query: { subscription_id: subscriptionId } })).json().data as { id: string; status: string; finalized_at: string }[];
    expect(invoices.map((i) => [i.status, i.finalized_at])).toEqual([['FINALIZED', finalizedAt.toISOString()]]);
    const invoiceId = invoices[0]!.id;
    expect((await transactions(invoiceId)).map((t) => [t.occasion, t.status, t.error])).toEqual([['FINALIZATION', 'FAILED', 'card_declined']]);
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');
    // retries count from the finalization on the clock, not from the service clock (2026-03-15)
    const [first] = await paymentFailedEvents(invoiceId);
    expect(first!.payload).toMatchObject({ attempt_count: 1, failure_code: 'card_declined', next_retry_at: new Date(finalizedAt.getTime() + 3 * DAY).toISOString() });
    // the invoice is overdue from its finalization on the clock, not from when the charge job answered
    expect((await outbox(h, invoiceId)).find((e) => e.event_type === 'invoice.overdue')!.payload).toMatchObject({ overdue_since: finalizedAt.toISOString() });
    const payUrl = first!.payload.pay_url as string;
    expect(payUrl).toMatch(/^https:\/\/billing\.example\.test\/pay\/ip_/);
    await expect.poll(() => failedMailsTo(email).length).toBe(1);

    // the periodic sweep on the service clock, even a month later, leaves the clock's customer alone
    h.clock.set(new Date(h.clock.now().getTime() + 30 * DAY));
    await h.service.tasks[DUNNING_TASK]!({ once: true });
    await settle();
    expect(await transactions(invoiceId)).toHaveLength(1);
    // ...and retried the outsider (due three days after its failure at service time)
    expect((await transactions(outsiderDraft.invoice.id)).length).toBeGreaterThan(1);
    const outsiderAttempts = (await transactions(outsiderDraft.invoice.id)).length;

    // a minute before day 3 on the clock: nothing; day 3: the first retry, declined, at the clock's time
    await advance(clockId, new Date(finalizedAt.getTime() + 3 * DAY - 60_000));
    expect(await transactions(invoiceId)).toHaveLength(1);
    await advance(clockId, new Date(finalizedAt.getTime() + 3 * DAY));
    expect((await transactions(invoiceId)).map((t) => [t.occasion, t.retry_number, t.status, t.created_at])).toEqual([
      ['FINALIZATION', 0, 'FAILED', expect.any(String)],
      ['RETRY', 1, 'FAILED', new Date(finalizedAt.getTime() + 3 * DAY).toISOString()],
    ]);
    await expect.poll(() => failedMailsTo(email).length).toBe(2);

    // one advance over days 5 and 7: each retry is charged at its own stop, then the final action (NONE)
    await advance(clockId, new Date('2026-01-12T00:00:00Z'));
    expect((await transactions(invoiceId)).map((t) => [t.retry_number, t.status, t.created_at])).toEqual([
      [0, 'FAILED', expect.any(String)],
      [1, 'FAILED', new Date(finalizedAt.getTime() + 3 * DAY).toISOString()],
      [2, 'FAILED', new Date(finalizedAt.getTime() + 5 * DAY).toISOString()],
      [3, 'FAILED', new Date(finalizedAt.getTime() + 7 * DAY).toISOString()],
    ]);
    const failures = await paymentFailedEvents(invoiceId);
    expect(failures.map((e) => [e.payload.attempt_count, e.payload.next_retry_at, e.payload.final_action])).toEqual([
      [1, new Date(finalizedAt.getTime() + 3 * DAY).toISOString(), null],
      [2, new Date(finalizedAt.getTime() + 5 * DAY).toISOString(), null],
      [3, new Date(finalizedAt.getTime() + 7 * DAY).toISOString(), null],
      [4, null, 'NONE'],
    ]);
    expect(failures.every((e) => e.payload.pay_url === payUrl)).toBe(true);
    await expect.poll(() => failedMailsTo(email).length).toBe(4);
    for (const mail of failedMailsTo(email)) expect(mail.raw).toContain(payUrl.split('/pay/')[1]!.slice(0, 20));
    expect(await subscriptionStatus(subscriptionId)).toBe('PAST_DUE');
    expect(await invoiceOf(invoiceId)).toMatchObject({ status: 'FINALIZED', payment_status: 'UNPAID' });
    const dunning = await h.db.pool.query('SELECT status, retries_done FROM payment_dunnings WHERE invoice_id = $1', [invoiceId]);
    expect(dunning.rows).toEqual([{ status: 'EXHAUSTED', retries_done: 3 }]);
    // the outsider was not retried by the clock's advance
    expect(await transactions(outsiderDraft.invoice.id)).toHaveLength(outsiderAttempts);

    // the customer saves a good card as the default and pays on the pay page: recovery
    const good = await saveCard(customerId, '4242424242424242', true);
    const paid = await payOnPage(payUrl, good);
    expect(paid.statusCode, paid.body).toBe(303);
    await settle();
    expect(await invoiceOf(invoiceId)).toMatchObject({ status: 'FINALIZED', payment_status: 'PAID', payment_url: null });
    expect(await subscriptionStatus(subscriptionId)).toBe('ACTIVE');
    expect((await outbox(h, invoiceId)).map((e) => e.event_type)).toContain('invoice.paid');
    expect((await outbox(h, subscriptionId)).map((e) => e.event_type)).toEqual(expect.arrayContaining(['subscription.past_due', 'subscription.updated']));
    expect((await h.db.pool.query('SELECT status FROM payment_dunnings WHERE invoice_id = $1', [invoiceId])).rows).toEqual([{ status: 'RECOVERED' }]);
    expect((await transactions(invoiceId)).at(-1)).toMatchObject({ occasion: 'PAY_PAGE', status: 'SUCCEEDED' });
  });

  it('cancels the subscription at the clock\'s date as the final action, and deletes a clock whose customers have dunning and refund rows', async () => {
    expect((await h.request('PATCH', '/api/v1/dunning-settings', { body: { retry_days: [2], final_action: 'CANCEL_SUBSCRIPTION' } })).statusCode).toBe(200);
    const clock = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-05-01T00:00:00Z', name: 'Cancel' } });
    const clockId = clock.json().id as string;
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const subscribe = async (card: string) => {
      const customer = await h.request('POST', '/api/v1/customers', { body: { name: `Clocked ${card}`, currency: 'EUR', test_clock_id: clockId } });
      const customerId = customer.json().id as string;
      await saveCard(customerId, card, true);
      const sub = await h.request('POST', '/api/v1/subscriptions', {
        body: { customer_id_or_alias: customerId, plan_version_id: plan.versionId, start_date: '2026-05-01', billing_day_anchor: 1 },
      });
      expect(sub.statusCode, sub.body).toBe(201);
      return { customerId, subscriptionId: sub.json().id as string };
    };
    const declined = await subscribe(DECLINED);
    const paying = await subscribe('4242424242424242');
    await advance(clockId, new Date('2026-05-02T00:00:00Z'));
    // one advance over the retry (day 2, declined) to the final action: cancelled at the clock's date
    await advance(clockId, new Date('2026-05-10T00:00:00Z'));
    const sub = (await h.request('GET', `/api/v1/subscriptions/${declined.subscriptionId}`)).json();
    // the retry on the clock's 2026-05-04 failed: cancelled that day (the service clock is at 2026-03-15)
    expect(sub).toMatchObject({ status: 'CANCELLED', cancellation_reason: 'payment_failed', cancel_effective_date: '2026-05-04' });

    // the paying customer's invoice is refunded in part by a REFUND credit note (a payment_refunds row)
    const paidInvoice = (await h.request('GET', '/api/v1/invoices', { query: { subscription_id: paying.subscriptionId } })).json().data[0];
    expect(paidInvoice).toMatchObject({ payment_status: 'PAID' });
    const detail = await invoiceOf(paidInvoice.id);
    const note = await h.request('POST', '/api/v1/credit-notes', {
      body: { invoice_id: paidInvoice.id, reason: 'Goodwill', credit_type: 'REFUND', lines: [{ invoice_line_id: detail.line_items[0].id, amount: '5.00' }] },
    });
    expect(note.statusCode, note.body).toBe(201);
    expect((await h.request('POST', `/api/v1/credit-notes/${note.json().id}/finalize`)).statusCode).toBe(200);
    await settle();
    const customerIds = [declined.customerId, paying.customerId];
    const count = async (table: string) => (await h.db.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE customer_id = ANY($1)`, [customerIds])).rows[0].n as number;
    expect(await count('payment_dunnings')).toBe(1);
    const refunds = await h.db.pool.query('SELECT count(*)::int AS n FROM payment_refunds WHERE credit_note_id = $1', [note.json().id]);
    expect(refunds.rows[0].n).toBe(1);

    const deleted = await h.request('DELETE', `/api/v1/test-clocks/${clockId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toMatchObject({ deleted: true, deleted_objects: { customers: 2, subscriptions: 2, credit_notes: 1 } });
    expect(await count('payment_dunnings')).toBe(0);
    expect(await count('payment_attempts')).toBe(0);
    expect((await h.db.pool.query('SELECT count(*)::int AS n FROM payment_refunds WHERE credit_note_id = $1', [note.json().id])).rows[0].n).toBe(0);
  });
});
