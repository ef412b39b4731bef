import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../harness/app.js';
import { useHarness } from '../harness/app.js';
import { Browser, csrfOf } from './oauth-helpers.js';

/**
 * The sign-in session as an API credential (docs/dashboard-api.md): the harness's owner of
 * organization A signs in through /signin, then calls /api/v1 with the cookie, X-Tenant-Id and,
 * on writes, X-CSRF-Token; organization B's tenant stays out of reach.
 */
const harness = useHarness();
const ORIGIN = 'http://localhost:80';

let browser: Browser;
let csrf: string;

async function signIn(h: Harness, email: string, password: string): Promise<Browser> {
  const b = new Browser(h);
  const form = await b.get('/signin');
  const res = await b.post('/signin', { _csrf: csrfOf(form.body), email, password, return_to: '/account' });
  expect(res.statusCode, res.body).toBe(303);
  return b;
}

/** An API call as the dashboard makes it: the cookie, the tenant and (given) the CSRF token. */
function call(method: InjectOptions['method'], url: string, options: { tenant?: string | null; csrf?: string; body?: unknown; headers?: Record<string, string>; cookie?: string } = {}) {
  const h = harness();
  const headers: Record<string, string> = { cookie: options.cookie ?? browser.cookie, origin: ORIGIN, ...options.headers };
  const tenant = options.tenant === undefined ? h.tenant.id : options.tenant;
  if (tenant !== null) headers['x-tenant-id'] = tenant;
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  return h.service.app.inject({ method, url, headers, ...(options.body !== undefined ? { payload: options.body as object } : {}) });
}

const customerCount = async (h: Harness, tenantId: string) =>
  (await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1', [tenantId])).rows[0]!.n;

beforeAll(async () => {
  const h = harness();
  const owner = (await h.db.pool.query<{ email: string }>(
    `SELECT u.email FROM users u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = $1`, [h.tenant.organizationId],
  )).rows[0]!.email;
  browser = await signIn(h, owner, 'password-a');
  const session = await call('GET', '/api/v1/session', { tenant: null });
  expect(session.statusCode, session.body).toBe(200);
  csrf = session.json().csrf_token;
});

describe('GET /api/v1/session', () => {
  it('answers the user, their organization with its production and sandbox tenants, and a CSRF token', async () => {
    const h = harness();
    const res = await call('GET', '/api/v1/session', { tenant: null });
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.user.email).toMatch(/^owner\d+@a\.test$/);
    expect(body.organizations).toEqual([{
      id: h.tenant.organizationId,
      name: 'Org A',
      role: 'ADMIN',
      tenants: expect.arrayContaining([
        expect.objectContaining({ id: h.tenant.id, environment: 'sandbox' }),
        expect.objectContaining({ id: h.production.id, environment: 'production' }),
      ]),
    }]);
    expect(body.organizations[0].tenants).toHaveLength(2);
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(body)).not.toContain(h.other.id);
  });

  it('is 401 without a signed-in session, and after sign-out', async () => {
    const h = harness();
    const none = await h.service.app.inject({ method: 'GET', url: '/api/v1/session' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ code: 'UNAUTHORIZED', message: 'not signed in; sign in at /signin' });

    const leaving = await signIn(h, (await call('GET', '/api/v1/session', { tenant: null })).json().user.email, 'password-a');
    // the dashboard signs out with the session's csrf_token as the form's _csrf
    const token = (await call('GET', '/api/v1/session', { tenant: null, cookie: leaving.cookie })).json().csrf_token;
    const out = await leaving.post('/signout', { _csrf: token });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/signin');
    const gone = await h.service.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: leaving.cookie } });
    expect(gone.statusCode).toBe(401);
  });
});

describe('API calls with the session', () => {
  it('read and write the tenant named by X-Tenant-Id, the data an API key of that tenant sees', async () => {
    const h = harness();
    const created = await call('POST', '/api/v1/customers', { csrf, body: { name: 'Session Co', alias: 'session-co', currency: 'EUR' } });
    expect(created.statusCode, created.body).toBe(201);
    const byKey = await h.request('GET', '/api/v1/customers/session-co');
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json().id).toBe(created.json().id);
    const bySession = await call('GET', '/api/v1/customers/session-co');
    expect(bySession.json().id).toBe(created.json().id);
  });

  it('switch between the sandbox and production tenants of the organization', async () => {
    const h = harness();
    const inProduction = await call('POST', '/api/v1/customers', { tenant: h.production.id, csrf, body: { name: 'Live Co', alias: 'live-co', currency: 'EUR' } });
    expect(inProduction.statusCode, inProduction.body).toBe(201);
    expect((await call('GET', '/api/v1/tenant', { tenant: h.production.id })).json()).toMatchObject({ id: h.production.id, environment: 'production' });
    expect((await call('GET', '/api/v1/customers/live-co', { tenant: h.production.id })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/customers/live-co', { tenant: h.tenant.id })).statusCode).toBe(404);
  });

  it('refuse a write without the CSRF token, or with a wrong one, and write nothing', async () => {
    const h = harness();
    const before = await customerCount(h, h.tenant.id);
    const missing = await call('POST', '/api/v1/customers', { body: { name: 'Forged', currency: 'EUR' } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('X-CSRF-Token') });
    const wrong = await call('POST', '/api/v1/customers', { csrf: `${csrf.slice(0, -2)}AA`, body: { name: 'Forged', currency: 'EUR' } });
    expect(wrong.statusCode).toBe(403);
    const patched = await call('PATCH', '/api/v1/tenant', { body: { disable_emails: true } });
    expect(patched.statusCode).toBe(403);
    expect(await customerCount(h, h.tenant.id)).toBe(before);
  });

  it("refuse another organization's tenant with 404 and no data, as an unknown id", async () => {
    const h = harness();
    const theirs = await h.request('POST', '/api/v1/customers', { key: h.other.apiKey, body: { name: 'Their Co', alias: 'their-co', currency: 'EUR' } });
    expect(theirs.statusCode).toBe(201);
    for (const url of ['/api/v1/customers', '/api/v1/customers/their-co', `/api/v1/customers/${theirs.json().id}`, '/api/v1/tenant']) {
      const res = await call('GET', url, { tenant: h.other.id });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'tenant not found' });
    }
    const unknown = await call('GET', '/api/v1/customers', { tenant: 'ten_00000000000000000000000000' });
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', message: 'tenant not found' });
    const before = await customerCount(h, h.other.id);
    expect((await call('POST', '/api/v1/customers', { tenant: h.other.id, csrf, body: { name: 'Intruder', currency: 'EUR' } })).statusCode).toBe(404);
    expect(await customerCount(h, h.other.id)).toBe(before);
  });

  it('need X-Tenant-Id (400 naming it) and a page of this service (403 from another origin)', async () => {
    const noTenant = await call('GET', '/api/v1/customers', { tenant: null });
    expect(noTenant.statusCode).toBe(400);
    expect(noTenant.json().message).toMatch(/^X-Tenant-Id is required \(header\)/);
    const elsewhere = await call('GET', '/api/v1/customers', { headers: { origin: 'https://evil.example' } });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json().message).toContain('Origin https://evil.example is another site');
    const crossSite = await call('POST', '/api/v1/customers', { csrf, headers: { 'sec-fetch-site': 'cross-site' }, body: { name: 'X', currency: 'EUR' } });
    expect(crossSite.statusCode).toBe(403);
    const sameOrigin = await call('GET', '/api/v1/customers', { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.statusCode).toBe(200);
  });
});

describe('API keys, unchanged', () => {
  it('a bearer token wins over a session cookie, whose X-Tenant-Id is then ignored', async () => {
    const h = harness();
    const res = await h.request('GET', '/api/v1/tenant', { key: h.other.apiKey, headers: { cookie: browser.cookie, 'x-tenant-id': h.tenant.id } });
    expect(res.json()).toMatchObject({ id: h.other.id });
    const forged = await h.request('GET', '/api/v1/tenant', { key: 'sk_sandbox_not-a-key', headers: { cookie: browser.cookie, 'x-tenant-id': h.tenant.id } });
    expect(forged.statusCode).toBe(401);
    // and a key's writes need no CSRF token
    expect((await h.request('POST', '/api/v1/customers', { body: { name: 'Key Co', currency: 'EUR' } })).statusCode).toBe(201);
  });

  it('without a key or a session: 401 as before', async () => {
    const res = await harness().request('GET', '/api/v1/customers', { key: null, headers: { 'x-tenant-id': harness().tenant.id } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: 'UNAUTHORIZED', message: 'missing Authorization header; send Authorization: Bearer <api key>' });
  });
});
