import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { withTx } from '../../src/db/tx.js';
import { scoped } from '../../src/db/tenant-scope.js';
import { writeOutboxEvent } from '../../src/db/outbox.js';
import { isPrivateAddress } from '../../src/adapters/http/url-guard.js';
import { postJson } from '../../src/adapters/http/post-json.js';
import { createDeliveryService, createSigningSecretBox } from '../../src/modules/webhooks/index.js';
import { WebhookReceiver } from './webhooks-receiver.js';

// Like production: private addresses only for sandbox tenants.
const harness = useHarness({ webhookAllowPrivateUrls: false });
const receiver = new WebhookReceiver();
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.20.30.40', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['2606:4700:4700::1111', false],
    // IPv6 forms that carry an IPv4 address are judged by that address
    ['::7f00:1', true], // ::127.0.0.1, IPv4-compatible (::/96)
    ['::a9fe:a9fe', true], // ::169.254.169.254
    ['::a00:1', true], // ::10.0.0.1
    ['::ffff:a00:1', true], // ::ffff:10.0.0.1
    ['::ffff:0:a00:1', true], // ::ffff:0:10.0.0.1 (SIIT)
    ['64:ff9b::a00:1', true], // NAT64 of 10.0.0.1
    ['64:ff9b::7f00:1', true],
    ['2002:a00:1::', true], // 6to4 of 10.0.0.1
    ['2002:a9fe:a9fe::1', true],
    ['2001:0:a00:1::1', true], // Teredo through server 10.0.0.1
    ['2001:0:808:808::80ff:fffe', true], // Teredo, client 127.0.0.1 (bits flipped)
    ['64:ff9b::808:808', false], // NAT64 of a public address
    ['2002:808:808::1', false], // 6to4 of a public address
    ['::808:808', false],
    ['198.18.0.1', true],
    ['2001:db8::1', true], // documentation range
  ])('%s -> %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('webhook URL guard', () => {
  it('refuses private, loopback and link-local URLs for a production tenant', async () => {
    const h = harness();
    for (const url of [
      `${baseUrl}/hook`,
      'http://10.0.0.7/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://192.168.0.10:8080/hook',
      'http://[::1]:8080/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::127.0.0.1]/hook',
      'http://[::169.254.169.254]/latest/meta-data',
      'http://[::10.0.0.1]/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://[64:ff9b::a00:1]/hook',
      'http://[2002:0a00:0001::]/hook',
      'http://localhost:3000/hook',
      'http://0.0.0.0/hook',
    ]) {
      const res = await h.request('POST', '/api/v1/webhooks/endpoints', { key: h.production.apiKey, body: { url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: 'url must not point to a private, loopback or link-local address' });
    }
    const creds = await h.request('POST', '/api/v1/webhooks/endpoints', { key: h.production.apiKey, body: { url: 'https://a:b@8.8.8.8/x' } });
    expect(creds.json().message).toBe('url must not contain credentials');
    const scheme = await h.request('POST', '/api/v1/webhooks/endpoints', { key: h.production.apiKey, body: { url: 'file:///etc/passwd' } });
    expect(scheme.json().message).toBe('url must use http or https, not file');
    // a public address literal is fine (nothing is sent until an event arrives)
    const ok = await h.request('POST', '/api/v1/webhooks/endpoints', { key: h.production.apiKey, body: { url: 'https://93.184.216.34/hook', enabled: false } });
    expect(ok.statusCode, ok.body).toBe(201);
    const patch = await h.request('PATCH', `/api/v1/webhooks/endpoints/${ok.json().id}`, { key: h.production.apiKey, body: { url: 'http://127.0.0.1/x' } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().message).toBe('url must not point to a private, loopback or link-local address');
  });

  it('allows loopback for a sandbox tenant, which receives on it', async () => {
    const h = harness();
    const res = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${baseUrl}/sandbox` } });
    expect(res.statusCode, res.body).toBe(201);
    await withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, h.tenant.id), h.clock, { type: 'customer.created', objectId: 'cus_sb', data: { customer_id: 'cus_sb' } }));
    await h.drainJobs();
    expect(receiver.at('/sandbox').map((r) => r.json.customer_id)).toEqual(['cus_sb']);
  });

  it('checks again before sending, so a production URL that now points inside is not called', async () => {
    const h = harness();
    // as if the endpoint's DNS name had been re-pointed at loopback after it was saved
    await h.db.pool.query(
      `INSERT INTO webhook_endpoints (tenant_id, id, url, enabled, secret, created_at, updated_at)
       VALUES ($1, 'whe_01KKRNW4G0FND4BS8K3Y584QKC', $2, true, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now(), now())`,
      [h.production.id, `${baseUrl}/inside`],
    );
    await withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, h.production.id), h.clock, { type: 'customer.created', objectId: 'cus_in', data: { customer_id: 'cus_in' } }));
    await h.drainJobs();
    expect(receiver.at('/inside')).toHaveLength(0);
    const log = await h.request('GET', '/api/v1/webhooks/endpoints/whe_01KKRNW4G0FND4BS8K3Y584QKC/deliveries', { key: h.production.apiKey });
    expect(log.json().data[0]).toMatchObject({
      status: 'PENDING',
      attempt_count: 1,
      attempts: [{ status_code: null, duration_ms: 0, succeeded: false, error: 'refused: url must not point to a private, loopback or link-local address' }],
    });
  });

  it('checks the address it connects to, so a name that resolves elsewhere by then (DNS rebinding) is not called', async () => {
    const h = harness();
    const port = new URL(baseUrl).port;
    // DNS answers a public address to the check before the attempt, then loopback to the connection.
    let lookups = 0;
    const rebinding = async () => (++lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const delivery = (lookup: () => Promise<string[]>) =>
      createDeliveryService({ pool: h.db.pool, clock: h.clock, wallClock: h.clock, post: postJson, timeoutMs: 5000, allowPrivateUrls: false, secrets: createSigningSecretBox(h.config.secretKey!), lookup });
    const endpointOf = async (tenantId: string, id: string, path: string) => {
      await h.db.pool.query(
        `INSERT INTO webhook_endpoints (tenant_id, id, url, enabled, secret, created_at, updated_at) VALUES ($1, $2, $3, true, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now(), now())`,
        [tenantId, id, `http://rebind.test:${port}${path}`],
      );
      await h.db.pool.query(
        `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, trigger, payload, status, attempt_count, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, 'customer.created', 'EVENT', '{}', 'PENDING', 0, $5, $5)`,
        [tenantId, `${id}_d`.replace('whe_', 'whd_'), id, `evt_${id.slice(4)}`, h.clock.now()],
      );
    };
    await endpointOf(h.production.id, 'whe_01KKRNW4G0REB1ND1NG000PR0D', '/rebound');
    expect(await delivery(rebinding).attemptOne(h.production.id)).toBe(true);
    expect(lookups).toBe(2);
    expect(receiver.at('/rebound')).toHaveLength(0);
    const attempt = await h.db.pool.query(`SELECT error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = 'whe_01KKRNW4G0REB1ND1NG000PR0D'`);
    expect(attempt.rows).toEqual([{ error: 'refused: url must not point to a private, loopback or link-local address' }]);

    // The same resolver does reach the receiver for a sandbox tenant: the refusal above is the guard's.
    await endpointOf(h.tenant.id, 'whe_01KKRNW4G0REB1ND1NG00SANDB', '/sandbox-rebound');
    expect(await delivery(async () => ['127.0.0.1']).attemptOne(h.tenant.id)).toBe(true);
    expect(receiver.at('/sandbox-rebound')).toHaveLength(1);
  });
});
