// The portal's payment-method forms over HTTP (docs/portal.md, "Paying and payment methods"):
// CSRF refusals change nothing, a method of another customer is not reachable, an invalid token
// gets the error page, and on a GoCardless tenant the form saves an IBAN as a direct-debit
// mandate through the real SDK against the local fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { startGoCardlessFake, type GoCardlessFake } from '../harness/gocardless-fake.js';
import { createCustomer } from './invoices-support.js';

const overrides: Partial<Config> = {};
let fake: GoCardlessFake;
beforeAll(async () => {
  fake = await startGoCardlessFake();
  fake.tokens.add('live_PortalMethodsToken000Xy7Q');
  overrides.gocardlessApiBase = fake.apiBase;
});
afterAll(async () => fake.close());
const harness = useHarness(overrides);

/** A customer's portal as a browser holds it: the token, the CSRF cookie and the page's form field. */
async function openPortal(h: Harness, customerId: string, key = h.tenant.apiKey) {
  const token = (await h.request('POST', `/api/v1/customers/${customerId}/portal-token`, { key, body: {} })).json().token as string;
  const page = await h.request('GET', `/portal/customer?token=${token}`, { key: null });
  expect(page.statusCode).toBe(200);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = { cookie }) =>
    h.service.app.inject({
      method: 'POST', url: `/portal/customer${path}?token=${token}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString(),
    });
  return { token, csrf, cookie, page, post };
}

const methodsOf = async (h: Harness, customerId: string, key = h.tenant.apiKey) => (await h.request('GET', `/api/v1/customers/${customerId}/payment-methods`, { key })).json().data as Record<string, unknown>[];

describe('portal payment-method forms', () => {
  it('saves a card and answers 303 back to the section; a missing or forged CSRF field saves nothing (403)', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const portal = await openPortal(h, customer.id);
    expect(portal.page.headers['content-security-policy']).toContain("form-action 'self'");

    const saved = await portal.post('/payment-methods', { _csrf: portal.csrf, card_number: '4242 4242 4242 4242' });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`/portal/customer?token=${portal.token}&notice=method-added#payment-methods`);
    expect(await methodsOf(h, customer.id)).toEqual([expect.objectContaining({ card_last4: '4242', is_default: true })]);

    for (const form of [{ card_number: '5555555555554444' }, { _csrf: 'forged', card_number: '5555555555554444' }] as Record<string, string>[]) {
      const refused = await portal.post('/payment-methods', form);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('This form expired or did not come from this site');
    }
    // the right field without the cookie it was made for (another site's request) is refused too
    expect((await portal.post('/payment-methods', { _csrf: portal.csrf, card_number: '5555555555554444' }, {})).statusCode).toBe(403);
    expect(await methodsOf(h, customer.id)).toHaveLength(1);
  });

  it('cannot remove or default another customer\'s method, and an invalid token gets the error page', async () => {
    const h = harness();
    const mine = await createCustomer(h);
    const theirs = await createCustomer(h, { name: 'Someone else' });
    const other = await h.request('POST', `/api/v1/customers/${theirs.id}/payment-methods`, { body: { card_number: '4242424242424242' } });
    const otherId = other.json().id as string;
    const portal = await openPortal(h, mine.id);
    for (const action of ['remove', 'default']) {
      const res = await portal.post(`/payment-methods/${otherId}/${action}`, { _csrf: portal.csrf });
      expect(res.statusCode, action).toBe(404);
      expect(res.body).toContain('role="alert"');
    }
    expect(await methodsOf(h, theirs.id)).toEqual([expect.objectContaining({ id: otherId, is_default: true })]);

    const stranger = await h.service.app.inject({
      method: 'POST', url: '/portal/customer/payment-methods?token=pt_invalid', headers: { cookie: portal.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${portal.csrf}&card_number=4242424242424242`,
    });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.body).toContain('This portal link is invalid');
  });

  it('on a GoCardless tenant, saves an IBAN and holder as a direct-debit mandate, and shows a refused IBAN', async () => {
    const h = harness();
    const key = h.production.apiKey;
    expect((await h.request('POST', '/api/v1/payment-providers', { key, body: { provider: 'gocardless', secret_key: 'live_PortalMethodsToken000Xy7Q', webhook_secret: 'gc-portal-secret-8d2f1c' } })).statusCode).toBe(201);
    const customer = await createCustomer(h, { name: 'Direct Debit SARL' }, key);
    const portal = await openPortal(h, customer.id, key);
    expect(portal.page.body).toContain('Add a bank account (direct debit)');
    expect(portal.page.body).not.toContain('name="card_number"');

    const bad = await portal.post('/payment-methods', { _csrf: portal.csrf, iban: 'DE00 3704 0044 0532 0130 00', account_holder_name: 'Direct Debit SARL' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('role="alert"');
    // what the customer typed stays in the form
    expect(bad.body).toContain('value="Direct Debit SARL"');

    const saved = await portal.post('/payment-methods', { _csrf: portal.csrf, iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'Direct Debit SARL' });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(await methodsOf(h, customer.id, key)).toEqual([expect.objectContaining({ payment_method_type: 'DIRECT_DEBIT', provider: 'gocardless', is_default: true })]);
    const page = await h.request('GET', saved.headers.location as string, { key: null });
    expect(page.body).toMatch(/Direct debit \(sepa_core\)[^<]*, account ending \d\d/);
  });
});
