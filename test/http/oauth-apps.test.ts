import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { connectMerchant, createClient, tokenRequest } from './oauth-helpers.js';

const harness = useHarness();

describe('OAuth apps', () => {
  it('creates an app with a secret shown once, then gets, lists and updates it', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/oauth/apps', { body: { name: 'Acme', redirect_uris: ['https://acme.example/cb', 'http://127.0.0.1:9999/cb'] } });
    expect(created.statusCode, created.body).toBe(201);
    const app = created.json();
    expect(app.id).toMatch(/^app_[0-9A-Z]{26}$/);
    expect(app.client_id).toBe(app.id);
    expect(app.client_secret).toMatch(/^cs_[A-Za-z0-9]{40}$/);
    expect(app.client_secret_hint).toBe(`${app.client_secret.slice(0, 7)}...${app.client_secret.slice(-4)}`);
    const stored = await h.db.pool.query(`SELECT secret_hash FROM oauth_apps WHERE id = $1`, [app.id]);
    expect(stored.rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored.rows[0])).not.toContain(app.client_secret);

    const got = await h.request('GET', `/api/v1/oauth/apps/${app.id}`);
    expect(got.json()).toEqual({ id: app.id, client_id: app.id, name: 'Acme', redirect_uris: ['https://acme.example/cb', 'http://127.0.0.1:9999/cb'], client_secret_hint: app.client_secret_hint, created_at: '2026-03-15T12:00:00.000Z', updated_at: '2026-03-15T12:00:00.000Z' });
    expect(got.json()).not.toHaveProperty('client_secret');

    const list = await h.request('GET', '/api/v1/oauth/apps?per_page=1');
    expect(list.json().pagination_meta).toEqual({ page: 0, per_page: 1, total_items: 1, total_pages: 1 });
    expect(list.json().data[0].id).toBe(app.id);

    const patched = await h.request('PATCH', `/api/v1/oauth/apps/${app.id}`, { body: { name: 'Acme 2', redirect_uris: ['https://acme.example/new'] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Acme 2', redirect_uris: ['https://acme.example/new'] });
  });

  it('refuses wildcards, fragments, plain http off loopback and empty lists, naming the field', async () => {
    const h = harness();
    const cases: [unknown, string][] = [
      [['https://*.acme.example/cb'], 'redirect_uris[0] must not contain wildcards'],
      [['https://acme.example/cb#x'], 'redirect_uris[0] must not contain a fragment'],
      [['http://acme.example/cb'], 'redirect_uris[0] must use https'],
      [['not a url'], 'redirect_uris[0] must be an absolute URL'],
      [['https://a.example/cb', 'https://a.example/cb'], 'redirect_uris must not repeat a URL'],
    ];
    for (const [redirect_uris, message] of cases) {
      const res = await h.request('POST', '/api/v1/oauth/apps', { body: { name: 'x', redirect_uris } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
    const empty = await h.request('POST', '/api/v1/oauth/apps', { body: { name: 'x', redirect_uris: [] } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('redirect_uris');
    const noName = await h.request('POST', '/api/v1/oauth/apps', { body: { redirect_uris: ['https://a.example/cb'] } });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().message).toContain('name');
  });

  it('is invisible to another tenant', async () => {
    const h = harness();
    const client = await createClient(h);
    for (const [method, url] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/rotate-secret']] as const) {
      const res = await h.request(method, `/api/v1/oauth/apps/${client.clientId}${url}`, { key: h.other.apiKey, ...(method === 'PATCH' ? { body: { name: 'stolen' } } : {}) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: `oauth app ${client.clientId} not found` });
    }
    expect((await h.request('GET', '/api/v1/oauth/apps', { key: h.other.apiKey })).json().data).toEqual([]);
  });

  it('rotating the secret invalidates the old one immediately', async () => {
    const h = harness();
    const client = await createClient(h);
    const rotated = await h.request('POST', `/api/v1/oauth/apps/${client.clientId}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const newSecret = rotated.json().client_secret as string;
    expect(newSecret).not.toBe(client.clientSecret);
    const old = await tokenRequest(h, client, { token: 'oat_whatever' }, 'introspect');
    expect(old.statusCode).toBe(401);
    expect(old.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const fresh = await tokenRequest(h, client, { token: 'oat_whatever' }, 'introspect', newSecret);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toEqual({ active: false });
  });

  it('deleting an app disconnects its organizations and kills their tokens', async () => {
    const h = harness();
    const client = await createClient(h);
    const { tokens } = await connectMerchant(h, client);
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(200);
    const deleted = await h.request('DELETE', `/api/v1/oauth/apps/${client.clientId}`);
    expect(deleted.statusCode).toBe(204);
    expect((await h.request('GET', '/api/v1/tenant', { key: tokens.access_token })).statusCode).toBe(401);
    expect((await h.request('GET', `/api/v1/oauth/apps/${client.clientId}`)).statusCode).toBe(404);
    const accounts = (await h.request('GET', '/api/v1/connected-accounts')).json().data;
    expect(accounts.filter((a: { oauth_app_id: string }) => a.oauth_app_id === client.clientId).map((a: { status: string }) => a.status)).toEqual(['REVOKED']);
    const refresh = await tokenRequest(h, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.statusCode).toBe(401);
  });

  it('documents the OAuth operations in the OpenAPI document', async () => {
    const h = harness();
    const doc = (await h.request('GET', '/api/v1/openapi.json', { key: null })).json();
    expect(doc.paths['/api/v1/oauth/token'].post.operationId).toBe('oauth_token');
    expect(Object.keys(doc.paths['/api/v1/oauth/token'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(doc.paths['/api/v1/oauth/token'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/oauth/authorize'].get.operationId).toBe('oauth_authorize');
    expect(doc.paths['/api/v1/oauth/apps/{app_id}/rotate-secret'].post.operationId).toBe('rotate_oauth_app_secret');
    expect(doc.paths['/api/v1/connected-accounts'].post.operationId).toBe('create_express_account');
    expect(doc.paths['/signin']).toBeUndefined();
  });
});
