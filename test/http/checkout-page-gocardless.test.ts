// The hosted checkout page of a GoCardless tenant: payment_methods_config offers direct debit, the
// page takes an IBAN (a mandate), the first payment stays PENDING (AWAITING_PAYMENT) until GoCardless
// confirms it, then the session completes; the real SDK against the fake (docs/payments.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { useHarness } from '../harness/app.js';
import { startGoCardlessFake, type GoCardlessFake } from '../harness/gocardless-fake.js';
import { RECONCILE_TASK } from '../../src/modules/payments/index.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';
import { open, post } from './checkout-page-support.js';

const ACCESS_TOKEN = 'live_CheckoutPageAccessToken0Xy7Q';
const overrides: Partial<Config> = {};
let fake: GoCardlessFake;
beforeAll(async () => {
  fake = await startGoCardlessFake();
  fake.tokens.add(ACCESS_TOKEN);
  overrides.gocardlessApiBase = fake.apiBase;
});
afterAll(async () => fake.close());
const harness = useHarness(overrides);

describe('hosted checkout page (GoCardless direct debit)', () => {
  it('offers direct debit only, takes an IBAN, waits for the debit, and completes once GoCardless confirms it', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const key = h.production.apiKey;
    expect((await h.request('POST', '/api/v1/payment-providers', { key, body: { provider: 'gocardless', secret_key: ACCESS_TOKEN } })).statusCode).toBe(201);
    const plan = await seedPlan(h, h.production.id, key);
    const customer = await seedCustomer(h, key, { alias: 'gc-checkout' });
    const created = await h.request('POST', '/api/v1/checkout-sessions', {
      key, body: { customer_id: customer.id, plan_version_id: plan.versionId, success_url: 'https://shop.test/ok', payment_methods_config: { type: 'online', config: { direct_debit: { enabled: true } } } },
    });
    const session = created.json().session as { id: string; checkout_url: string };
    const page = await open(h, new URL(session.checkout_url).pathname);
    expect(page.body).toContain('name="iban"');
    expect(page.body).not.toContain('name="card_number"');
    expect(page.body).not.toContain('<script');

    const paymentsBefore = fake.payments;
    const answer = await post(h, page, '', { iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'ACME SAS' });
    expect(answer.statusCode, answer.body).toBe(202);
    expect(answer.body).toContain('Your payment is being processed');
    expect(fake.payments - paymentsBefore).toBe(1);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`, { key })).json().session).toMatchObject({ status: 'AWAITING_PAYMENT', subscription_id: null });

    // GoCardless confirms the debit; the reconciler reads it and the job completes the session
    const [attempt] = (await h.db.pool.query(`SELECT provider_payment_id FROM payment_attempts WHERE checkout_session_id = $1`, [session.id])).rows;
    fake.advance(attempt.provider_payment_id as string, 'confirmed');
    h.clock.advance(10 * 60_000);
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    await h.drainJobs();
    const done = (await h.request('GET', `/api/v1/checkout-sessions/${session.id}`, { key })).json().session;
    expect(done).toMatchObject({ status: 'COMPLETED', payment_reference: attempt.provider_payment_id });
    const invoices = (await h.db.pool.query(`SELECT payment_status FROM invoices WHERE customer_id = $1`, [customer.id])).rows;
    expect(invoices).toEqual([{ payment_status: 'PAID' }]);
    expect(fake.payments - paymentsBefore).toBe(1);
  });
});
