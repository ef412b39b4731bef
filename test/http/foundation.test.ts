import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { useHarness } from '../harness/app.js';

const harness = useHarness();
const limited = useHarness({ rateLimit: { ...loadConfig({}).rateLimit, readPerSecond: 3 }, bodyLimitBytes: 2048 });

async function family(h = harness()) {
  return (await h.request('POST', '/api/v1/product_families', { body: { name: 'F' } })).json() as { id: string };
}

describe('operations endpoints', () => {
  it('answers health, readiness and Prometheus metrics without a key', async () => {
    const h = harness();
    expect((await h.request('GET', '/health', { key: null })).json()).toEqual({ status: 'ok' });
    expect((await h.request('GET', '/ready', { key: null })).json()).toEqual({ status: 'ready' });
    const metrics = await h.request('GET', '/metrics', { key: null });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('http_request_duration_seconds');
  });

  it('echoes a given x-request-id and makes one otherwise', async () => {
    const h = harness();
    expect((await h.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id']).toBe('abc-123');
    expect((await h.request('GET', '/health')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('authentication', () => {
  it.each([
    ['missing', null, undefined],
    ['malformed', null, 'Token abc'],
    ['unknown', 'sk_sandbox_doesnotexist000000000000000000', undefined],
    ['not a key at all', 'hello', undefined],
  ])('answers 401 UNAUTHORIZED for a %s key', async (_name, key, header) => {
    const h = harness();
    const res = await h.request('GET', '/api/v1/product_families', { key, headers: header ? { authorization: header } : {} });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
  });

  it('answers the product list\'s 401 with its code too, although the list errors in shape B', async () => {
    const res = await harness().request('GET', '/api/v1/products', { key: null });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('Authorization') });
  });

  it('creates keys shown once, stores only a hash, records use, and revokes at once', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/api-keys', { body: { name: 'ci' } });
    expect(created.statusCode).toBe(201);
    const { id, key } = created.json();
    expect(key).toMatch(/^sk_sandbox_[0-9A-Za-z]{32}$/);
    const stored = await h.db.pool.query(`SELECT * FROM api_keys WHERE id = $1`, [id]);
    expect(JSON.stringify(stored.rows[0])).not.toContain(key.slice(11));
    expect((await h.request('GET', '/api/v1/products', { key })).statusCode).toBe(200);
    const listed = (await h.request('GET', '/api/v1/api-keys')).json().data.find((k: { id: string }) => k.id === id);
    expect(listed).toMatchObject({ name: 'ci', last_used_at: h.clock.now().toISOString(), revoked_at: null });
    expect(listed.key).toBeUndefined();
    expect((await h.request('POST', `/api/v1/api-keys/${id}/revoke`)).statusCode).toBe(200);
    expect((await h.request('GET', '/api/v1/products', { key })).statusCode).toBe(401);
  });

  it('does not let a tenant revoke another tenant\'s key', async () => {
    const h = harness();
    const { id, key } = (await h.request('POST', '/api/v1/api-keys', { body: { name: 'mine' } })).json();
    expect((await h.request('POST', `/api/v1/api-keys/${id}/revoke`, { key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('GET', '/api/v1/products', { key })).statusCode).toBe(200);
  });

  it('gives production keys a production prefix', () => {
    expect(harness().production.apiKey).toMatch(/^sk_prod_/);
  });
});

describe('tenant settings', () => {
  it('reads and writes disable_emails for the calling tenant only', async () => {
    const h = harness();
    expect((await h.request('GET', '/api/v1/tenant')).json()).toMatchObject({ id: h.tenant.id, environment: 'sandbox', disable_emails: false });
    const patched = await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: true } });
    expect(patched.json().disable_emails).toBe(true);
    expect((await h.request('GET', '/api/v1/tenant', { key: h.other.apiKey })).json().disable_emails).toBe(false);
    const bad = await h.request('PATCH', '/api/v1/tenant', { body: { disable_emails: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('disable_emails');
  });
});

describe('bad input answers the contract error shape', () => {
  it('malformed JSON', async () => {
    const res = await harness().request('POST', '/api/v1/product_families', { body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('JSON') });
  });

  it('wrong content type', async () => {
    const res = await harness().request('POST', '/api/v1/product_families', { body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('content-type') });
  });

  it('oversized body', async () => {
    const res = await limited().request('POST', '/api/v1/product_families', { body: { name: 'x'.repeat(5000) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('too large') });
  });

  it('unknown route', async () => {
    const res = await harness().request('GET', '/api/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining('/api/v1/nothing-here') });
  });

  it('missing required field, unknown enum value and a number where a string belongs name the field', async () => {
    const h = harness();
    const f = await family(h);
    const missing = await h.request('POST', '/api/v1/products', { body: { product_family_id: f.id, fee_structure: { type: 'RATE' } } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/^name is required/);
    const badEnum = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: f.id, fee_structure: { type: 'MONTHLY' } } });
    expect(badEnum.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^fee_structure\.type must be one of RATE/) });
    const number = await h.request('POST', '/api/v1/products', { body: { name: 42, product_family_id: f.id, fee_structure: { type: 'RATE' } } });
    expect(number.json().message).toMatch(/^name must be string/);
    const rows = await h.db.pool.query(`SELECT count(*)::int AS n FROM products WHERE tenant_id = $1`, [h.tenant.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('text the database cannot hold (NUL, unpaired surrogate) in a body, path or query, or a body nested absurdly deep, is a 400 naming the field', async () => {
    const h = harness();
    const nul = await h.request('POST', '/api/v1/customers', { body: { name: 'a\u0000b', currency: 'EUR' } });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({ code: 'BAD_REQUEST', message: 'name contains a NUL character or an unpaired surrogate' });
    const surrogate = await h.request('POST', '/api/v1/customers', { body: { name: 'ok', currency: 'EUR', metadata: { note: 'x\ud800' } } });
    expect(surrogate.json()).toEqual({ code: 'BAD_REQUEST', message: 'metadata.note contains a NUL character or an unpaired surrogate' });
    const pair = await h.request('POST', '/api/v1/product_families', { body: { name: 'euro 💶' } });
    expect(pair.statusCode).toBe(201);
    const path = await h.request('GET', '/api/v1/customers/%00');
    expect(path.statusCode).toBe(400);
    expect(path.json().message).toMatch(/contains a NUL character/);
    const query = await h.request('GET', '/api/v1/customers?search=%00');
    expect(query.statusCode).toBe(400);
    const deep = await h.service.app.inject({
      method: 'POST', url: '/api/v1/product_families',
      headers: { authorization: `Bearer ${h.tenant.apiKey}`, 'content-type': 'application/json' },
      payload: `{"name":"deep","alias":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().message).toMatch(/^alias(\.a)+ nests more than 32 levels deep$/);
    const undecodable = await h.request('GET', '/api/v1/customers/%ED%A0%80');
    expect(undecodable.statusCode).toBe(400);
    expect(undecodable.json()).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
    const rows = await h.db.pool.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1`, [h.tenant.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('an indexed name too long for the database is a 400 naming the field, for each catalog object and customers', async () => {
    const h = harness();
    const f = await family(h);
    // Random text does not compress: 3,000 characters would overflow a btree entry.
    const long = randomBytes(2_250).toString('base64');
    const attempts = [
      ['/api/v1/customers', { name: long, currency: 'EUR' }],
      ['/api/v1/products', { name: long, product_family_id: f.id, fee_structure: { type: 'RATE' } }],
      ['/api/v1/metrics', { name: long, code: 'long_name', aggregation_type: 'COUNT', product_family_id: f.id }],
      ['/api/v1/features', { name: long, code: 'long_name', feature_type: { type: 'BOOLEAN' } }],
    ] as const;
    for (const [url, body] of attempts) {
      const res = await h.request('POST', url, { body });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({ code: 'BAD_REQUEST', message: 'name must NOT have more than 255 characters (body)' });
    }
    const fits = await h.request('POST', '/api/v1/customers', { body: { name: long.slice(0, 255), currency: 'EUR' } });
    expect(fits.statusCode).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored response for the same key and body', async () => {
    const h = harness();
    const headers = { 'idempotency-key': 'fam-1' };
    const first = await h.request('POST', '/api/v1/product_families', { body: { name: 'Once' }, headers });
    const second = await h.request('POST', '/api/v1/product_families', { body: { name: 'Once' }, headers });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    const rows = await h.db.pool.query(`SELECT count(*)::int AS n FROM product_families WHERE tenant_id = $1 AND name = 'Once'`, [h.tenant.id]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('answers 409 for the same key with another body', async () => {
    const h = harness();
    const headers = { 'idempotency-key': 'fam-2' };
    await h.request('POST', '/api/v1/product_families', { body: { name: 'A' }, headers });
    const res = await h.request('POST', '/api/v1/product_families', { body: { name: 'B' }, headers });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ code: 'CONFLICT', message: expect.stringContaining('Idempotency-Key') });
  });

  it('executes concurrent requests with one key once', async () => {
    const h = harness();
    const headers = { 'idempotency-key': 'fam-race' };
    const results = await Promise.all(Array.from({ length: 8 }, () => h.request('POST', '/api/v1/product_families', { body: { name: 'Race' }, headers })));
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    const rows = await h.db.pool.query(`SELECT count(*)::int AS n FROM product_families WHERE tenant_id = $1 AND name = 'Race'`, [h.tenant.id]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('keeps keys per tenant and for at least 24 hours', async () => {
    const h = harness();
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await h.request('POST', '/api/v1/product_families', { body: { name: 'Mine' }, headers });
    const theirs = await h.request('POST', '/api/v1/product_families', { body: { name: 'Mine' }, headers, key: h.other.apiKey });
    expect(theirs.json().id).not.toBe(mine.json().id);
    h.clock.advance(23 * 3600 * 1000);
    expect((await h.request('POST', '/api/v1/product_families', { body: { name: 'Mine' }, headers })).json().id).toBe(mine.json().id);
    h.clock.advance(2 * 3600 * 1000);
    expect((await h.request('POST', '/api/v1/product_families', { body: { name: 'Mine' }, headers })).json().id).not.toBe(mine.json().id);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After past the limit, per key, until the window passes', async () => {
    const h = limited();
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/api/v1/product_families')).statusCode).toBe(200);
    const limitedRes = await h.request('GET', '/api/v1/product_families');
    expect(limitedRes.statusCode).toBe(429);
    expect(limitedRes.json()).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.any(String) });
    expect(Number(limitedRes.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await h.request('GET', '/api/v1/product_families', { key: h.other.apiKey })).statusCode).toBe(200);
    h.clock.advance(1000);
    expect((await h.request('GET', '/api/v1/product_families')).statusCode).toBe(200);
  });
});
