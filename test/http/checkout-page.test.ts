// The hosted checkout page over HTTP (docs/payments.md, "Hosted checkout"): completion, decline
// then success, cancel, expiry, a coupon, a free trial, payment_methods_config, CSRF, a raced
// completion; and the Stripe path (Elements' PaymentMethod id posted to the real SDK against the fake).
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness/app.js';
import { useStripeHarness } from '../harness/stripe-harness.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';
import { dueToday, open, post } from './checkout-page-support.js';
import { RECONCILE_TASK } from '../../src/modules/payments/index.js';

const SECRET_KEY = 'sk_live_51HxCheckoutPageKey9f2A';
const PUBLISHABLE_KEY = 'pk_live_51HxCheckoutPageKey9f2A';
const stripe = useStripeHarness(SECRET_KEY);
const harness = stripe.harness;
const NOW = '2026-03-15T12:00:00.000Z';
const SUCCESS = 'https://shop.test/welcome';
const CANCEL = 'https://shop.test/pricing';

async function setup(options: Parameters<typeof seedPlan>[3] = {}, session: Record<string, unknown> = {}, key?: string) {
  const h = harness();
  h.clock.set(NOW);
  const apiKey = key ?? h.tenant.apiKey;
  const plan = await seedPlan(h, h.tenant.id, apiKey, options);
  const customer = await seedCustomer(h, apiKey, { alias: `crm-${Math.random().toString(36).slice(2)}` });
  const res = await h.request('POST', '/api/v1/checkout-sessions', { key: apiKey, body: { customer_id: customer.id, plan_version_id: plan.versionId, success_url: SUCCESS, cancel_url: CANCEL, ...session } });
  expect(res.statusCode, res.body).toBe(200);
  const created = res.json().session as { id: string; checkout_url: string };
  return { h, plan, customer, session: created, path: new URL(created.checkout_url).pathname, apiKey };
}

async function rows(h: Harness, sql: string, params: unknown[]) {
  return (await h.db.pool.query(sql, params)).rows;
}
const subscriptionsOf = (h: Harness, sessionId: string) => rows(h, `SELECT id FROM subscriptions WHERE checkout_session_id = $1`, [sessionId]);
const attemptsOf = (h: Harness, sessionId: string) =>
  rows(h, `SELECT id, status, invoice_id, amount_minor::text AS amount_minor, failure_code FROM payment_attempts WHERE checkout_session_id = $1 ORDER BY created_at, id`, [sessionId]);
const invoicesOf = (h: Harness, customerId: string) => rows(h, `SELECT id, status, payment_status, total_minor::text AS total_minor, amount_paid_minor::text AS paid FROM invoices WHERE customer_id = $1`, [customerId]);
const methodsOf = async (h: Harness, customerId: string, key?: string) => (await h.request('GET', `/api/v1/customers/${customerId}/payment-methods`, { key })).json();

describe('hosted checkout page (sandbox)', () => {
  it('shows the offer with its first invoice, and completes: charged once, subscription, paid first invoice, redirect to success_url', async () => {
    const { h, session, path, customer } = await setup();
    expect(session.checkout_url).not.toContain(session.id);
    const page = await open(h, path);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(`default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https://shop.test; frame-ancestors 'none'; base-uri 'none'`);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Subscribe to Pro');
    expect(page.body).toContain('Platform');
    expect(page.body).toContain('Seats');
    expect(page.body).toContain('Total with tax');
    expect(page.body).not.toContain('<script');
    const due = dueToday(page.body)!;
    expect(due).toMatch(/^\d+\.\d{2} EUR$/);

    const paid = await post(h, page, '', { card_number: '4242 4242 4242 4242', shown_amount: due.split(' ')[0]! });
    expect(paid.statusCode, paid.body).toBe(303);
    expect(paid.headers.location).toBe(SUCCESS);

    const got = (await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session;
    expect(got).toMatchObject({ status: 'COMPLETED', checkout_url: null });
    expect(await subscriptionsOf(h, session.id)).toEqual([{ id: got.subscription_id }]);
    const [invoice] = await invoicesOf(h, customer.id);
    expect(invoice).toMatchObject({ status: 'FINALIZED', payment_status: 'PAID' });
    const attempts = await attemptsOf(h, session.id);
    expect(attempts).toEqual([expect.objectContaining({ status: 'SUCCEEDED', invoice_id: invoice!.id, amount_minor: invoice!.total_minor })]);
    expect(`${(Number(invoice!.total_minor) / 100).toFixed(2)} EUR`).toBe(due);
    // the job queued with the answer finds the work done: nothing more is charged or invoiced
    await h.drainJobs();
    expect(await attemptsOf(h, session.id)).toHaveLength(1);
    expect(await rows(h, `SELECT id FROM payment_attempts WHERE customer_id = $1`, [customer.id])).toHaveLength(1);
    expect(await invoicesOf(h, customer.id)).toHaveLength(1);
    // the card is the customer's default now, for the invoices to come
    expect((await methodsOf(h, customer.id)).data).toEqual([expect.objectContaining({ card_last4: '4242', is_default: true })]);
    // the link now shows the completed page
    const after = await open(h, path, page.cookie);
    expect(after.status).toBe(200);
    expect(after.body).toContain('This checkout is complete');
  });

  it('charges only what the customer balance leaves due, and the first invoice is paid exactly (balance used, nothing overpaid)', async () => {
    const { h, session, path, customer } = await setup();
    const before = dueToday((await open(h, path)).body)!;
    const credited = await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '5.00' } });
    expect(credited.statusCode, credited.body).toBe(200);
    const page = await open(h, path);
    const due = dueToday(page.body)!;
    const beforeMinor = BigInt(before.split(' ')[0]!.replace('.', ''));
    expect(BigInt(due.split(' ')[0]!.replace('.', ''))).toBe(beforeMinor - 500n);
    const paid = await post(h, page, '', { card_number: '4242 4242 4242 4242', shown_amount: due.split(' ')[0]! });
    expect(paid.statusCode, paid.body).toBe(303);
    await h.drainJobs();
    const [invoice] = await invoicesOf(h, customer.id);
    expect(invoice).toMatchObject({ payment_status: 'PAID', paid: (beforeMinor - 500n).toString(), total_minor: beforeMinor.toString() });
    expect((await attemptsOf(h, session.id)).map((a) => a.amount_minor)).toEqual([(beforeMinor - 500n).toString()]);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('0.00');
  });

  it('charges only what prepaid credits leave due, and the credits pay the first invoice at its finalization', async () => {
    const { h, session, path, customer } = await setup();
    const before = dueToday((await open(h, path)).body)!;
    const granted = await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Welcome credits', type: 'PROMOTIONAL', amount: '7.00' } });
    expect(granted.statusCode, granted.body).toBe(201);
    const page = await open(h, path);
    const due = dueToday(page.body)!;
    const beforeMinor = BigInt(before.split(' ')[0]!.replace('.', ''));
    expect(BigInt(due.split(' ')[0]!.replace('.', ''))).toBe(beforeMinor - 700n);
    const paid = await post(h, page, '', { card_number: '4242 4242 4242 4242', shown_amount: due.split(' ')[0]! });
    expect(paid.statusCode, paid.body).toBe(303);
    await h.drainJobs();
    const [invoice] = await invoicesOf(h, customer.id);
    expect(invoice).toMatchObject({ payment_status: 'PAID', paid: (beforeMinor - 700n).toString(), total_minor: beforeMinor.toString() });
    const api = (await h.request('GET', `/api/v1/invoices/${invoice!.id}`)).json();
    expect(api).toMatchObject({ prepaid_credits: '7.00', prepaid_credit_lines: [expect.objectContaining({ name: 'Welcome credits', amount: '7.00' })] });
    expect((await attemptsOf(h, session.id)).map((a) => a.amount_minor)).toEqual([(beforeMinor - 700n).toString()]);
    // nothing overpaid into the cash balance, and the credits are spent once
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('0.00');
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-balance`)).json()).toMatchObject({ balance: '0.00' });
  });

  it('shows a decline (402) with the provider message and leaves no subscription, invoice or saved card; a good card then completes', async () => {
    const { h, session, path, customer } = await setup();
    const page = await open(h, path);
    const declined = await post(h, page, '', { card_number: '4000000000000002' });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('Your card was declined. No money was taken; try another card.');
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.status).toBe('CREATED');
    expect(await subscriptionsOf(h, session.id)).toEqual([]);
    expect(await invoicesOf(h, customer.id)).toEqual([]);
    expect((await methodsOf(h, customer.id)).data).toEqual([]);
    expect(await attemptsOf(h, session.id)).toEqual([expect.objectContaining({ status: 'FAILED', invoice_id: null, failure_code: 'card_declined' })]);

    const again = await open(h, path, page.cookie);
    const paid = await post(h, again, '', { card_number: '4242424242424242' });
    expect(paid.statusCode, paid.body).toBe(303);
    expect(paid.headers.location).toBe(SUCCESS);
    expect(await subscriptionsOf(h, session.id)).toHaveLength(1);
    // the service clock stands still in tests: attempts share created_at, so their order is not asserted
    expect((await attemptsOf(h, session.id)).map((a) => a.status).sort()).toEqual(['FAILED', 'SUCCEEDED']);
    // dunning never started for the declined first payment
    expect(await rows(h, `SELECT invoice_id FROM payment_dunnings WHERE customer_id = $1`, [customer.id])).toEqual([]);
  });

  it('a card needing authentication is shown as such (402) and charges nothing', async () => {
    const { h, session, path } = await setup();
    const page = await open(h, path);
    const answer = await post(h, page, '', { card_number: '4000002500003155' });
    expect(answer.statusCode).toBe(402);
    expect(answer.body).toContain('Your bank asks you to confirm this payment (authentication)');
    expect(await subscriptionsOf(h, session.id)).toEqual([]);
  });

  it('waits in AWAITING_PAYMENT while the payment processes (202); its later success completes the session through the job', async () => {
    const { h, session, path, customer } = await setup();
    const page = await open(h, path);
    const processing = await post(h, page, '', { card_number: '4000000000000077' });
    expect(processing.statusCode, processing.body).toBe(202);
    expect(processing.body).toContain('Your payment is being processed');
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session).toMatchObject({ status: 'AWAITING_PAYMENT', subscription_id: null });
    // a second submit meanwhile charges nothing more
    const again = await post(h, page, '', { card_number: '4242424242424242' });
    expect(again.statusCode).toBe(409);
    expect(await subscriptionsOf(h, session.id)).toEqual([]);
    // the sandbox settles it after its delay; the reconciler records it and queues the completion
    h.clock.advance(5 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    await h.drainJobs();
    const done = (await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session;
    expect(done).toMatchObject({ status: 'COMPLETED', payment_reference: expect.stringMatching(/^pi_sbx_/) });
    expect(await subscriptionsOf(h, session.id)).toEqual([{ id: done.subscription_id }]);
    expect(await invoicesOf(h, customer.id)).toEqual([expect.objectContaining({ status: 'FINALIZED', payment_status: 'PAID' })]);
    expect((await attemptsOf(h, session.id)).map((a) => a.status)).toEqual(['SUCCEEDED']);
    expect((await open(h, path, page.cookie)).body).toContain('This checkout is complete');
  });

  it('refuses a form without its CSRF field (403) and charges nothing', async () => {
    const { h, session, path } = await setup();
    const page = await open(h, path);
    const forged = await post(h, { ...page, csrf: 'forged' }, '', { card_number: '4242424242424242' });
    expect(forged.statusCode).toBe(403);
    expect(await attemptsOf(h, session.id)).toEqual([]);
  });

  it('cancels from the page: 303 to cancel_url, the session CANCELLED, nothing charged afterwards', async () => {
    const { h, session, path } = await setup();
    const page = await open(h, path);
    const cancelled = await post(h, page, '/cancel', {});
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe(CANCEL);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session).toMatchObject({ status: 'CANCELLED', checkout_url: null });
    const late = await post(h, page, '', { card_number: '4242424242424242' });
    expect(late.body).toContain('This checkout was cancelled');
    expect(await attemptsOf(h, session.id)).toEqual([]);
    expect(await subscriptionsOf(h, session.id)).toEqual([]);
  });

  it('shows an expired page (410) once expires_at passed, and takes no payment', async () => {
    const { h, session, path } = await setup({}, { expires_in_hours: 1 });
    const page = await open(h, path);
    h.clock.set('2026-03-15T13:00:01.000Z');
    const expired = await open(h, path, page.cookie);
    expect(expired.status).toBe(410);
    expect(expired.body).toContain('This checkout link expired on 2026-03-15 13:00 UTC');
    const late = await post(h, page, '', { card_number: '4242424242424242' });
    expect(late.statusCode).toBe(410);
    expect(await attemptsOf(h, session.id)).toEqual([]);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session).toMatchObject({ status: 'EXPIRED', checkout_url: null });
    expect((await open(h, '/checkout/cs_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
  });

  it('takes a coupon code: refused codes say why, a good one is priced in and charged', async () => {
    const { h, session, path, customer } = await setup();
    const code = `PAGE${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    expect((await h.request('POST', '/api/v1/coupons', { body: { code, discount: { type: 'PERCENTAGE', percentage: '50' } } })).statusCode).toBe(201);
    const page = await open(h, path);
    const before = dueToday(page.body)!;
    const refused = await post(h, page, '/coupon', { coupon_code: 'NOPE' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('coupon_code &#39;NOPE&#39; is not a coupon of this tenant');
    const applied = await post(h, page, '/coupon', { coupon_code: code });
    expect(applied.statusCode, applied.body).toBe(303);
    const repriced = await open(h, path, page.cookie);
    expect(repriced.body).toContain('Discount');
    const after = dueToday(repriced.body)!;
    expect(Number.parseFloat(after)).toBeCloseTo(Number.parseFloat(before) / 2, 2);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.coupon_code).toBe(code);
    // the page as shown before the coupon would charge another amount: refused, nothing charged
    const stale = await post(h, repriced, '', { card_number: '4242424242424242', shown_amount: before.split(' ')[0]! });
    expect(stale.statusCode).toBe(409);
    expect(await attemptsOf(h, session.id)).toEqual([]);
    const paid = await post(h, repriced, '', { card_number: '4242424242424242', shown_amount: after.split(' ')[0]! });
    expect(paid.statusCode, paid.body).toBe(303);
    const [invoice] = await invoicesOf(h, customer.id);
    expect(`${(Number(invoice!.total_minor) / 100).toFixed(2)} EUR`).toBe(after);
    const sub = (await h.request('GET', `/api/v1/subscriptions/${(await subscriptionsOf(h, session.id))[0]!.id}`)).json();
    expect(sub.applied_coupons).toEqual([expect.objectContaining({ coupon: expect.objectContaining({ code }) })]);
  });

  it('with a free trial, saves the card only: nothing charged, subscription started, card made the default', async () => {
    const { h, session, path, customer } = await setup({ trialDays: 14, trialIsFree: true });
    const page = await open(h, path);
    expect(dueToday(page.body)).toBe('0.00 EUR');
    expect(page.body).toContain('14 days, free (until 2026-03-29)');
    expect(page.body).toContain('First invoice, 2026-03-29');
    expect(page.body).toContain('Save and start subscription');
    const done = await post(h, page, '', { card_number: '4242424242424242', shown_amount: '0.00' });
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe(SUCCESS);
    expect(await attemptsOf(h, session.id)).toEqual([]);
    expect(await invoicesOf(h, customer.id)).toEqual([]);
    const [sub] = await subscriptionsOf(h, session.id);
    expect((await h.request('GET', `/api/v1/subscriptions/${sub!.id}`)).json().status).toBe('TRIAL_ACTIVE');
    expect((await methodsOf(h, customer.id)).data).toEqual([expect.objectContaining({ card_last4: '4242', is_default: true })]);
  });

  it('offers only what payment_methods_config allows', async () => {
    const noCard = await setup({}, { payment_methods_config: { type: 'online', config: { card: { enabled: false } } } });
    const page = await open(noCard.h, noCard.path);
    expect(page.body).toContain('No online payment method is offered for this checkout');
    expect(page.body).not.toContain('card_number');
    const refused = await post(noCard.h, page, '', { card_number: '4242424242424242' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('a card number can only be typed on sandbox checkouts that take cards');
    expect(await attemptsOf(noCard.h, noCard.session.id)).toEqual([]);

    const bank = await setup({}, { payment_methods_config: { type: 'bank_transfer' } });
    expect((await open(bank.h, bank.path)).body).toContain('No online payment method is offered for this checkout');

    const cards = await setup({}, { payment_methods_config: { type: 'online', config: { card: { enabled: true } } } });
    expect((await open(cards.h, cards.path)).body).toContain('name="card_number"');
  });

  it('checkout completion raced twice: one subscription, one charge, one paid invoice', async () => {
    const { h, session, path, customer } = await setup();
    const page = await open(h, path);
    const answers = await Promise.all([
      post(h, page, '', { card_number: '4242424242424242' }),
      post(h, page, '', { card_number: '4242424242424242' }),
    ]);
    // each submit either completed (303) or found the other's payment in progress (409)
    for (const answer of answers) expect([303, 409], answer.body).toContain(answer.statusCode);
    expect(answers.some((a) => a.statusCode === 303)).toBe(true);
    await h.drainJobs();
    expect(await subscriptionsOf(h, session.id)).toHaveLength(1);
    expect((await attemptsOf(h, session.id)).map((a) => a.status)).toEqual(['SUCCEEDED']);
    const invoices = await invoicesOf(h, customer.id);
    expect(invoices).toEqual([expect.objectContaining({ payment_status: 'PAID' })]);
    expect(invoices[0]!.paid).toBe(invoices[0]!.total_minor);
    // the loser's card is not left saved
    expect((await methodsOf(h, customer.id)).data).toHaveLength(1);
  });
});

describe('hosted checkout page (Stripe Elements, against the fake)', () => {
  async function stripeTenant(h: Harness) {
    const existing = (await h.request('GET', '/api/v1/payment-providers', { key: h.production.apiKey })).json().data as unknown[];
    if (existing.length > 0) return;
    const res = await h.request('POST', '/api/v1/payment-providers', { key: h.production.apiKey, body: { provider: 'stripe', secret_key: SECRET_KEY, publishable_key: PUBLISHABLE_KEY } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().publishable_key).toBe(PUBLISHABLE_KEY);
  }

  it('refuses a publishable key that is not one, and one for GoCardless', async () => {
    const h = harness();
    const bad = await h.request('POST', '/api/v1/payment-providers', { key: h.production.apiKey, body: { provider: 'stripe', secret_key: SECRET_KEY, publishable_key: 'sk_live_nope12345678' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('publishable_key must be a Stripe publishable key, e.g. pk_live_51H...');
    const gc = await h.request('POST', '/api/v1/payment-providers', { key: h.production.apiKey, body: { provider: 'gocardless', secret_key: 'live_abcdefghijk', publishable_key: PUBLISHABLE_KEY } });
    expect(gc.statusCode).toBe(400);
  });

  it('renders Elements with a CSP allowing Stripe, and a posted PaymentMethod id is saved and charged once, also when raced', async () => {
    const h = harness();
    await stripeTenant(h);
    const { session, path, customer } = await setup({}, {}, h.production.apiKey);
    const page = await open(h, path);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src https:\/\/js\.stripe\.com 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(page.body).toContain('<script src="https://js.stripe.com/v3"');
    expect(page.body).toContain(`data-publishable-key="${PUBLISHABLE_KEY}"`);
    expect(page.body).toContain('<div id="card-element"></div>');

    const chargesBefore = stripe.fake.charges;
    const declined = await post(h, page, '', { payment_method_id: 'pm_card_chargeCustomerFail' });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('No money was taken');
    expect(await subscriptionsOf(h, session.id)).toEqual([]);

    const answers = await Promise.all([post(h, page, '', { payment_method_id: 'pm_card_visa' }), post(h, page, '', { payment_method_id: 'pm_card_visa' })]);
    for (const answer of answers) expect([303, 409]).toContain(answer.statusCode);
    await h.drainJobs();
    // one declined PaymentIntent, then exactly one that took money
    expect(stripe.fake.charges - chargesBefore).toBe(2);
    expect(await subscriptionsOf(h, session.id)).toHaveLength(1);
    // the service clock stands still in tests: attempts share created_at, so their order is not asserted
    expect((await attemptsOf(h, session.id)).map((a) => a.status).sort()).toEqual(['FAILED', 'SUCCEEDED']);
    expect(await invoicesOf(h, customer.id)).toEqual([expect.objectContaining({ payment_status: 'PAID' })]);

  });

  it('never charges twice: a crash between Stripe\'s answer and our write is reconciled with the same key and completes the session', async () => {
    const h = harness();
    await stripeTenant(h);
    const { session, path, customer } = await setup({}, {}, h.production.apiKey);
    const page = await open(h, path);
    const charging = h.service.payments.charging;
    const answers: string[] = [];
    charging.hooks.afterProviderAnswer = (_attempt, payment) => {
      answers.push(payment.id);
      if (answers.length === 1) throw new Error('process killed after the provider answered');
    };
    const chargesBefore = stripe.fake.charges;
    try {
      const crashed = await post(h, page, '', { payment_method_id: 'pm_card_visa' });
      expect(crashed.statusCode).toBe(500);
      expect(await attemptsOf(h, session.id)).toEqual([expect.objectContaining({ status: 'PENDING', invoice_id: null })]);
      // the customer tries again meanwhile: refused, nothing charged
      expect((await post(h, page, '', { payment_method_id: 'pm_card_visa' })).statusCode).toBe(409);
      h.clock.advance(10 * 60_000);
      await h.service.tasks[RECONCILE_TASK]!({ once: true });
      await h.drainJobs();
    } finally {
      charging.hooks.afterProviderAnswer = undefined;
    }
    expect(answers).toHaveLength(2);
    expect(new Set(answers).size).toBe(1);
    expect(stripe.fake.charges - chargesBefore).toBe(1);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`, { key: h.production.apiKey })).json().session).toMatchObject({ status: 'COMPLETED', payment_reference: answers[0] });
    expect(await subscriptionsOf(h, session.id)).toHaveLength(1);
    expect(await invoicesOf(h, customer.id)).toEqual([expect.objectContaining({ payment_status: 'PAID' })]);
  });
});
