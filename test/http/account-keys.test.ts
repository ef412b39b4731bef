import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness/app.js';
import { useHarness } from '../harness/app.js';
import { Browser, csrfOf, signUp } from './oauth-helpers.js';

/**
 * The account page through HTTP: a merchant signs up, sees the production and sandbox tenants
 * of their organization, creates an API key (shown once), uses it, and revokes it.
 */
const harness = useHarness();

async function tenantsOf(h: Harness, email: string): Promise<Record<'production' | 'sandbox', string>> {
  const result = await h.db.pool.query<{ id: string; environment: 'production' | 'sandbox' }>(
    `SELECT t.id, t.environment FROM tenants t JOIN organization_members m ON m.organization_id = t.organization_id JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
    [email],
  );
  expect(result.rows.map((r) => r.environment).sort()).toEqual(['production', 'sandbox']);
  return Object.fromEntries(result.rows.map((r) => [r.environment, r.id])) as Record<'production' | 'sandbox', string>;
}

async function keyCount(h: Harness, tenantId: string): Promise<number> {
  const result = await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1`, [tenantId]);
  return result.rows[0]!.n;
}

const products = (h: Harness, key: string) => h.request('GET', '/api/v1/products', { key });

describe('API keys on the account page', () => {
  it('lists the tenants, creates a key shown once, lists its hint, and revokes it', async () => {
    const h = harness();
    const { browser, email } = await signUp(h, 'Key Shop');
    const tenants = await tenantsOf(h, email);
    const account = await browser.get('/account');
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain('Key Shop (administrator)');
    expect(account.body).toContain('<h2>Environments and API keys of Key Shop</h2>');
    expect(account.body).toContain(`Tenant id <code>${tenants.production}</code>, environment <code>production</code>`);
    expect(account.body).toContain(`Tenant id <code>${tenants.sandbox}</code>, environment <code>sandbox</code>`);
    expect(account.body).toMatch(new RegExp(`<section id="tenant-${tenants.sandbox}" class="sandbox"[^>]*>\\s*<h3[^>]*>Sandbox <span class="badge test">test data</span>`));
    expect(account.body.match(/No API key yet\./g)).toHaveLength(2);

    const created = await browser.post(`/account/tenants/${tenants.sandbox}/api-keys`, { _csrf: csrfOf(account.body), name: 'Checkout "server" <1>' });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.headers.location).toBeUndefined();
    expect(created.body).toContain('Copy it now; it will not be shown again.');
    expect(created.body).toContain('Key "Checkout &quot;server&quot; &lt;1&gt;" of Key Shop, Sandbox environment');
    const secret = /id="api-key" class="secret" readonly value="(sk_sandbox_[A-Za-z0-9]+)"/.exec(created.body)![1]!;
    expect(await keyCount(h, tenants.sandbox)).toBe(1);

    const used = await products(h, secret);
    expect(used.statusCode, used.body).toBe(200);
    const tenant = (await h.request('GET', '/api/v1/tenant', { key: secret })).json();
    expect(tenant).toMatchObject({ id: tenants.sandbox, environment: 'sandbox' });

    const listed = await browser.get('/account');
    const hint = `${secret.slice(0, 'sk_sandbox_'.length + 4)}...${secret.slice(-4)}`;
    const minute = h.clock.now().toISOString().slice(0, 16).replace('T', ' ');
    expect(listed.body).toContain(`<tr><td>Checkout &quot;server&quot; &lt;1&gt;</td><td><code>${hint}</code></td><td>${minute}</td>\n<td>${minute}</td><td>active</td>`);
    expect(listed.body).not.toContain(secret);
    expect(listed.body.match(/No API key yet\./g)).toHaveLength(1);

    const keyId = new RegExp(`/account/tenants/${tenants.sandbox}/api-keys/(key_[0-9A-Z]+)/revoke`).exec(listed.body)![1]!;
    const confirm = await browser.get(`/account/tenants/${tenants.sandbox}/api-keys/${keyId}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`(<code>${hint}</code>)`);
    expect(confirm.body).toContain('This cannot be undone.');
    expect(await products(h, secret).then((r) => r.statusCode)).toBe(200);

    const revoked = await browser.post(`/account/tenants/${tenants.sandbox}/api-keys/${keyId}/revoke`, { _csrf: csrfOf(confirm.body) });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe(`/account?revoked=1#tenant-${tenants.sandbox}`);
    const refused = await products(h, secret);
    expect(refused.statusCode).toBe(401);
    const after = await browser.get('/account?revoked=1');
    expect(after.body).toContain('<p role="status">API key revoked.');
    expect(after.body).toContain(`<td>revoked ${minute}</td>`);
    expect(after.body).not.toContain(`/api-keys/${keyId}/revoke`);
    expect((await browser.get(`/account/tenants/${tenants.sandbox}/api-keys/${keyId}/revoke`)).body).toContain('was already revoked');
  });

  it('answers not found for another organization\'s tenant or key, and changes nothing', async () => {
    const h = harness();
    const { browser, email } = await signUp(h, 'Careful Co');
    const mine = await tenantsOf(h, email);
    const account = await browser.get('/account');
    const csrf = csrfOf(account.body);
    const otherKeyId = (await h.db.pool.query<{ id: string }>(`SELECT id FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL`, [h.other.id])).rows[0]!.id;
    const before = await keyCount(h, h.other.id);

    const create = await browser.post(`/account/tenants/${h.other.id}/api-keys`, { _csrf: csrf, name: 'stolen' });
    expect(create.statusCode).toBe(404);
    expect(create.body).toContain('No such environment or API key in your organizations.');
    expect(create.body).not.toMatch(/sk_(sandbox|prod)_/);
    expect(await keyCount(h, h.other.id)).toBe(before);
    expect((await browser.post('/account/tenants/ten_UNKNOWN/api-keys', { _csrf: csrf, name: 'x' })).statusCode).toBe(404);

    expect((await browser.get(`/account/tenants/${h.other.id}/api-keys/${otherKeyId}/revoke`)).statusCode).toBe(404);
    expect((await browser.post(`/account/tenants/${h.other.id}/api-keys/${otherKeyId}/revoke`, { _csrf: csrf })).statusCode).toBe(404);
    // my own tenant with their key id: the key is looked up within my tenant only
    expect((await browser.get(`/account/tenants/${mine.sandbox}/api-keys/${otherKeyId}/revoke`)).statusCode).toBe(404);
    expect((await browser.post(`/account/tenants/${mine.sandbox}/api-keys/${otherKeyId}/revoke`, { _csrf: csrf })).statusCode).toBe(404);
    expect((await products(h, h.other.apiKey)).statusCode).toBe(200);
    const stillActive = await h.db.pool.query(`SELECT revoked_at FROM api_keys WHERE id = $1`, [otherKeyId]);
    expect(stillActive.rows[0].revoked_at).toBeNull();
  });

  it('refuses forms without a valid CSRF token, and anonymous visitors', async () => {
    const h = harness();
    const { browser, email } = await signUp(h, 'Token Ltd');
    const tenants = await tenantsOf(h, email);
    const account = await browser.get('/account');
    for (const form of [{ name: 'no token' }, { _csrf: 'forged', name: 'bad token' }] as Record<string, string>[]) {
      const res = await browser.post(`/account/tenants/${tenants.production}/api-keys`, form);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('This form expired or did not come from this site.');
    }
    expect(await keyCount(h, tenants.production)).toBe(0);

    const created = await browser.post(`/account/tenants/${tenants.production}/api-keys`, { _csrf: csrfOf(account.body), name: 'Server' });
    const secret = /value="(sk_prod_[A-Za-z0-9]+)"/.exec(created.body)![1]!;
    const keyId = (await h.db.pool.query<{ id: string }>(`SELECT id FROM api_keys WHERE tenant_id = $1`, [tenants.production])).rows[0]!.id;
    expect((await browser.post(`/account/tenants/${tenants.production}/api-keys/${keyId}/revoke`, {})).statusCode).toBe(403);
    expect((await products(h, secret)).statusCode).toBe(200);

    // A visitor who is not signed in holds a valid token for their own anonymous session only.
    const stranger = new Browser(h);
    const signin = await stranger.get('/signin');
    const anonymous = await stranger.post(`/account/tenants/${tenants.production}/api-keys`, { _csrf: csrfOf(signin.body), name: 'anon' });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/signin');
    expect((await stranger.post(`/account/tenants/${tenants.production}/api-keys/${keyId}/revoke`, { _csrf: csrfOf(signin.body) })).headers.location).toBe('/signin');
    expect(await keyCount(h, tenants.production)).toBe(1);
    expect((await products(h, secret)).statusCode).toBe(200);
  });

  it('asks for a key name', async () => {
    const h = harness();
    const { browser, email } = await signUp(h, 'Named Inc');
    const tenants = await tenantsOf(h, email);
    const account = await browser.get('/account');
    for (const name of ['   ', 'x'.repeat(201)]) {
      const res = await browser.post(`/account/tenants/${tenants.sandbox}/api-keys`, { _csrf: csrfOf(account.body), name });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('The name of a new sandbox key must be 1 to 200 characters, e.g. &quot;Checkout server&quot;.');
      expect(res.body).toContain('<h2>Environments and API keys of Named Inc</h2>');
    }
    expect(await keyCount(h, tenants.sandbox)).toBe(0);
  });

  it('lets a user who signed up without an organization create one with both environments', async () => {
    const h = harness();
    const { browser, email } = await signUp(h, '');
    const account = await browser.get('/account');
    expect(account.body).toContain('You are not a member of any organization yet.');
    expect(account.body).toContain('<label for="organization_name">Organization name</label>');
    const empty = await browser.post('/account/organizations', { _csrf: csrfOf(account.body), name: ' ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('organization name must not be empty, e.g. &quot;Acme Ltd&quot;');
    expect((await browser.post('/account/organizations', { name: 'Forged Org' })).statusCode).toBe(403);

    const created = await browser.post('/account/organizations', { _csrf: csrfOf(account.body), name: 'Late Org' });
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/account?created=1');
    const tenants = await tenantsOf(h, email);
    const page = await browser.get('/account?created=1');
    expect(page.body).toContain('Organization created, with a production and a sandbox environment.');
    expect(page.body).toContain('Late Org (administrator)');
    expect(page.body).toContain(`<section id="tenant-${tenants.production}" class="production"`);
    expect(page.body).toContain(`<section id="tenant-${tenants.sandbox}" class="sandbox"`);
    const orgs = await h.db.pool.query(`SELECT o.name FROM organizations o JOIN organization_members m ON m.organization_id = o.id JOIN users u ON u.id = m.user_id WHERE u.email = $1`, [email]);
    expect(orgs.rows).toEqual([{ name: 'Late Org' }]);
  });
});
