import { readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, DASHBOARD_DIST } from '../../src/http/dashboard.js';
import { useHarness } from '../harness/app.js';

/**
 * The dashboard's serving (src/http/dashboard.ts): `/` and
 * client routes give the app's page to browsers, the API and the server pages keep their
 * answers, assets are cached for good and sent gzipped. The build comes from global setup.
 */
const harness = useHarness();
const html = { accept: 'text/html,application/xhtml+xml' };

describe('dashboard serving', () => {
  it('serves the app at / and at client routes asked for by a browser, with its CSP', async () => {
    const app = harness().service.app;
    for (const url of ['/', '/developers/api-keys', '/settings/tenant?tab=1', '/customers/cus_01ABC']) {
      const res = await app.inject({ method: 'GET', url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('keeps the contract 404 for the API, for non-browser requests and for missing assets', async () => {
    const app = harness().service.app;
    const cases = [
      { url: '/api/v1/nope', headers: html },
      { url: '/developers/api-keys', headers: { accept: 'application/json' } },
      { url: '/assets/missing-file.js', headers: html },
    ];
    for (const { url, headers } of cases) {
      const res = await app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    const post = await app.inject({ method: 'POST', url: '/developers/api-keys', headers: html });
    expect(post.statusCode).toBe(404);
  });

  it('leaves the server pages alone', async () => {
    const app = harness().service.app;
    expect((await app.inject({ method: 'GET', url: '/account', headers: html })).headers.location).toBe('/signin?return_to=%2Faccount');
    const signin = await app.inject({ method: 'GET', url: '/signin', headers: html });
    expect(signin.body).toContain('<h1>Sign in</h1>');
    expect(signin.body).toContain('name="return_to" value="/"');
    expect((await app.inject({ method: 'GET', url: '/docs', headers: html })).statusCode).toBeLessThan(400);
    expect((await app.inject({ method: 'GET', url: '/health', headers: html })).json()).toEqual({ status: 'ok' });
  });

  it('sends hashed assets cacheable for a year, gzipped when accepted', async () => {
    const app = harness().service.app;
    const script = readdirSync(`${DASHBOARD_DIST}assets`).find((name) => /^index-.*\.js$/.test(name))!;
    const plain = await app.inject({ method: 'GET', url: `/assets/${script}` });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const zipped = await app.inject({ method: 'GET', url: `/assets/${script}`, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
  });
});
