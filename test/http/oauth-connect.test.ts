import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_SECOND } from '../../src/kernel/clock.js';
import { useHarness } from '../harness/app.js';
import { approve, Browser, connectMerchant, createClient, csrfOf, pkce, tokenRequest } from './oauth-helpers.js';

const harness = useHarness();

describe('standard connected accounts', () => {
  it('lists the connection, reuses it on a second consent, and disconnects it through the API', async () => {
    const h = harness();
    const client = await createClient(h);
    const { merchant, tokens } = await connectMerchant(h, client);
    const list = await h.request('GET', '/api/v1/connected-accounts?type=standard');
    expect(list.statusCode).toBe(200);
    const mine = list.json().data.filter((a: { oauth_app_id: string }) => a.oauth_app_id === client.clientId);
    expect(mine).toHaveLength(1);
    const account = mine[0];
    expect(account).toMatchObject({ type: 'standard', status: 'ACTIVE', organization_name: 'Merchant Co', email: null, revoked_at: null });
    expect(account.id).toMatch(/^cacc_/);
    const tenant = (await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).json();
    expect(account.tenant_id).toBe(tenant.id);
    expect(account.organization_id).toBe(tenant.organization_id);

    // Consenting again for the same organization adds a grant to the same connection.
    const second = await approve(merchant.browser, client, pkce().challenge);
    expect(second.searchParams.get('code')).toMatch(/^oac_/);
    const again = (await h.request('GET', '/api/v1/connected-accounts?type=standard')).json().data.filter((a: { oauth_app_id: string }) => a.oauth_app_id === client.clientId);
    expect(again.map((a: { id: string }) => a.id)).toEqual([account.id]);

    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/disconnect`, { key: h.other.apiKey })).statusCode).toBe(404);
    const disconnected = await h.request('POST', `/api/v1/connected-accounts/${account.id}/disconnect`);
    expect(disconnected.statusCode).toBe(200);
    expect(disconnected.json()).toMatchObject({ id: account.id, status: 'REVOKED', revoked_at: h.clock.now().toISOString() });
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(401);
    expect((await tokenRequest(h, client, { token: tokens.refresh_token }, 'introspect')).json()).toEqual({ active: false });
    expect((await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json().error).toBe('invalid_grant');
    // the code of the second consent died with it
    const late = await tokenRequest(h, client, { grant_type: 'authorization_code', code: second.searchParams.get('code')!, redirect_uri: client.redirectUri, code_verifier: pkce().verifier });
    expect(late.json().error).toBe('invalid_grant');
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/disconnect`)).json().status).toBe('REVOKED');
    const revoked = await h.db.pool.query(`SELECT count(*)::int AS n FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE g.connected_account_id = $1 AND t.revoked_at IS NULL`, [account.id]);
    expect(revoked.rows[0].n).toBe(0);
  });

  it('lets the merchant disconnect from their own page, with a CSRF token', async () => {
    const h = harness();
    const client = await createClient(h);
    const { merchant, tokens } = await connectMerchant(h, client);
    const page = await merchant.browser.get('/account/connections');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<td>Acme Platform</td><td>Merchant Co</td>');
    const id = /action="\/account\/connections\/(cacc_[0-9A-Z]+)\/disconnect"/.exec(page.body)![1]!;
    const forged = await merchant.browser.post(`/account/connections/${id}/disconnect`, { _csrf: 'nope' });
    expect(forged.statusCode).toBe(403);
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(200);
    // another user cannot disconnect it
    const stranger = new Browser(h);
    const strangerPage = await stranger.get('/signin');
    expect((await stranger.post(`/account/connections/${id}/disconnect`, { _csrf: csrfOf(strangerPage.body) })).headers.location).toBe('/signin');
    const res = await merchant.browser.post(`/account/connections/${id}/disconnect`, { _csrf: csrfOf(page.body) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/account/connections?disconnected=1');
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(401);
    expect((await h.request('GET', `/api/v1/connected-accounts/${id}`)).json().status).toBe('REVOKED');
    expect((await merchant.browser.get('/account/connections')).body).toContain('No application is connected');
  });

  it('has a session cookie that is HttpOnly and SameSite=Lax, and an organization picker', async () => {
    const h = harness();
    const browser = new Browser(h);
    const res = await browser.get('/signin');
    expect(res.headers['set-cookie']).toMatch(/^billing_session=[A-Za-z0-9]{40}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    expect((await browser.get('/account')).headers.location).toBe('/signin?return_to=%2Faccount');
    const { browser: merchant } = await (await import('./oauth-helpers.js')).signUp(h, 'Picker Org');
    const account = await merchant.get('/account');
    expect(account.body).toContain('Picker Org (administrator)');
    const orgId = /name="organization_id" value="(org_[0-9A-Z]+)"/.exec(account.body)![1]!;
    const saved = await merchant.post('/account/organization', { _csrf: csrfOf(account.body), organization_id: orgId });
    expect(saved.headers.location).toBe('/account?saved=1');
    const bad = await merchant.post('/account/organization', { _csrf: csrfOf(account.body), organization_id: h.tenant.organizationId });
    expect(bad.statusCode).toBe(400);
    const out = await merchant.post('/signout', { _csrf: csrfOf(account.body) });
    expect(out.headers.location).toBe('/signin');
    expect((await merchant.get('/account')).statusCode).toBe(303);
  });
});

describe('express connected accounts', () => {
  const body = { email: 'owner@shop.test', organization_name: 'Shop Ltd', country: 'FR', metadata: { ref: '42' }, return_url: 'https://platform.example/express/done' };

  it('validates creation naming the field', async () => {
    const h = harness();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...body, email: 'nope' }, 'email must be a valid e-mail address'],
      [{ ...body, country: 'fr' }, 'country must be an ISO 3166-1 alpha-2 code'],
      [{ ...body, return_url: 'http://platform.example/x' }, 'return_url must use https'],
      [{ ...body, return_url: undefined }, 'return_url'],
      [{ ...body, metadata: { ref: 42 } }, 'metadata'],
    ];
    for (const [payload, message] of cases) {
      const res = await h.request('POST', '/api/v1/connected-accounts', { body: payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
  });

  it('onboards through a single-use link, then the platform acts for the account with the header', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/connected-accounts', { body });
    expect(created.statusCode, created.body).toBe(201);
    const account = created.json();
    expect(account).toMatchObject({ type: 'express', status: 'PENDING', email: 'owner@shop.test', organization_name: 'Shop Ltd', country: 'FR', metadata: { ref: '42' }, organization_id: null, tenant_id: null });
    expect(account.onboarding_link.expires_at).toBe(new Date(h.clock.now().getTime() + 7 * MS_PER_DAY).toISOString());
    const linkPath = new URL(account.onboarding_link.url).pathname;
    expect(linkPath).toMatch(/^\/connect\/onboarding\/onb_[A-Za-z0-9]{40}$/);

    // pending accounts cannot be acted for
    const pending = await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': account.id } });
    expect(pending.statusCode).toBe(403);

    const browser = new Browser(h);
    const intro = await browser.get(linkPath);
    expect(intro.statusCode).toBe(200);
    expect(intro.body).toContain('Shop Ltd');
    const signupUrl = /href="(\/signup\?[^"]+)"/.exec(intro.body)![1]!.replace(/&amp;/g, '&');
    const signup = await browser.get(signupUrl);
    expect(signup.body).toContain('value="owner@shop.test"');
    const made = await browser.post('/signup', { _csrf: csrfOf(signup.body), email: 'owner@shop.test', password: 'shop password 1', organization: '', return_to: linkPath });
    expect(made.headers.location).toBe(linkPath);
    const form = await browser.get(linkPath);
    expect(form.body).toContain('id="legal_name"');
    expect(form.body).toContain('value="Shop Ltd"');
    const missing = await browser.post(linkPath, { _csrf: csrfOf(form.body), organization_name: 'Shop Ltd', legal_name: '', address_line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Legal name is required.');
    const forged = await browser.post(linkPath, { _csrf: 'x', organization_name: 'Shop Ltd', legal_name: 'Shop SAS', address_line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' });
    expect(forged.statusCode).toBe(403);
    const done = await browser.post(linkPath, { _csrf: csrfOf(form.body), organization_name: 'Shop Ltd', legal_name: 'Shop SAS', address_line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'fr', vat_number: 'FR12345678901' });
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe(`https://platform.example/express/done?connected_account_id=${account.id}`);

    const active = (await h.request('GET', `/api/v1/connected-accounts/${account.id}`)).json();
    expect(active).toMatchObject({ status: 'ACTIVE', legal_name: 'Shop SAS', vat_number: 'FR12345678901', country: 'FR', activated_at: h.clock.now().toISOString() });
    const tenant = await h.db.pool.query(`SELECT organization_id, environment FROM tenants WHERE id = $1`, [active.tenant_id]);
    expect(tenant.rows[0]).toEqual({ organization_id: active.organization_id, environment: 'production' });
    const entity = await h.db.pool.query(`SELECT legal_name, address_line1, city, zip_code, country, vat_number, is_default FROM invoicing_entities WHERE tenant_id = $1`, [active.tenant_id]);
    expect(entity.rows).toEqual([{ legal_name: 'Shop SAS', address_line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR', vat_number: 'FR12345678901', is_default: true }]);

    // the link is single use
    expect((await browser.get(linkPath)).statusCode).toBe(410);
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/onboarding-links`, { body: {} })).statusCode).toBe(409);

    // act for the account: platform key + header
    const asAccount = await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': account.id } });
    expect(asAccount.statusCode).toBe(200);
    expect(asAccount.json().id).toBe(active.tenant_id);
    const notMine = await h.request('GET', '/api/v1/tenant', { key: h.other.apiKey, headers: { 'x-connected-account': account.id } });
    expect(notMine.statusCode).toBe(404);
    expect(notMine.json()).toEqual({ code: 'NOT_FOUND', message: `connected account ${account.id} not found` });
    const unknown = await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': 'cacc_NOPE' } });
    expect(unknown.statusCode).toBe(404);
    const badKey = await h.request('GET', '/api/v1/tenant', { key: 'sk_sandbox_wrong', headers: { 'x-connected-account': account.id } });
    expect(badKey.statusCode).toBe(401);

    // suspend blocks acting for it; reactivate restores; disconnect is final
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/suspend`)).json().status).toBe('SUSPENDED');
    expect((await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': account.id } })).statusCode).toBe(403);
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/reactivate`)).json().status).toBe('ACTIVE');
    expect((await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': account.id } })).statusCode).toBe(200);
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/disconnect`)).json().status).toBe('REVOKED');
    expect((await h.request('GET', '/api/v1/tenant', { headers: { 'x-connected-account': account.id } })).statusCode).toBe(403);
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/reactivate`)).statusCode).toBe(409);
  });

  it('links expire after 7 days and a new link replaces the old one', async () => {
    const h = harness();
    const account = (await h.request('POST', '/api/v1/connected-accounts', { body })).json();
    const first = new URL(account.onboarding_link.url).pathname;
    h.clock.advance(7 * MS_PER_DAY - MS_PER_SECOND);
    expect((await new Browser(h).get(first)).statusCode).toBe(200);
    h.clock.advance(MS_PER_SECOND);
    const expired = await new Browser(h).get(first);
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('this onboarding link has expired');
    const renewed = await h.request('POST', `/api/v1/connected-accounts/${account.id}/onboarding-links`, { body: { return_url: 'https://platform.example/again' } });
    expect(renewed.statusCode).toBe(201);
    const second = new URL(renewed.json().url).pathname;
    expect((await new Browser(h).get(second)).statusCode).toBe(200);
    const thirdRes = await h.request('POST', `/api/v1/connected-accounts/${account.id}/onboarding-links`);
    expect(thirdRes.statusCode, thirdRes.body).toBe(201);
    const third = new URL(thirdRes.json().url).pathname;
    const replaced = await new Browser(h).get(second);
    expect(replaced.statusCode).toBe(410);
    expect(replaced.body).toContain('replaced by a newer one');
    expect((await new Browser(h).get(third)).statusCode).toBe(200);
    expect((await new Browser(h).get('/connect/onboarding/onb_unknown')).statusCode).toBe(404);
    expect((await h.request('POST', `/api/v1/connected-accounts/${account.id}/onboarding-links`, { key: h.other.apiKey, body: {} })).statusCode).toBe(404);
  });
});
