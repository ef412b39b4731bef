import { describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import type { ErrorObject } from 'ajv';
import { Type } from 'typebox';
import { DecimalString } from '../../src/http/schemas.js';
import { describeValidationError, validatorCompiler } from '../../src/http/validation.js';
import { useHarness, type Harness } from '../harness/app.js';
import { authorizeUrl, connectMerchant, createClient, pkce, tokenRequest } from './oauth-helpers.js';

const harness = useHarness();

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A raw request: the payload is sent exactly as given, with exactly the given content type. */
function raw(h: Harness, method: InjectOptions['method'], url: string, payload: string | undefined, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${h.tenant.apiKey}` };
  if (contentType) headers['content-type'] = contentType;
  return h.service.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
}

async function draftPlan(h: Harness): Promise<string> {
  const post = async (url: string, body: unknown) => {
    const res = await h.request('POST', url, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const family = await post('/api/v1/product_families', { name: 'Teaching family' });
  const product = await post('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const plan = await post('/api/v1/plans', {
    name: 'Pro',
    currency: 'EUR',
    product_family_id: family.id,
    components: [{ name: 'Platform fee', product_id: product.id, fee: { rates: [{ price: '49.00' }] } }],
  });
  return plan.id;
}

describe('content types', () => {
  it('answers 415 saying JSON is expected when a JSON route gets a form body (curl -d without -H)', async () => {
    const h = harness();
    const res = await raw(h, 'POST', '/api/v1/product_families', '{"name":"Family"}', FORM_TYPE);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      code: 'BAD_REQUEST',
      message: "this endpoint takes a JSON body: send the header Content-Type: application/json (curl: -H 'Content-Type: application/json')",
    });
    const rows = await h.db.pool.query(`SELECT count(*)::int AS n FROM product_families WHERE tenant_id = $1`, [h.tenant.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('still takes form bodies on the OAuth token endpoint and the HTML pages', async () => {
    const h = harness();
    const token = await h.service.app.inject({ method: 'POST', url: '/api/v1/oauth/token', headers: { 'content-type': FORM_TYPE }, payload: 'grant_type=authorization_code' });
    expect(token.statusCode).toBe(401);
    expect(token.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const signIn = await h.service.app.inject({ method: 'POST', url: '/signin', headers: { 'content-type': FORM_TYPE }, payload: 'email=a%40b.co&password=x' });
    expect(signIn.statusCode).not.toBe(415);
    expect(signIn.headers['content-type']).toContain('text/html');
  });

  it('names the content type it does not support', async () => {
    const h = harness();
    const plain = await raw(h, 'POST', '/api/v1/product_families', '{"name":"Family"}', 'text/plain; charset=utf-8');
    expect(plain.statusCode).toBe(415);
    expect(plain.json()).toEqual({ code: 'BAD_REQUEST', message: "content-type 'text/plain' is not supported; send application/json" });
    const xml = await raw(h, 'POST', '/api/v1/product_families', '<name/>', 'application/xml');
    expect(xml.json().message).toBe("content-type 'application/xml' is not supported; send application/json");
    const untyped = await h.service.app.inject({ method: 'POST', url: '/api/v1/product_families', headers: { authorization: `Bearer ${h.tenant.apiKey}`, 'content-length': '17' }, payload: Buffer.from('{"name":"Family"}') });
    expect(untyped.statusCode).toBe(415);
    expect(untyped.json().message).toBe('the body has no Content-Type header; send application/json');
  });

  it('accepts an empty JSON body on an action that takes none, and on a body whose fields are all optional', async () => {
    const h = harness();
    const planId = await draftPlan(h);
    const published = await raw(h, 'POST', `/api/v1/plans/${planId}/publish`, '', JSON_TYPE);
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json().status).toBe('ACTIVE');
    const patched = await raw(h, 'PATCH', '/api/v1/tenant', '', JSON_TYPE);
    expect(patched.statusCode, patched.body).toBe(200);
    const bare = await raw(h, 'PATCH', '/api/v1/tenant', undefined);
    expect(bare.statusCode, bare.body).toBe(200);
  });

  it('answers a clear 400 to an empty body where fields are required', async () => {
    const h = harness();
    for (const contentType of [JSON_TYPE, undefined]) {
      const res = await raw(h, 'POST', '/api/v1/product_families', contentType ? '' : undefined, contentType);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'body is empty; this endpoint takes a JSON object with name (required)' });
    }
  });
});

describe('validation messages', () => {
  it('says what a date looks like, with an example, and tells an impossible date apart', async () => {
    const h = harness();
    const summary = (start: string) => h.request('GET', '/api/v1/usage/summary', { query: { start_date: start, end_date: '2026-10-01' } });
    for (const start of ['24/09/2026', '2026-09-24T13:45:00Z']) {
      const res = await summary(start);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'start_date must be a date as YYYY-MM-DD, e.g. 2026-09-24 (query)' });
    }
    expect((await summary('2026-02-30')).json().message).toBe('start_date 2026-02-30 is not a calendar date; expected YYYY-MM-DD, e.g. 2026-09-24 (query)');
  });

  it('says what a date-time looks like, with an example, and tells an impossible date apart', async () => {
    const h = harness();
    const markPaid = (paidAt: string) => h.request('POST', '/api/v1/invoices/inv_none/mark-paid', { body: { paid_at: paidAt } });
    for (const paidAt of ['2026-09-24', '2026-09-24T13:45:00', '24/09/2026 13:45']) {
      const res = await markPaid(paidAt);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('paid_at must be a date-time in RFC 3339 with a time zone, e.g. 2026-09-24T13:45:00Z (body)');
    }
    expect((await markPaid('2026-02-30T10:00:00Z')).json().message).toBe(
      'paid_at 2026-02-30 is not a calendar date; expected RFC 3339 with a time zone, e.g. 2026-09-24T13:45:00Z (body)',
    );
  });

  it('asks for a decimal string when a price arrives as a JSON number', async () => {
    const h = harness();
    const res = await h.request('POST', '/api/v1/plans', {
      body: { name: 'Pro', currency: 'EUR', product_family_id: 'fam_x', components: [{ name: 'Fee', product_id: 'prod_x', fee: { rates: [{ price: 49 }] } }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'components[0].fee.rates[0].price must be a decimal string such as "49.00", not a JSON number (body)' });
    const commitment = await h.request('POST', '/api/v1/plans', {
      body: { name: 'Pro', currency: 'EUR', product_family_id: 'fam_x', components: [], minimum_commitment: { amount: 100 } },
    });
    expect(commitment.json().message).toBe('minimum_commitment.amount must be a decimal string such as "49.00", not a JSON number (body)');
    const creditLine = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: 'inv_x', reason: 'Goodwill', credit_type: 'CREDIT_TO_BALANCE', lines: [{ invoice_line_id: 'line_x', amount: 20 }] } });
    expect(creditLine.json().message).toBe('lines[0].amount must be a decimal string such as "20.00", not a JSON number (body)');
    const name = await h.request('POST', '/api/v1/product_families', { body: { name: 42 } });
    expect(name.json().message).toBe('name must be string (body)');
  });

  it('checks fields declared with the shared DecimalString helper and says the same', () => {
    const validate = validatorCompiler({ schema: Type.Object({ amount: DecimalString() }), httpPart: 'body', method: 'POST', url: '/x' }) as unknown as
      ((data: unknown) => boolean) & { errors?: ErrorObject[] };
    const messageFor = (amount: unknown) => (validate({ amount }) ? undefined : describeValidationError(validate.errors!, 'body'));
    expect(messageFor('49.00')).toBeUndefined();
    expect(messageFor('-0.5')).toBeUndefined();
    expect(messageFor(49)).toBe('amount must be a decimal string such as "49.00", not a JSON number (body)');
    expect(messageFor('49,00')).toBe('amount must be a decimal string such as "49.00" (body)');
  });
});

describe('unknown query parameters', () => {
  it('answers 400 naming an unknown parameter and the known ones', async () => {
    const res = await harness().request('GET', '/api/v1/product_families', { query: { limit: '5' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'limit is not a known query parameter; known: order_by, page, per_page, search (query)' });
  });

  it('names several unknown parameters at once, and answers 400 where an endpoint takes none', async () => {
    const h = harness();
    const several = await h.request('GET', '/api/v1/product_families', { query: { limit: '5', offset: '10', page: '0' } });
    expect(several.json().message).toMatch(/^limit, offset are not known query parameters; known: /);
    const none = await h.request('GET', '/api/v1/tenant', { query: { verbose: '1' } });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({ code: 'BAD_REQUEST', message: 'verbose is not a known query parameter; this endpoint takes none (query)' });
  });

  it('keeps known parameters working and lets the OAuth authorization endpoint ignore unknown ones (RFC 6749 3.1)', async () => {
    const h = harness();
    expect((await h.request('GET', '/api/v1/product_families', { query: { page: '0', per_page: '5' } })).statusCode).toBe(200);
    const client = await createClient(h);
    const authorize = await h.service.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: pkce().challenge, utm_source: 'mail' }) });
    expect(authorize.statusCode, authorize.body).toBe(302);
    expect(authorize.headers.location).toMatch(/^\/signin\?return_to=/);
  });
});

describe('401 answers', () => {
  it('carry code UNAUTHORIZED on every API route, shape B ones included', async () => {
    const h = harness();
    for (const [method, url] of [['GET', '/api/v1/products'], ['POST', '/api/v1/plans/plan_x/unarchive'], ['GET', '/api/v1/product_families']] as const) {
      for (const key of [null, 'oat_doesnotexist', 'sk_sandbox_doesnotexist000000000000000000']) {
        const res = await h.request(method, url, { key });
        expect(res.statusCode, `${method} ${url} ${key}`).toBe(401);
        expect(res.json()).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
      }
    }
  });

  it('carry code UNAUTHORIZED for a revoked OAuth access token, while the OAuth endpoints keep RFC 6749 bodies', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens } = await connectMerchant(h, client);
    expect((await h.request('GET', '/api/v1/products', { key: tokens.access_token })).statusCode).toBe(200);
    expect((await tokenRequest(h, client, { token: tokens.access_token }, 'revoke')).statusCode).toBe(200);
    const res = await h.request('GET', '/api/v1/products', { key: tokens.access_token });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: 'UNAUTHORIZED', message: 'invalid, expired or revoked token' });
    const badClient = await tokenRequest(h, client, { token: tokens.access_token }, 'introspect', 'wrong secret');
    expect(badClient.statusCode).toBe(401);
    expect(badClient.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });
});
