import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { compose, type Composition } from '../../src/main.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { ApiKeyCache } from '../../src/modules/accounts/key-cache.js';

/**
 * API keys are cached per process until revoked. These tests hold the cache to the contract:
 * a revocation made in another process (another pool, as a second server or the CLI would be)
 * reaches this process through PostgreSQL NOTIFY, with no expiry involved.
 */
const harness = useHarness();
let otherPool: Pool;
let other: Composition;

beforeAll(async () => {
  const h = harness();
  otherPool = createPool(h.db.url, 4);
  other = await compose({ pool: otherPool, clock: h.clock, config: h.config });
});
afterAll(async () => {
  await other.app.close();
  await otherPool.end();
});

async function statusWith(key: string): Promise<number> {
  return (await harness().request('GET', '/api/v1/tenant', { key })).statusCode;
}

describe('API key cache', () => {
  it('a key revoked by another process stops working here as soon as the revocation is announced', async () => {
    const h = harness();
    const { id, key } = (await h.request('POST', '/api/v1/api-keys', { body: { name: 'cached' } })).json();
    expect(await statusWith(key)).toBe(200); // now cached in this process
    expect(await statusWith(key)).toBe(200);
    await other.accounts.revokeApiKey(h.tenant.id, id);
    await expect.poll(() => statusWith(key), { timeout: 2_000, interval: 5 }).toBe(401);
  });

  it('a key revoked through this process fails on the very next request', async () => {
    const h = harness();
    const { id, key } = (await h.request('POST', '/api/v1/api-keys', { body: { name: 'local' } })).json();
    expect(await statusWith(key)).toBe(200);
    await h.request('POST', `/api/v1/api-keys/${id}/revoke`);
    expect(await statusWith(key)).toBe(401);
  });
});

describe('ApiKeyCache', () => {
  it('is unused until it listens, and refuses a read that raced a revocation', async () => {
    const h = harness();
    const cache = new ApiKeyCache(h.db.pool);
    const context = { tenantId: 't', organizationId: 'o', environment: 'sandbox' as const, principalId: 'k', via: 'api_key' as const };
    cache.set('h1', context, cache.generation);
    expect(cache.get('h1')).toBeUndefined(); // not listening yet: nothing is cached
    await cache.start();
    try {
      cache.set('h1', context, cache.generation);
      expect(cache.get('h1')).toEqual(context);
      const readAt = cache.generation;
      cache.evict('some-other-key'); // a revocation arrives while a request reads the database
      cache.set('h2', context, readAt);
      expect(cache.get('h2')).toBeUndefined();
      cache.evict('h1');
      expect(cache.get('h1')).toBeUndefined();
    } finally {
      await cache.close();
    }
    expect(cache.get('h1')).toBeUndefined();
  });
});
