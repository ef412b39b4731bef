import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { withTx } from '../../src/db/tx.js';
import { scoped } from '../../src/db/tenant-scope.js';
import { writeOutboxEvent } from '../../src/db/outbox.js';
import { processWorkerId } from '../../src/jobs/worker-id.js';
import { createSigningSecretBox, sealStoredSecrets } from '../../src/modules/webhooks/secrets.js';
import { useHarness } from '../harness/app.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

async function storedSecrets(endpointId: string): Promise<{ secret: string; previous_secret: string | null }> {
  const { rows } = await harness().db.pool.query('SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1', [endpointId]);
  return rows[0];
}

function verify(secret: string, received: { body: string; headers: Record<string, unknown> }) {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as Record<string, unknown>;
}

describe('webhook signing secrets at rest', () => {
  it('are sealed with the service secret, current and previous, and still sign deliveries', async () => {
    const h = harness();
    const created = (await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${baseUrl}/sealed` } })).json();
    expect(created.secret).toMatch(/^whsec_/);
    const afterCreate = await storedSecrets(created.id);
    expect(afterCreate.secret).toMatch(/^v1\./);
    expect(afterCreate.secret).not.toContain(created.secret.slice(6));
    const rotated = (await h.request('POST', `/api/v1/webhooks/endpoints/${created.id}/rotate_secret`, { body: { grace_period_hours: 24 } })).json();
    const afterRotate = await storedSecrets(created.id);
    expect(afterRotate.previous_secret).toBe(afterCreate.secret);
    expect(afterRotate.secret).toMatch(/^v1\./);
    const clear = await h.db.pool.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE secret LIKE 'whsec_%' OR previous_secret LIKE 'whsec_%'`);
    expect(clear.rows[0].n).toBe(0);
    // a sealed value copied to another endpoint does not open there (the endpoint is authenticated data)
    const box = createSigningSecretBox(h.config.secretKey!);
    expect(box.open(afterRotate.secret, h.tenant.id, created.id)).toBe(rotated.secret);
    expect(() => box.open(afterRotate.secret, h.tenant.id, 'whe_other')).toThrow();

    await withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, h.tenant.id), h.clock, { type: 'customer.created', objectId: 'cus_sealed', data: { customer_id: 'cus_sealed' } }));
    await h.drainJobs();
    const [got] = receiver.at('/sealed');
    // signed with both secrets during the grace period
    expect(verify(rotated.secret, got!).customer_id).toBe('cus_sealed');
    expect(verify(created.secret, got!).customer_id).toBe('cus_sealed');

    // the attempt records which job worker made it (this process's drain worker)
    const attempt = await h.db.pool.query(`SELECT a.worker_id FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`, [created.id]);
    expect(attempt.rows).toEqual([{ worker_id: expect.stringMatching(new RegExp(`^${processWorkerId().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/drain-\\d+$`)) }]);
  });

  it('stored in clear by an earlier version are sealed at start, and keep signing', async () => {
    const h = harness();
    const plain = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    await h.db.pool.query(
      `INSERT INTO webhook_endpoints (tenant_id, id, url, enabled, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
       VALUES ($1, 'whe_01KKRNW4G0LEGACY0000000001', $2, true, $3, 'whsec_b2xkIHNlY3JldCBvZiB0aGUgZW5kcG9pbnQ=', now() + interval '1 day', now(), now())`,
      [h.tenant.id, `${baseUrl}/legacy`, plain],
    );
    const box = createSigningSecretBox(h.config.secretKey!);
    expect(await sealStoredSecrets(h.db.pool, box)).toBe(1);
    expect(await sealStoredSecrets(h.db.pool, box)).toBe(0);
    const stored = await storedSecrets('whe_01KKRNW4G0LEGACY0000000001');
    expect(stored.secret).toMatch(/^v1\./);
    expect(stored.previous_secret).toMatch(/^v1\./);
    expect(box.open(stored.secret, h.tenant.id, 'whe_01KKRNW4G0LEGACY0000000001')).toBe(plain);

    await withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, h.tenant.id), h.clock, { type: 'customer.created', objectId: 'cus_legacy', data: { customer_id: 'cus_legacy' } }));
    await h.drainJobs();
    expect(verify(plain, receiver.at('/legacy')[0]!).customer_id).toBe('cus_legacy');
  });

  it('that no longer open (SECRET_KEY changed) fail the attempt with what to do, and send nothing', async () => {
    const h = harness();
    const id = 'whe_01KKRNW4G0OTHERKEY00000001';
    const sealedElsewhere = createSigningSecretBox('another-service-secret').seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', h.tenant.id, id);
    await h.db.pool.query(
      `INSERT INTO webhook_endpoints (tenant_id, id, url, enabled, secret, created_at, updated_at) VALUES ($1, $2, $3, true, $4, now(), now())`,
      [h.tenant.id, id, `${baseUrl}/other-key`, sealedElsewhere],
    );
    await withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, h.tenant.id), h.clock, { type: 'customer.created', objectId: 'cus_key', data: { customer_id: 'cus_key' } }));
    await h.drainJobs();
    expect(receiver.at('/other-key')).toHaveLength(0);
    const log = (await h.request('GET', `/api/v1/webhooks/endpoints/${id}/deliveries`)).json();
    expect(log.data[0].attempts[0].error).toBe("not sent: the signing secret does not open with this SECRET_KEY; rotate the endpoint's secret");
  });
});
