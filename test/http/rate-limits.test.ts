import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { compose, type Composition } from '../../src/main.js';
import { rateLimitClassOf } from '../../src/http/rate-limit.js';
import { useHarness } from '../harness/app.js';

// Small limits so each class is reached in a few requests. The harness clock only moves when told
// to, so a window lasts until a test advances it: no count depends on how fast the test runs.
const LIMITS = { ingestPerSecond: 4, readPerSecond: 3, writePerSecond: 2, signinPerMinute: 3, oauthTokenPerSecond: 2, syncIntervalMs: 20 };
const harness = useHarness({ rateLimit: LIMITS });

let customerId = '';
beforeAll(async () => {
  const res = await harness().request('POST', '/api/v1/customers', { body: { name: 'Limited', currency: 'EUR' } });
  expect(res.statusCode, res.body).toBe(201);
  customerId = res.json().id;
});

// Every test starts at the beginning of a fresh minute: windows are aligned to the epoch and a
// minute holds whole seconds, so counts of one test never reach another.
beforeEach(() => {
  const clock = harness().clock;
  const nowMs = clock.now().getTime();
  clock.set(new Date(nowMs - (nowMs % 60_000) + 60_000));
});

let eventSeq = 0;
function postEvent(key?: string): Promise<LightMyRequestResponse> {
  const h = harness();
  eventSeq += 1;
  const body = { idempotency_key: `rl-${eventSeq}`, code: 'api_call', customer_id: customerId, timestamp: new Date(h.clock.now().getTime() - 60_000).toISOString() };
  return h.request('POST', '/api/v1/events', { body, key });
}

function postForm(url: string, form: Record<string, string>, remoteAddress: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return harness().service.app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}

function expectLimited(res: LightMyRequestResponse, limit: number, retryAfterSeconds: number): void {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.headers['retry-after']).toBe(String(retryAfterSeconds));
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-reset']).toBe(String(retryAfterSeconds));
}

function expectContractBody(res: LightMyRequestResponse, ...phrases: string[]): void {
  expect(res.json()).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.any(String) });
  for (const phrase of phrases) expect(res.json().message).toContain(phrase);
}

/** expect.poll options for a condition the sync timers make true: a generous deadline instead of a guessed sleep. */
const untilSynced = (message: string) => ({ message, timeout: 10_000, interval: 5 });

describe('route classes', () => {
  it.each([
    ['POST', '/api/v1/events', 'ingest'],
    ['POST', '/api/v1/events/ingest', 'ingest'],
    ['GET', '/api/v1/customers/:customer_id', 'read'],
    ['HEAD', '/api/v1/customers', 'read'],
    ['POST', '/api/v1/customers', 'write'],
    ['DELETE', '/api/v1/oauth/apps/:app_id', 'write'],
    ['POST', '/signin', 'signin'],
    ['POST', '/signup', 'signin'],
    ['POST', '/account/password', 'signin'],
    ['POST', '/api/v1/oauth/token', 'oauth_token'],
    ['POST', '/api/v1/oauth/introspect', 'oauth_token'],
    ['POST', '/api/v1/oauth/revoke', 'oauth_token'],
    ['GET', '/signin', undefined],
    ['GET', '/health', undefined],
    ['POST', '/signout', undefined],
  ])('%s %s is %s', (method, url, expected) => {
    expect(rateLimitClassOf(method, url)).toBe(expected);
  });
});

describe('API limits per API key', () => {
  it('limits reads at their figure with Retry-After, RateLimit-* headers and the contract body, per key, until the window passes', async () => {
    const h = harness();
    for (const remaining of ['2', '1', '0']) {
      const res = await h.request('GET', '/api/v1/customers');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe(remaining);
      expect(res.headers['ratelimit-reset']).toBe('1');
    }
    const limited = await h.request('GET', '/api/v1/customers');
    expectLimited(limited, 3, 1);
    expectContractBody(limited, 'reads', '3 requests per second', 'retry after 1 s');
    expect((await h.request('GET', '/api/v1/customers', { key: h.other.apiKey })).statusCode).toBe(200);
    h.clock.advance(1000);
    expect((await h.request('GET', '/api/v1/customers')).statusCode).toBe(200);
  });

  it('limits writes at their figure, and neither the write nor the read limit holds back ingestion, which has its own', async () => {
    const h = harness();
    for (let i = 0; i < 2; i++) expect((await h.request('POST', '/api/v1/product_families', { body: { name: `F${i}` } })).statusCode).toBe(201);
    const limited = await h.request('POST', '/api/v1/product_families', { body: { name: 'F3' } });
    expectLimited(limited, 2, 1);
    expectContractBody(limited, 'writes', '2 requests per second');
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/api/v1/customers')).statusCode).toBe(200);
    expect((await h.request('GET', '/api/v1/customers')).statusCode).toBe(429);

    for (let i = 0; i < 3; i++) expect((await postEvent()).statusCode).toBe(201);
    const batch = await h.request('POST', '/api/v1/events/ingest', { body: { events: [] } });
    expect(batch.statusCode).not.toBe(429);
    expect(batch.headers['ratelimit-remaining']).toBe('0');
    const ingestLimited = await postEvent();
    expectLimited(ingestLimited, 4, 1);
    expectContractBody(ingestLimited, 'usage ingestion', '4 requests per second');
  });

  it('does not limit routes outside the API classes', async () => {
    const h = harness();
    for (let i = 0; i < 5; i++) {
      const res = await h.request('GET', '/health', { key: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('sign-in forms', () => {
  it('limits sign-in and sign-up together per client IP address, answering when the minute ends', async () => {
    const h = harness();
    h.clock.advance(15_000);
    for (const [i, url] of ['/signin', '/signup', '/signin'].entries()) {
      const res = await postForm(url, { email: `someone${i}@ip.test`, password: 'wrong password' }, '203.0.113.7');
      expect(res.statusCode, res.body).not.toBe(429);
    }
    const limited = await postForm('/signin', { email: 'someone-else@ip.test', password: 'x' }, '203.0.113.7');
    expectLimited(limited, 3, 45);
    expectContractBody(limited, 'sign-in', '3 requests per minute', 'retry after 45 s');
    expect((await postForm('/signin', { email: 'someone-else@ip.test', password: 'x' }, '203.0.113.8')).statusCode).not.toBe(429);
  });

  it('limits attempts on one e-mail address from many IP addresses', async () => {
    for (let i = 1; i <= 3; i++) {
      expect((await postForm('/signin', { email: 'Victim@Example.test', password: `guess ${i}` }, `198.51.100.${i}`)).statusCode).not.toBe(429);
    }
    const limited = await postForm('/signin', { email: 'victim@example.test ', password: 'guess 4' }, '198.51.100.4');
    expectLimited(limited, 3, 60);
  });
});

describe('OAuth token endpoints', () => {
  const basic = (clientId: string) => ({ authorization: `Basic ${Buffer.from(`${clientId}:secret`).toString('base64')}` });

  it('limits per client_id across token, introspection and revocation, in the RFC 6749 error shape', async () => {
    for (const path of ['token', 'introspect']) {
      const res = await postForm(`/api/v1/oauth/${path}`, { grant_type: 'refresh_token', refresh_token: 'x' }, '192.0.2.1', basic('client_a'));
      expect(res.statusCode, res.body).toBe(401);
    }
    const limited = await postForm('/api/v1/oauth/revoke', { token: 'x' }, '192.0.2.2', basic('client_a'));
    expectLimited(limited, 2, 1);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(limited.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('2 requests per second per client_id') });
    expect((await postForm('/api/v1/oauth/token', { grant_type: 'refresh_token' }, '192.0.2.2', basic('client_b'))).statusCode).toBe(401);
  });

  it('limits per client IP address when no client_id is sent', async () => {
    for (let i = 0; i < 2; i++) expect((await postForm('/api/v1/oauth/token', {}, '192.0.2.9')).statusCode).toBe(401);
    expect((await postForm('/api/v1/oauth/token', {}, '192.0.2.9')).statusCode).toBe(429);
  });
});

describe('several processes on one database', () => {
  let second: Composition;
  let unlimited: Composition;
  beforeAll(async () => {
    const h = harness();
    // Two more apps on the same database and clock, as other server processes would be.
    second = await compose({ pool: h.db.pool, clock: h.clock, config: h.config });
    unlimited = await compose({ pool: h.db.pool, clock: h.clock, config: { ...h.config, rateLimit: { ...LIMITS, readPerSecond: 0 } } });
  });
  afterAll(async () => {
    await second?.app.close();
    await unlimited?.app.close();
  });

  async function sharedHits(windowStart: Date): Promise<{ key: string; hits: number } | undefined> {
    const { rows } = await harness().db.pool.query<{ key: string; hits: string }>(
      `SELECT key, hits::text FROM rate_limit_windows WHERE window_start = $1 AND key LIKE 'read:%'`,
      [windowStart],
    );
    return rows[0] ? { key: rows[0].key, hits: Number(rows[0].hits) } : undefined;
  }

  it('share one limit: requests split across two apps are limited at the configured total, each app at most one sync behind', async () => {
    const h = harness();
    const first = h.service.app;
    const get = (app: typeof first) => app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization: `Bearer ${h.tenant.apiKey}` } });
    const windowStart = h.clock.now();

    expect((await get(first)).statusCode).toBe(200);
    expect((await get(first)).statusCode).toBe(200);
    await expect.poll(async () => (await sharedHits(windowStart))?.hits, untilSynced('the first app to share its 2 hits')).toBe(2);
    const { key } = (await sharedHits(windowStart))!;

    // The second app has not counted this key yet: it admits at once and learns the total at its next sync.
    const slack = await get(second.app);
    expect(slack.statusCode).toBe(200);
    expect(slack.headers['ratelimit-remaining']).toBe('2');
    await expect.poll(() => second.app.rateLimitCounters.read(key, 1000).current, untilSynced('the second app to learn the total')).toBe(3);
    expectLimited(await get(second.app), 3, 1);

    await expect.poll(() => first.rateLimitCounters.read(key, 1000).current, untilSynced('the first app to learn the total')).toBeGreaterThanOrEqual(4);
    expectLimited(await get(first), 3, 1);
  });

  it('a limit of 0 is no limit', async () => {
    const h = harness();
    for (let i = 0; i < 5; i++) {
      const res = await unlimited.app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization: `Bearer ${h.tenant.apiKey}` } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('deletes the rows of ended windows', async () => {
    const h = harness();
    expect((await h.request('GET', '/api/v1/customers')).statusCode).toBe(200);
    await expect.poll(() => sharedHits(h.clock.now()), untilSynced('the hit to be shared')).toBeDefined();
    h.clock.advance(60_000);
    const endedWindows = async () => (await h.db.pool.query(`SELECT 1 FROM rate_limit_windows WHERE expires_at <= $1`, [h.clock.now()])).rows.length;
    await expect.poll(endedWindows, untilSynced('ended windows to be deleted')).toBe(0);
  });
});
