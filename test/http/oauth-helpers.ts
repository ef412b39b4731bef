import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from '../harness/app.js';

/** A browser stand-in for app.inject: keeps the session cookie, reads CSRF tokens from pages. */
export class Browser {
  cookie = '';
  constructor(private readonly h: Harness) {}

  private remember(res: LightMyRequestResponse): void {
    const set = res.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) this.cookie = first.split(';')[0]!;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.h.service.app.inject({ method: 'GET', url, headers: this.cookie ? { cookie: this.cookie } : {} });
    this.remember(res);
    return res;
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const res = await this.h.service.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    this.remember(res);
    return res;
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF field in page: ${html.slice(0, 300)}`);
  return match[1]!;
}

export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  }
  return fields;
}

let userCounter = 0;

/** Signs a new merchant up through the pages; with `organization` they administer a new organization. */
export async function signUp(h: Harness, organization = 'Merchant Co'): Promise<{ browser: Browser; email: string; password: string }> {
  const browser = new Browser(h);
  userCounter += 1;
  const email = `merchant${userCounter}-${randomBytes(3).toString('hex')}@m.test`;
  const password = 'correct horse battery';
  const form = await browser.get('/signup');
  const res = await browser.post('/signup', { _csrf: csrfOf(form.body), email, password, organization, return_to: '/account' });
  expect(res.statusCode, res.body).toBe(303);
  return { browser, email, password };
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export async function createClient(h: Harness, redirectUri = 'https://platform.example/callback', key = h.tenant.apiKey): Promise<TestClient> {
  const res = await h.request('POST', '/api/v1/oauth/apps', { key, body: { name: 'Acme Platform', redirect_uris: [redirectUri] } });
  expect(res.statusCode, res.body).toBe(201);
  return { clientId: res.json().client_id, clientSecret: res.json().client_secret, redirectUri };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(client: TestClient, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  const all: Record<string, string | undefined> = { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, state: 'st-123', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) query.set(k, v);
  return `/api/v1/oauth/authorize?${query}`;
}

/** Signed-in user approves on the consent screen; returns the code from the redirect. */
export async function approve(browser: Browser, client: TestClient, challenge: string, decision = 'approve'): Promise<URL> {
  const consent = await browser.get(authorizeUrl(client, { code_challenge: challenge, code_challenge_method: 'S256' }));
  expect(consent.statusCode, consent.body).toBe(200);
  const organization = /<option value="([^"]+)"/.exec(consent.body)![1]!;
  const res = await browser.post('/api/v1/oauth/authorize', { ...hiddenFields(consent.body), organization_id: organization, decision });
  expect(res.statusCode, res.body).toBe(303);
  return new URL(res.headers.location as string);
}

export function basic(client: TestClient, secret = client.clientSecret): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export async function tokenRequest(h: Harness, client: TestClient, form: Record<string, string>, path = 'token', secret?: string): Promise<LightMyRequestResponse> {
  return h.service.app.inject({
    method: 'POST',
    url: `/api/v1/oauth/${path}`,
    headers: { authorization: basic(client, secret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

/** The whole standard flow through HTTP: a new merchant connects and the client gets a token pair. */
export async function connectMerchant(h: Harness, client: TestClient) {
  const merchant = await signUp(h);
  const { verifier, challenge } = pkce();
  const redirect = await approve(merchant.browser, client, challenge);
  const code = redirect.searchParams.get('code')!;
  const res = await tokenRequest(h, client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier });
  expect(res.statusCode, res.body).toBe(200);
  return { merchant, code, verifier, tokens: res.json() as { access_token: string; refresh_token: string; expires_in: number; token_type: string } };
}
