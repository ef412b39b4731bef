import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { useHarness } from '../harness/app.js';
import { browserAvailable, launchChromium } from '../harness/browser.js';

/**
 * The standard-account flow end to end: a real OAuth client library (oauth4webapi) against the
 * running server on 127.0.0.1, with the sign-up, consent and connections pages driven in
 * Debian's Chromium. The browser part runs on the harness clock, which stands still.
 */
const harness = useHarness();
const insecure = { [oauth.allowInsecureRequests]: true };
let browser: Browser;
let baseUrl: string;
let callback: Server;
let callbackUrl: string;

beforeAll(async () => {
  if (!browserAvailable) return;
  const h = harness();
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.service.app.server.address() as AddressInfo).port}`;
  // The platform's callback: a plain page, so the browser lands somewhere real.
  callback = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Platform</title><p>connected</p>'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
});

describe.skipIf(!browserAvailable)('OAuth standard connection in a browser', () => {
  it('signs up, consents, exchanges, calls the API, refreshes, introspects, disconnects from the user page', async () => {
    const h = harness();
    const created = await fetch(`${baseUrl}/api/v1/oauth/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme Analytics', redirect_uris: [callbackUrl] }),
    });
    expect(created.status).toBe(201);
    const app = (await created.json()) as { client_id: string; client_secret: string };

    const as: oauth.AuthorizationServer = {
      issuer: baseUrl,
      authorization_endpoint: `${baseUrl}/api/v1/oauth/authorize`,
      token_endpoint: `${baseUrl}/api/v1/oauth/token`,
      introspection_endpoint: `${baseUrl}/api/v1/oauth/introspect`,
      revocation_endpoint: `${baseUrl}/api/v1/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    };
    const client: oauth.Client = { client_id: app.client_id };
    const clientAuth = oauth.ClientSecretBasic(app.client_secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: callbackUrl,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl.toString());
    // Not signed in: the sign-in page, which links to sign-up keeping the way back.
    expect(await page.title()).toBe('Sign in');
    await page.getByRole('link', { name: 'Create one' }).click();
    expect(await page.title()).toBe('Create an account');
    await page.getByLabel('E-mail').fill('browser-merchant@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Browser Bakery');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Back at the authorization endpoint, now the consent screen.
    await page.waitForURL((url) => url.pathname === '/api/v1/oauth/authorize');
    expect(await page.title()).toBe('Connect Acme Analytics');
    await expect(page.locator('strong').first().textContent()).resolves.toBe('Acme Analytics');
    const cookies = await context.cookies(baseUrl);
    expect(cookies.find((c) => c.name === 'billing_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await page.getByLabel('Organization to connect').selectOption({ label: 'Browser Bakery' });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.toString().startsWith(callbackUrl));

    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    const tokenResponse = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, callbackUrl, verifier, insecure),
    );
    expect(tokenResponse.token_type).toBe('bearer');
    expect(tokenResponse.expires_in).toBe(3600);
    expect(tokenResponse.refresh_token).toMatch(/^ort_/);

    const tenant = await oauth.protectedResourceRequest(tokenResponse.access_token, 'GET', new URL(`${baseUrl}/api/v1/tenant`), undefined, undefined, insecure);
    expect(tenant.status).toBe(200);
    const tenantBody = (await tenant.json()) as { environment: string; organization_id: string };
    expect(tenantBody.environment).toBe('production');
    const org = await h.db.pool.query(`SELECT name FROM organizations WHERE id = $1`, [tenantBody.organization_id]);
    expect(org.rows[0].name).toBe('Browser Bakery');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokenResponse.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokenResponse.access_token);

    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, client_id: app.client_id, token_type: 'Bearer', organization_id: tenantBody.organization_id });

    // The merchant disconnects the app from their own page.
    await page.goto(`${baseUrl}/account/connections`);
    await page.getByRole('button', { name: 'Disconnect Acme Analytics from Browser Bakery' }).click();
    await page.waitForURL((url) => url.search === '?disconnected=1');
    await expect(page.getByRole('status').textContent()).resolves.toContain('Disconnected');

    const after = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, insecure));
    expect(after).toEqual({ active: false });
    const refused = await oauth.protectedResourceRequest(refreshed.access_token, 'GET', new URL(`${baseUrl}/api/v1/tenant`), undefined, undefined, insecure);
    expect(refused.status).toBe(401);
    await expect(
      oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, client, r)),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    // RFC 7009 through the library: revoking an unknown token is still a success.
    await expect(oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, 'ort_unknown', insecure))).resolves.toBeUndefined();
    await context.close();
  }, 60_000);
});
