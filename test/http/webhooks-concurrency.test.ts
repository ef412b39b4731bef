import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { compose, type Composition } from '../../src/main.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { withTx } from '../../src/db/tx.js';
import { scoped } from '../../src/db/tenant-scope.js';
import { writeOutboxEvent } from '../../src/db/outbox.js';
import { MS_PER_HOUR } from '../../src/kernel/clock.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';
let secondPool: Pool;
let second: Composition;

beforeAll(async () => {
  baseUrl = await receiver.start();
  const h = harness();
  // A second server process on the same database: its own pool, app, relay and delivery worker.
  secondPool = createPool(h.db.url, 10);
  second = await compose({ pool: secondPool, clock: h.clock, config: h.config });
});
afterAll(async () => {
  await second?.app.close();
  await secondPool?.end();
  await receiver.stop();
});

const OBJECTS = ['inv_1', 'inv_2', 'inv_3', 'inv_4'];

async function emit(h: Harness, objectId: string, n: number): Promise<string> {
  return withTx(h.db.pool, (tx) =>
    writeOutboxEvent(scoped(tx, h.tenant.id), h.clock, { type: 'invoice.created', objectId, data: { invoice_id: objectId, n } }),
  );
}

describe('two server processes on one database', () => {
  it('fan out and deliver each event once per attempt, in order per object', async () => {
    const h = harness();
    const res = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${baseUrl}/both` } });
    expect(res.statusCode).toBe(201);
    const relay = (c: Composition) => c.tasks['outbox.dispatch']!({});
    receiver.replies = [500, 500, 500, 500, 500];

    // events written while both relays and both delivery workers run
    const written: string[] = [];
    for (let round = 0; round < 5; round++) {
      const batch = Promise.all(OBJECTS.map((objectId) => emit(h, objectId, round)));
      const [ids] = await Promise.all([batch, relay(h.service), relay(second), h.service.webhooks.deliverDue(), second.webhooks.deliverDue()]);
      written.push(...ids);
    }
    await Promise.all([relay(h.service), relay(second)]);
    await Promise.all([h.service.webhooks.deliverDue(), second.webhooks.deliverDue()]);
    // five 500s can hit one delivery five times: 5 s + 5 min + 30 min + 2 h + 5 h of backoff
    for (let i = 0; i < 6; i++) {
      h.clock.advance(6 * MS_PER_HOUR);
      await Promise.all([h.service.webhooks.deliverDue(), second.webhooks.deliverDue(), h.service.webhooks.deliverDue()]);
    }

    const rows = (
      await h.db.pool.query(`SELECT event_id, status, attempt_count FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY event_seq`, [h.tenant.id])
    ).rows;
    // one delivery per event, all delivered
    expect(rows.map((r) => r.event_id).sort()).toEqual([...written].sort());
    expect(rows.every((r) => r.status === 'SUCCEEDED')).toBe(true);
    // the receiver got each event exactly as many times as it was attempted: once per attempt
    const received = receiver.at('/both').map((r) => String(r.headers['webhook-id']));
    for (const row of rows) expect(received.filter((id) => id === row.event_id)).toHaveLength(row.attempt_count);
    expect(received).toHaveLength(rows.reduce((sum, r) => sum + r.attempt_count, 0));
    expect(rows.reduce((sum, r) => sum + r.attempt_count, 0)).toBe(written.length + 5);
    // successful arrivals of one object are in the order its events were written
    const succeeded = receiver.at('/both').map((r) => r.json as { invoice_id: string; n: number; id: string });
    for (const objectId of OBJECTS) {
      const seen = [...new Map(succeeded.filter((p) => p.invoice_id === objectId).map((p) => [p.id, p.n])).values()];
      expect(seen, objectId).toEqual([0, 1, 2, 3, 4]);
    }
  });
});
