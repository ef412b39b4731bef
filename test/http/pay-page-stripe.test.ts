// The invoice pay page and the portal on a Stripe tenant (docs/payments.md, "Stripe Elements"):
// Elements and a CSP allowing Stripe's script with this response's nonce on Stripe tenants only,
// a posted PaymentMethod id saved and charged through the PAY_PAGE path by the real SDK against
// the local fake (declined with Stripe's message; charged once when submitted twice at once), and
// the portal's add form saving a card from a PaymentMethod id. Stripe.js itself is not reachable.
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness/app.js';
import { useStripeHarness } from '../harness/stripe-harness.js';
import { createCustomer, createDraft } from './invoices-support.js';
import { open, post } from './checkout-page-support.js';

const SECRET_KEY = 'sk_live_51HxPayPageElements9f2A';
const PUBLISHABLE_KEY = 'pk_live_51HxPayPageElements9f2A';
const stripe = useStripeHarness(SECRET_KEY);
const harness = stripe.harness;

/** The production tenant connected to Stripe (the harness keeps tenants between tests: an earlier connection is replaced). */
async function stripeTenant(h: Harness, publishableKey: string | null = PUBLISHABLE_KEY) {
  const existing = (await h.request('GET', '/api/v1/payment-providers', { key: h.production.apiKey })).json().data as { id: string }[];
  for (const c of existing) expect((await h.request('DELETE', `/api/v1/payment-providers/${c.id}`, { key: h.production.apiKey })).statusCode).toBeLessThan(300);
  const res = await h.request('POST', '/api/v1/payment-providers', { key: h.production.apiKey, body: { provider: 'stripe', secret_key: SECRET_KEY, ...(publishableKey ? { publishable_key: publishableKey } : {}) } });
  expect(res.statusCode, res.body).toBe(201);
}

/** A finalized invoice of a new customer of the production (Stripe) tenant, and its pay page path. */
async function unpaidInvoice(h: Harness) {
  const key = h.production.apiKey;
  const customer = await createCustomer(h, { name: 'Elements GmbH' }, key);
  const draft = await createDraft(h, customer.id, { tenantId: h.production.id });
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, { key });
  expect(res.statusCode, res.body).toBe(200);
  const invoice = res.json() as { id: string; payment_url: string };
  return { customer, invoice, path: new URL(invoice.payment_url).pathname, key };
}

const methodsOf = async (h: Harness, customerId: string) => (await h.request('GET', `/api/v1/customers/${customerId}/payment-methods`, { key: h.production.apiKey })).json().data as Record<string, unknown>[];
const attemptsOf = async (h: Harness, invoiceId: string) =>
  (await h.db.pool.query(`SELECT status, occasion FROM payment_attempts WHERE invoice_id = $1`, [invoiceId])).rows as { status: string; occasion: string }[];
const invoiceOf = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`, { key: h.production.apiKey })).json() as Record<string, unknown>;

describe('invoice pay page with Stripe Elements', () => {
  it('renders Elements and a CSP allowing Stripe with a nonce on Stripe tenants only', async () => {
    const h = harness();
    // a sandbox tenant: no script, no Stripe
    const sandboxCustomer = await createCustomer(h);
    const sandboxInvoice = (await h.request('POST', `/api/v1/invoices/${(await createDraft(h, sandboxCustomer.id)).invoice.id}/finalize`)).json() as { payment_url: string };
    const plain = await open(h, new URL(sandboxInvoice.payment_url).pathname);
    expect(plain.status).toBe(200);
    expect(String(plain.headers['content-security-policy'])).toBe("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(plain.body).not.toContain('<script');

    await stripeTenant(h);
    const { path } = await unpaidInvoice(h);
    const page = await open(h, path);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    const nonce = /script-src https:\/\/js\.stripe\.com 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, csp).toBeDefined();
    expect(csp).toContain('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(csp).toContain("form-action 'self'");
    expect(page.body).toContain(`<script src="https://js.stripe.com/v3" nonce="${nonce}"></script>`);
    expect(page.body).toContain(`<script nonce="${nonce}">`);
    expect(page.body).toContain(`data-publishable-key="${PUBLISHABLE_KEY}"`);
    expect(page.body).toContain('<div id="card-element"></div>');
    expect(page.body).toMatch(/<input type="radio" name="method" value="new" checked> A new card/);
    // a new nonce for each response
    const again = await open(h, path);
    expect(String(again.headers['content-security-policy'])).not.toContain(`'nonce-${nonce}'`);
  });

  it('without a publishable key, shows no Elements and no script', async () => {
    const h = harness();
    await stripeTenant(h, null);
    const { path } = await unpaidInvoice(h);
    const page = await open(h, path);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<script');
    expect(String(page.headers['content-security-policy'])).not.toContain('script-src');
    expect(page.body).toContain('Online card payment is not available yet for this invoice');
  });

  it('declines a posted PaymentMethod with Stripe\'s message (402, nothing kept), then pays with another, saved as the default', async () => {
    const h = harness();
    await stripeTenant(h);
    const { customer, invoice, path } = await unpaidInvoice(h);
    const page = await open(h, path);

    const malformed = await post(h, page, '', { method: 'new', payment_method_id: 'card_4242' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('payment_method_id must be the PaymentMethod id Stripe.js created');

    const declined = await post(h, page, '', { method: 'new', payment_method_id: 'pm_card_chargeCustomerFail' });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('Your card was declined.');
    expect(declined.body).toContain('No money was taken; try another card.');
    expect(await methodsOf(h, customer.id)).toEqual([]);

    const paid = await post(h, page, '', { method: 'new', payment_method_id: 'pm_card_visa' });
    expect(paid.statusCode, paid.body).toBe(303);
    expect(paid.headers.location).toBe(path);
    expect(await invoiceOf(h, invoice.id)).toMatchObject({ payment_status: 'PAID' });
    expect(await methodsOf(h, customer.id)).toEqual([expect.objectContaining({ provider: 'stripe', card_last4: '4242', is_default: true })]);
    expect((await attemptsOf(h, invoice.id)).map((a) => `${a.occasion}:${a.status}`).sort()).toEqual(['PAY_PAGE:FAILED', 'PAY_PAGE:SUCCEEDED']);
    expect((await open(h, path)).body).toContain('This invoice is paid');
  });

  it('charges once when the same form is submitted twice at once, keeping one saved card', async () => {
    const h = harness();
    await stripeTenant(h);
    const { customer, invoice, path } = await unpaidInvoice(h);
    const page = await open(h, path);
    const chargesBefore = stripe.fake.charges;
    const answers = await Promise.all([
      post(h, page, '', { method: 'new', payment_method_id: 'pm_card_visa' }),
      post(h, page, '', { method: 'new', payment_method_id: 'pm_card_visa' }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([303, 409]);
    expect(stripe.fake.charges - chargesBefore).toBe(1);
    expect(await attemptsOf(h, invoice.id)).toEqual([{ status: 'SUCCEEDED', occasion: 'PAY_PAGE' }]);
    expect(await invoiceOf(h, invoice.id)).toMatchObject({ payment_status: 'PAID' });
    expect(await methodsOf(h, customer.id)).toHaveLength(1);
  });
});

describe('portal payment methods with Stripe Elements', () => {
  it('shows Elements with a nonce\'d CSP and saves a card from a posted PaymentMethod id', async () => {
    const h = harness();
    await stripeTenant(h);
    const key = h.production.apiKey;
    const customer = await createCustomer(h, { name: 'Portal Elements AG' }, key);
    const token = (await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { key, body: {} })).json().token as string;
    const portal = await open(h, `/portal/customer?token=${token}`);
    expect(portal.status).toBe(200);
    const csp = String(portal.headers['content-security-policy']);
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, csp).toBeDefined();
    expect(portal.body).toContain(`<script src="https://js.stripe.com/v3" nonce="${nonce}"></script>`);
    expect(portal.body).toContain('<h3 id="add-method">Add a card</h3>');
    expect(portal.body).toContain('<div id="card-element"></div>');
    expect(portal.body).not.toContain('name="card_number"');

    const form = (fields: Record<string, string>) => h.service.app.inject({
      method: 'POST', url: `/portal/customer/payment-methods?token=${token}`,
      headers: { cookie: portal.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: portal.csrf, ...fields }).toString(),
    });
    const bad = await form({ payment_method_id: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('payment_method_id must be the PaymentMethod id Stripe.js created');

    const saved = await form({ payment_method_id: 'pm_card_mastercard' });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(await methodsOf(h, customer.id)).toEqual([expect.objectContaining({ provider: 'stripe', card_brand: 'mastercard', card_last4: '4444', is_default: true })]);
  });
});
