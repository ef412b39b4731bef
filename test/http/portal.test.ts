import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { createDraft } from './invoices-support.js';
import { createPortalTokensService } from '../../src/modules/portal/index.js';

const harness = useHarness();
const START = '2026-03-15T12:00:00.000Z';

beforeEach(() => harness().clock.set(START));

async function post(url: string, body: unknown, key?: string) {
  const res = await harness().request('POST', url, { body, key });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

/** A plan with a flat fee and a usage component on a SUM metric, a customer and its subscription, through the API. */
let fixtures = 0;
async function meteredCustomer(key?: string) {
  const n = ++fixtures;
  const family = await post('/api/v1/product_families', { name: 'Storage' }, key);
  const metric = await post('/api/v1/metrics', { name: 'GB stored', code: `portal_gb_${n}`, aggregation_type: 'SUM', aggregation_key: 'gb', product_family_id: family.id }, key);
  const rate = await post('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } }, key);
  const usage = await post('/api/v1/products', { name: 'Storage', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } }, key);
  const plan = await post('/api/v1/plans', {
    name: `Metered ${n}`, currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
    components: [
      { name: 'Platform', product_id: rate.id, fee: { rates: [{ price: '10.00' }] } },
      { name: 'Storage', product_id: usage.id, fee: { pricing: { rate: '0.50' } } },
    ],
  }, key);
  const customer = await post('/api/v1/customers', { name: `Acme ${n}`, currency: 'EUR', alias: `portal-acme-${n}` }, key);
  const subscription = await post('/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: '2026-03-01' }, key);
  await post('/api/v1/events/ingest', {
    allow_backfilling: true,
    events: [
      { event_id: `p${n}-0`, code: metric.code, customer_id: customer.id, timestamp: '2026-02-28T23:59:59Z', properties: { gb: '100' } }, // previous period
      { event_id: `p${n}-1`, code: metric.code, customer_id: customer.id, timestamp: '2026-03-01T00:00:00Z', properties: { gb: '1.5' } },
      { event_id: `p${n}-2`, code: metric.code, customer_id: customer.alias, timestamp: '2026-03-14T10:00:00Z', properties: { gb: '2.25' } },
    ],
  }, key);
  return { metric, plan, customer, subscription };
}

async function portalToken(h: Harness, customerIdOrAlias: string, body?: unknown, key?: string): Promise<string> {
  const res = await h.request('POST', `/api/v1/customers/${customerIdOrAlias}/portal-token`, { body, key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().token;
}

/** A portal call with the token in the header and no API key at all. */
const asPortal = (h: Harness, url: string, token: string) => h.request('GET', url, { key: null, headers: { 'x-portal-token': token } });

async function finalizedInvoice(h: Harness, customerId: string) {
  const draft = await createDraft(h, customerId);
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; invoice_number: string };
}

describe('POST /api/v1/customers/{id_or_alias}/portal-token', () => {
  it('issues a random token stored only as its SHA-256 hash, expiring after 24 h by default', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'portal_url', 'token']);
    expect(body.token).toMatch(/^pt_[0-9A-Za-z]{40}$/);
    expect(body.expires_at).toBe('2026-03-16T12:00:00.000Z');
    expect(body.portal_url).toBe(`http://localhost:80/portal/customer?token=${body.token}`);
    const rows = (await h.db.pool.query('SELECT * FROM portal_tokens WHERE customer_id = $1', [customer.id])).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(body.token).digest('hex'));
    expect(rows[0].tenant_id).toBe(h.tenant.id);
    expect(JSON.stringify(rows[0])).not.toContain(body.token);
    const again = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`);
    expect(again.json().token).not.toBe(body.token);
  });

  it('accepts the alias and expires_in_seconds at both bounds', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const short = await h.request('POST', `/api/v1/customers/${customer.alias}/portal-token`, { body: { expires_in_seconds: 60 } });
    expect(short.statusCode, short.body).toBe(200);
    expect(short.json().expires_at).toBe('2026-03-15T12:01:00.000Z');
    const long = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { body: { expires_in_seconds: 2_592_000 } });
    expect(long.json().expires_at).toBe('2026-04-14T12:00:00.000Z');
  });

  it.each([[59], [2_592_001], ['3600'], [1.5]])('answers 400 naming expires_in_seconds for %j', async (value) => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { body: { expires_in_seconds: value } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('BAD_REQUEST');
    expect(res.json().message).toContain('expires_in_seconds');
  });

  it('answers 404 for an unknown customer and for another tenant\'s customer', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const missing = await h.request('POST', '/api/v1/customers/cus_missing/portal-token');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 'NOT_FOUND', message: 'customer not found' });
    const other = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { key: h.other.apiKey });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('NOT_FOUND');
    const revokeOther = await h.request('DELETE', `/api/v1/customers/${customer.id}/portal-tokens`, { key: h.other.apiKey });
    expect(revokeOther.statusCode).toBe(404);
  });

  it('needs an API key', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { key: null });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });

  it('builds portal_url on the configured public base URL when there is one', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const service = createPortalTokensService({ pool: h.db.pool, clock: h.clock, publicBaseUrl: 'https://billing.example.com/' });
    const issued = await service.issue(h.tenant.id, customer.id, undefined, 'http://internal:3000');
    expect(issued.portalUrl).toBe(`https://billing.example.com/portal/customer?token=${issued.token}`);
  });
});

describe('portal JSON for the token holder', () => {
  it('shows the customer, its subscriptions with period and next invoice date, without an API key', async () => {
    const h = harness();
    const { customer, subscription, plan } = await meteredCustomer();
    const token = await portalToken(h, customer.id);
    const me = await asPortal(h, '/api/v1/portal/customer', token);
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toEqual({ id: customer.id, name: customer.name, alias: customer.alias, billing_email: null, currency: 'EUR', balance: '0.00' });
    expect(me.headers['cache-control']).toBe('no-store');
    expect(me.headers['referrer-policy']).toBe('no-referrer');

    const subs = await asPortal(h, '/api/v1/portal/subscriptions', token);
    expect(subs.statusCode, subs.body).toBe(200);
    const api = (await h.request('GET', `/api/v1/subscriptions/${subscription.id}`)).json();
    expect(subs.json().data).toEqual([{
      id: subscription.id, plan_id: plan.id, plan_name: plan.name, plan_version: api.plan_version, status: 'ACTIVE', currency: 'EUR',
      start_date: '2026-03-01', end_date: null, cancel_effective_date: null,
      current_period_start: '2026-03-01', current_period_end: '2026-04-01', next_invoice_date: '2026-04-01',
    }]);
    expect(api.next_invoice_date).toBe('2026-04-01');
  });

  it('shows current-period usage equal to what the usage API shows for the same period', async () => {
    const h = harness();
    const { customer, subscription, metric } = await meteredCustomer();
    const token = await portalToken(h, customer.id);
    const res = await asPortal(h, '/api/v1/portal/usage', token);
    expect(res.statusCode, res.body).toBe(200);
    const [entry] = res.json().data;
    expect(res.json().data).toHaveLength(1);
    expect(entry).toMatchObject({ subscription_id: subscription.id, period_start: '2026-03-01', period_end: '2026-04-01' });
    expect(entry.usage).toEqual([{ metric_id: metric.id, metric_name: 'GB stored', metric_code: metric.code, total_value: '3.75' }]);
    const api = await h.request('GET', `/api/v1/usage/customer/${customer.id}`, { query: { start_date: '2026-03-01', end_date: '2026-04-01', metric_id: metric.id } });
    expect(api.statusCode, api.body).toBe(200);
    expect(api.json().usage[0].total_value).toBe(entry.usage[0].total_value);

    // New usage shows at once, in both.
    await post('/api/v1/events/ingest', { events: [{ event_id: 'late-1', code: metric.code, customer_id: customer.id, timestamp: '2026-03-15T11:00:00Z', properties: { gb: '0.25' } }] });
    const after = (await asPortal(h, '/api/v1/portal/usage', token)).json().data[0].usage[0].total_value;
    expect(after).toBe('4');
    const apiAfter = await h.request('GET', `/api/v1/usage/customer/${customer.id}`, { query: { start_date: '2026-03-01', end_date: '2026-04-01', metric_id: metric.id } });
    expect(apiAfter.json().usage[0].total_value).toBe(after);
  });

  it('lists finalized invoices only, and downloads their PDF with the token in the query', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const invoice = await finalizedInvoice(h, customer.id);
    await createDraft(h, customer.id); // drafts are not shown
    const token = await portalToken(h, customer.id);
    const list = await asPortal(h, '/api/v1/portal/invoices', token);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toEqual([{
      id: invoice.id, invoice_number: invoice.invoice_number, status: 'FINALIZED', invoice_date: '2026-03-01', due_date: expect.any(String),
      period_start: null, period_end: null, currency: 'EUR', total: '144.00', amount_due: '144.00', payment_status: 'UNPAID', e_invoice_format: null,
    }]);
    expect(list.json().pagination_meta).toEqual({ page: 0, per_page: 10, total_items: 1, total_pages: 1 });

    const pdf = await h.request('GET', `/api/v1/portal/invoices/${invoice.id}/download?token=${token}`, { key: null });
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.headers['cache-control']).toBe('no-store');
    expect(pdf.headers['referrer-policy']).toBe('no-referrer');
  });

  it('downloads the structured e-invoice (XML) of an invoice whose entity opted in, and the hybrid PDF; 404 for an invoice without one', async () => {
    const h = harness();
    const entity = await post('/api/v1/invoicing-entities', {
      legal_name: 'Tally Billing SAS', country: 'FR', vat_number: 'FR83404833048', address_line1: '8 avenue des Ternes', city: 'Paris', zip_code: '75017',
      bank_details: { account_holder: 'Tally Billing SAS', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' }, e_invoicing_format: 'FACTURX',
    });
    const customer = await post('/api/v1/customers', { name: 'Acme SARL', currency: 'EUR', invoicing_entity_id: entity.id, billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' } });
    const invoice = await finalizedInvoice(h, customer.id);
    await h.drainJobs(); // the accounting PDF job writes the e-invoice
    const token = await portalToken(h, customer.id);
    expect((await asPortal(h, '/api/v1/portal/invoices', token)).json().data[0]).toMatchObject({ id: invoice.id, e_invoice_format: 'FACTURX' });

    const xml = await h.request('GET', `/api/v1/portal/invoices/${invoice.id}/e-invoice?token=${token}`, { key: null });
    expect(xml.statusCode, xml.body).toBe(200);
    expect(xml.headers['content-type']).toContain('application/xml');
    expect(xml.headers['content-disposition']).toBe(`attachment; filename="${invoice.invoice_number}-factur-x.xml"`);
    expect(xml.headers['cache-control']).toBe('no-store');
    // the same bytes the API serves
    expect(xml.body).toBe((await h.request('GET', `/api/v1/invoices/${invoice.id}/e-invoice`)).body);
    expect(xml.body).toContain('CrossIndustryInvoice');
    expect(xml.body).toContain(`<ram:ID>${invoice.invoice_number}</ram:ID>`);
    // the PDF link gives the PDF/A-3 with the XML attached (docs/einvoicing.md)
    const pdf = await asPortal(h, `/api/v1/portal/invoices/${invoice.id}/download`, token);
    expect(pdf.rawPayload.includes(Buffer.from('factur-x.xml'))).toBe(true);
    const page = await h.request('GET', `/portal/customer?token=${token}`, { key: null });
    expect(page.body).toContain(`href="/api/v1/portal/invoices/${invoice.id}/e-invoice?token=${token}" download>E-invoice (XML)`);

    // an entity that never opted in: no document, no link, a 404; another customer's token: a 404
    const { customer: plain } = await meteredCustomer();
    const plainInvoice = await finalizedInvoice(h, plain.id);
    const plainToken = await portalToken(h, plain.id);
    expect((await asPortal(h, `/api/v1/portal/invoices/${plainInvoice.id}/e-invoice`, plainToken)).statusCode).toBe(404);
    expect((await h.request('GET', `/portal/customer?token=${plainToken}`, { key: null })).body).not.toContain('E-invoice (XML)');
    const other = await asPortal(h, `/api/v1/portal/invoices/${invoice.id}/e-invoice`, plainToken);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ code: 'NOT_FOUND', message: 'invoice not found' });
  });

  it("answers 404 for another customer's invoice, in the same tenant or another", async () => {
    const h = harness();
    const a = await meteredCustomer();
    const b = await meteredCustomer();
    const foreign = await meteredCustomer(h.other.apiKey);
    const invoiceA = await finalizedInvoice(h, a.customer.id);
    const tokenB = await portalToken(h, b.customer.id);
    const tokenForeign = await portalToken(h, foreign.customer.id, undefined, h.other.apiKey);
    for (const token of [tokenB, tokenForeign]) {
      const res = await asPortal(h, `/api/v1/portal/invoices/${invoiceA.id}/download`, token);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'invoice not found' });
      expect((await asPortal(h, '/api/v1/portal/invoices', token)).json().data).toEqual([]);
    }
    expect((await asPortal(h, '/api/v1/portal/customer', tokenForeign)).json().id).toBe(foreign.customer.id);
    expect((await asPortal(h, '/api/v1/portal/usage', tokenB)).json().data[0].subscription_id).toBe(b.subscription.id);
  });

  it.each(['/api/v1/portal/customer', '/api/v1/portal/subscriptions', '/api/v1/portal/usage', '/api/v1/portal/invoices'])('%s answers 401 without a valid token', async (url) => {
    const h = harness();
    const missing = await h.request('GET', url, { key: null });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('UNAUTHORIZED');
    expect(missing.headers['cache-control']).toBe('no-store');
    const bogus = await asPortal(h, url, 'pt_notarealtokennotarealtokennotarealtoken');
    expect(bogus.statusCode).toBe(401);
    expect(bogus.json()).toEqual({ code: 'UNAUTHORIZED', message: 'invalid, expired or revoked portal token; ask the merchant for a new portal link' });
    // An API key is not a portal token.
    expect((await asPortal(h, url, h.tenant.apiKey)).statusCode).toBe(401);
  });

  it('expires by the clock', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const token = await portalToken(h, customer.id, { expires_in_seconds: 60 });
    h.clock.advance(59_999);
    expect((await asPortal(h, '/api/v1/portal/customer', token)).statusCode).toBe(200);
    h.clock.advance(1);
    const expired = await asPortal(h, '/api/v1/portal/customer', token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('UNAUTHORIZED');
  });

  it("revokes all of a customer's tokens, and only that customer's", async () => {
    const h = harness();
    const a = await meteredCustomer();
    const b = await meteredCustomer();
    const first = await portalToken(h, a.customer.id);
    const second = await portalToken(h, a.customer.id);
    const other = await portalToken(h, b.customer.id);
    const res = await h.request('DELETE', `/api/v1/customers/${a.customer.alias}/portal-tokens`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ revoked: 2 });
    for (const token of [first, second]) expect((await asPortal(h, '/api/v1/portal/customer', token)).statusCode).toBe(401);
    expect((await asPortal(h, '/api/v1/portal/customer', other)).statusCode).toBe(200);
    const fresh = await portalToken(h, a.customer.id);
    expect((await asPortal(h, '/api/v1/portal/customer', fresh)).statusCode).toBe(200);
    expect((await h.request('DELETE', `/api/v1/customers/${a.customer.id}/portal-tokens`)).json()).toEqual({ revoked: 1 });
  });
});

describe('GET /portal/customer', () => {
  it('renders usage, subscriptions and invoices with download links, uncached and without referrer', async () => {
    const h = harness();
    const { customer, plan } = await meteredCustomer();
    const invoice = await finalizedInvoice(h, customer.id);
    const token = await portalToken(h, customer.id);
    const res = await h.request('GET', `/portal/customer?token=${token}`, { key: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain(`<h1>Billing portal — ${customer.name}</h1>`);
    expect(res.body).toContain(`<td>${plan.name}</td><td>GB stored</td><td class="num">3.75</td>`);
    expect(res.body).toContain(`<td>${invoice.invoice_number}</td><td>2026-03-01</td>`);
    expect(res.body).toContain('144.00 EUR');
    expect(res.body).toContain(`href="/api/v1/portal/invoices/${invoice.id}/download?token=${token}"`);
  });

  it('answers an error page with 401 for an invalid, expired or missing token', async () => {
    const h = harness();
    const { customer } = await meteredCustomer();
    const token = await portalToken(h, customer.id, { expires_in_seconds: 60 });
    h.clock.advance(60_000);
    for (const url of [`/portal/customer?token=${token}`, '/portal/customer?token=pt_nope', '/portal/customer']) {
      const res = await h.request('GET', url, { key: null });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.body).toContain('role="alert"');
      expect(res.body).toContain('This portal link is invalid, has expired or was revoked.');
    }
  });
});
