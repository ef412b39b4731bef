import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { useHarness, type Harness } from '../harness/app.js';
import { withTx } from '../../src/db/tx.js';
import { scoped } from '../../src/db/tenant-scope.js';
import { writeOutboxEvent } from '../../src/db/outbox.js';
import type { EventType } from '../../src/kernel/event-types.js';
import { MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from '../../src/kernel/clock.js';
import { RETRY_DELAYS_MS } from '../../src/modules/webhooks/index.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness({ webhookTimeoutMs: 300 });
const receiver = new WebhookReceiver();
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});
afterEach(async () => {
  // every enabled endpoint of the tenant gets every event: leave none behind for the next test
  const h = harness();
  const list = await h.request('GET', '/api/v1/webhooks/endpoints?per_page=100');
  for (const endpoint of list.json().data) await h.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`);
  receiver.replies = [];
  receiver.fallback = 200;
  receiver.byPath.clear();
});

interface CreatedEndpoint {
  id: string;
  secret: string;
  url: string;
}

async function createEndpoint(h: Harness, path: string, extra: Record<string, unknown> = {}): Promise<CreatedEndpoint> {
  const res = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${baseUrl}${path}`, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function emit(h: Harness, type: EventType, objectId: string, data: Record<string, unknown>, tenantId = h.tenant.id): Promise<string> {
  return withTx(h.db.pool, (tx) => writeOutboxEvent(scoped(tx, tenantId), h.clock, { type, objectId, data }));
}

async function deliveries(h: Harness, endpointId: string, query = '') {
  const res = await h.request('GET', `/api/v1/webhooks/endpoints/${endpointId}/deliveries?per_page=100&order_by=created_at.asc${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Array<Record<string, any>>;
}

function verify(secret: string, received: { body: string; headers: Record<string, unknown> }) {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as Record<string, unknown>;
}

describe('webhook endpoints API', () => {
  it('creates with a secret shown once, gets, lists, updates and deletes', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `${baseUrl}/crud`, description: 'ERP sync', event_types: ['invoice.finalized', 'invoice.paid'] },
    });
    expect(created.statusCode).toBe(201);
    const endpoint = created.json();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_[0-9A-Z]{26}$/),
      url: `${baseUrl}/crud`,
      description: 'ERP sync',
      event_types: ['invoice.finalized', 'invoice.paid'],
      enabled: true,
      disabled_reason: null,
      previous_secret_expires_at: null,
      created_at: h.clock.now().toISOString(),
      updated_at: h.clock.now().toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const got = await h.request('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().secret).toBeUndefined();
    expect(got.json().url).toBe(`${baseUrl}/crud`);

    h.clock.advance(MS_PER_SECOND); // list order is by creation time
    await createEndpoint(h, '/crud-2');
    const page = await h.request('GET', '/api/v1/webhooks/endpoints?per_page=1&page=1&order_by=created_at.asc');
    expect(page.json().pagination_meta).toEqual({ page: 1, per_page: 1, total_items: 2, total_pages: 2 });
    expect(page.json().data[0].url).toBe(`${baseUrl}/crud-2`);

    const patched = await h.request('PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`, { body: { enabled: false, event_types: null, description: null } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ enabled: false, disabled_reason: 'MANUAL', event_types: null, description: null });
    const reenabled = await h.request('PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`, { body: { enabled: true } });
    expect(reenabled.json()).toMatchObject({ enabled: true, disabled_reason: null });

    expect((await h.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect((await h.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('validates url and event types, naming the field', async () => {
    const h = harness();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://example.com/hook' }, 'url must use http or https'],
      [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
      [{ url: 'https://user:pw@example.com/hook' }, 'url must not contain credentials'],
      [{ url: `${baseUrl}/x`, event_types: ['invoice.paid', 'invoice.exploded'] }, "event_types[1] 'invoice.exploded' is not a known event type"],
      [{ url: `${baseUrl}/x`, event_types: [] }, 'event_types must list at least one event type'],
      [{ url: 42 }, 'url must be string'],
      [{}, 'url is required'],
    ];
    for (const [body, message] of cases) {
      const res = await h.request('POST', '/api/v1/webhooks/endpoints', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
    const endpoint = await createEndpoint(h, '/valid');
    const badPatch = await h.request('PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`, { body: { url: 'javascript:alert(1)' } });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().message).toContain('url must use http or https');
    const badOrder = await h.request('GET', '/api/v1/webhooks/endpoints?order_by=url.asc');
    expect(badOrder.statusCode).toBe(400);
    expect(badOrder.json().message).toContain('order_by');
    const badGrace = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/rotate_secret`, { body: { grace_period_hours: 500 } });
    expect(badGrace.statusCode).toBe(400);
    expect(badGrace.json().message).toContain('grace_period_hours');
  });

  it("hides one tenant's endpoints and deliveries from another", async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/private');
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/endpoints/${endpoint.id}`],
      ['PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`],
      ['DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`],
      ['GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries`],
      ['POST', `/api/v1/webhooks/endpoints/${endpoint.id}/test`],
      ['POST', `/api/v1/webhooks/endpoints/${endpoint.id}/rotate_secret`],
    ] as const) {
      const res = await h.request(method, url, { key: h.other.apiKey, ...(method === 'PATCH' ? { body: { description: 'x' } } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'webhook endpoint not found' });
    }
    expect((await h.request('GET', '/api/v1/webhooks/endpoints', { key: h.other.apiKey })).json().data).toEqual([]);
    // an event of the other tenant is not delivered to this tenant's endpoint
    await emit(h, 'customer.created', 'cus_OTHER', { customer_id: 'cus_OTHER' }, h.other.id);
    await h.drainJobs();
    expect(receiver.at('/private')).toHaveLength(0);
  });
});

describe('signed delivery', () => {
  it('delivers an outbox event as the reference envelope, signed with Standard Webhooks', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/signed');
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Hooks' } })).json();
    const product = await h.request('POST', '/api/v1/products', { body: { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'RATE' } } });
    expect(product.statusCode, product.body).toBe(201);
    await h.drainJobs();

    const [event] = (await h.db.pool.query(`SELECT id, created_at FROM outbox_events WHERE object_id = $1`, [product.json().id])).rows;
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/); // the reference's prefix
    const got = receiver.at('/signed');
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['webhook-id']).toBe(event.id);
    expect(got[0]!.headers['content-type']).toBe('application/json');
    const payload = verify(endpoint.secret, got[0]!);
    expect(payload).toEqual({
      id: event.id,
      type: 'product.created',
      timestamp: event.created_at.toISOString(),
      product_id: product.json().id,
      name: 'Seats',
      description: null,
      fee_type: 'RATE',
      product_family_id: family.id,
      created_at: h.clock.now().toISOString(),
      custom_properties: {},
    });
    expect(() => new Webhook(`whsec_${Buffer.from('another secret here!').toString('base64')}`).verify(got[0]!.body, got[0]!.headers as Record<string, string>)).toThrow();

    const [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: 'product.created',
      object_id: product.json().id,
      trigger: 'EVENT',
      status: 'SUCCEEDED',
      attempt_count: 1,
      next_attempt_at: null,
      last_status_code: 200,
      attempts: [{ attempt_number: 1, attempted_at: h.clock.now().toISOString(), status_code: 200, duration_ms: expect.any(Number), response_excerpt: 'answer 200', error: null, succeeded: true }],
    });
    const one = await h.request('GET', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries/${delivery!.id}`);
    expect(one.json()).toEqual(delivery);
  });

  it('sends only the event kinds an endpoint asked for, and nothing to disabled endpoints', async () => {
    const h = harness();
    await createEndpoint(h, '/paid-only', { event_types: ['invoice.paid'] });
    await createEndpoint(h, '/disabled', { enabled: false });
    await emit(h, 'customer.created', 'cus_1', { customer_id: 'cus_1' });
    await emit(h, 'invoice.paid', 'inv_1', { invoice_id: 'inv_1' });
    await h.drainJobs();
    expect(receiver.at('/paid-only').map((r) => r.json.type)).toEqual(['invoice.paid']);
    expect(receiver.at('/disabled')).toHaveLength(0);
  });

  it('fans each outbox event out once, however often the relay runs', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/once');
    await emit(h, 'customer.created', 'cus_once', { customer_id: 'cus_once' });
    await h.drainJobs();
    await h.service.tasks['outbox.dispatch']!({});
    await h.drainJobs();
    expect(receiver.at('/once')).toHaveLength(1);
    expect(await deliveries(h, endpoint.id)).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries a 500 with backoff on the business clock, keeping the event id', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/flaky');
    receiver.replies = [500, 503];
    const eventId = await emit(h, 'customer.created', 'cus_flaky', { customer_id: 'cus_flaky' });
    const start = h.clock.now().getTime();
    await h.drainJobs();
    let [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({ status: 'PENDING', attempt_count: 1, last_status_code: 500, next_attempt_at: new Date(start + 5 * MS_PER_SECOND).toISOString() });

    expect(await h.service.webhooks.deliverDue()).toBe(0); // not due yet
    // the worker's next wake-up is queued for when the retry falls due (wall time, 5 s from now)
    const wake = await h.db.pool.query(
      `SELECT extract(epoch FROM run_at - now()) AS in_seconds FROM graphile_worker.jobs WHERE task_identifier = 'webhooks.deliver_due' AND locked_at IS NULL`,
    );
    expect(wake.rows).toHaveLength(1);
    expect(Number(wake.rows[0].in_seconds)).toBeGreaterThan(3);
    expect(Number(wake.rows[0].in_seconds)).toBeLessThanOrEqual(5);
    h.clock.advance(5 * MS_PER_SECOND);
    expect(await h.service.webhooks.deliverDue()).toBe(1);
    [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({ status: 'PENDING', attempt_count: 2, last_status_code: 503, next_attempt_at: new Date(start + 5 * MS_PER_SECOND + 5 * MS_PER_MINUTE).toISOString() });

    h.clock.advance(5 * MS_PER_MINUTE);
    expect(await h.service.webhooks.deliverDue()).toBe(1);
    [delivery] = await deliveries(h, endpoint.id);
    expect(delivery!.status).toBe('SUCCEEDED');
    expect(delivery!.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 200]);
    expect(delivery!.attempts[0].response_excerpt).toBe('answer 500');
    expect(receiver.at('/flaky').map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    for (const r of receiver.at('/flaky')) expect(verify(endpoint.secret, r).id).toBe(eventId);
  });

  it('counts a timeout as a failed attempt and retries it', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/slow');
    receiver.replies = ['hang'];
    await emit(h, 'customer.created', 'cus_slow', { customer_id: 'cus_slow' });
    await h.drainJobs();
    let [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({ status: 'PENDING', attempt_count: 1, last_status_code: null });
    expect(delivery!.attempts[0]).toMatchObject({ status_code: null, error: 'timeout after 300 ms', succeeded: false, response_excerpt: null });
    expect(delivery!.attempts[0].duration_ms).toBeGreaterThanOrEqual(250);
    h.clock.advance(5 * MS_PER_SECOND);
    await h.service.webhooks.deliverDue();
    [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempt_count: 2, last_status_code: 200 });
  });

  it('gives up after 10 attempts over about three days', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/down');
    receiver.fallback = 500;
    await emit(h, 'customer.created', 'cus_down', { customer_id: 'cus_down' });
    const start = h.clock.now().getTime();
    await h.drainJobs();
    for (const delayMs of RETRY_DELAYS_MS) {
      h.clock.advance(delayMs - 1);
      expect(await h.service.webhooks.deliverDue()).toBe(0);
      h.clock.advance(1);
      expect(await h.service.webhooks.deliverDue()).toBe(1);
    }
    const [delivery] = await deliveries(h, endpoint.id);
    expect(delivery).toMatchObject({ status: 'FAILED', attempt_count: 10, next_attempt_at: null, last_status_code: 500 });
    expect(delivery!.attempts).toHaveLength(10);
    expect(h.clock.now().getTime() - start).toBe(71 * MS_PER_HOUR + 35 * MS_PER_MINUTE + 5 * MS_PER_SECOND);
    h.clock.advance(24 * MS_PER_HOUR);
    expect(await h.service.webhooks.deliverDue()).toBe(0);
    expect(receiver.at('/down')).toHaveLength(10);
    expect((await deliveries(h, endpoint.id, '&status=FAILED')).map((d) => d.id)).toEqual([delivery!.id]);
    expect(await deliveries(h, endpoint.id, '&status=PENDING')).toEqual([]);
  });

  it('disables an endpoint that has failed for five days and records an event', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/dead');
    const watcher = await createEndpoint(h, '/watcher', { event_types: ['webhook_endpoint.disabled'] });
    receiver.byPath.set('/dead', 500);
    const failingSince = h.clock.now();
    for (let day = 0; day < 5; day++) {
      await emit(h, 'customer.created', `cus_dead_${day}`, { customer_id: `cus_dead_${day}` });
      await h.drainJobs();
      await h.service.webhooks.deliverDue();
      expect((await h.request('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`)).json().enabled).toBe(true);
      h.clock.advance(24 * MS_PER_HOUR);
    }
    await emit(h, 'customer.created', 'cus_dead_5', { customer_id: 'cus_dead_5' });
    await h.drainJobs();
    await h.service.webhooks.deliverDue();
    const after = (await h.request('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`)).json();
    expect(after).toMatchObject({ enabled: false, disabled_reason: 'FAILING' });
    const events = await h.db.pool.query(`SELECT payload FROM outbox_events WHERE event_type = 'webhook_endpoint.disabled' AND object_id = $1`, [endpoint.id]);
    expect(events.rows).toEqual([
      { payload: { endpoint_id: endpoint.id, url: `${baseUrl}/dead`, reason: 'FAILING', failing_since: failingSince.toISOString(), disabled_at: h.clock.now().toISOString() } },
    ]);
    await h.drainJobs();
    expect(receiver.at('/watcher').map((r) => verify(watcher.secret, r).endpoint_id)).toEqual([endpoint.id]);
    // a disabled endpoint gets nothing more, not even its pending retries
    const before = receiver.at('/dead').length;
    h.clock.advance(3 * 24 * MS_PER_HOUR);
    await h.service.webhooks.deliverDue();
    expect(receiver.at('/dead')).toHaveLength(before);
  });
});

describe('redelivery and test events', () => {
  it('redelivers an event with the same id as a new delivery', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/again');
    const eventId = await emit(h, 'invoice.finalized', 'inv_again', { invoice_id: 'inv_again' });
    await h.drainJobs();
    const [original] = await deliveries(h, endpoint.id);
    h.clock.advance(MS_PER_SECOND);
    const res = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries/${original!.id}/redeliver`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ event_id: eventId, trigger: 'REDELIVERY', status: 'PENDING', attempt_count: 0, attempts: [] });
    expect(res.json().id).not.toBe(original!.id);
    await h.drainJobs();
    const got = receiver.at('/again');
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(verify(endpoint.secret, got[1]!)).toEqual(verify(endpoint.secret, got[0]!));
    expect((await deliveries(h, endpoint.id)).map((d) => [d.trigger, d.status])).toEqual([['EVENT', 'SUCCEEDED'], ['REDELIVERY', 'SUCCEEDED']]);
    const missing = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries/whd_00000000000000000000000000/redeliver`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 'NOT_FOUND', message: 'webhook delivery not found' });
  });

  it('keeps an event stored with the former oev_ prefix: delivered, filtered and redelivered under its own id', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/legacy');
    const legacyId = 'oev_01KKRNW4G0P3SBJMJ869H6QC89';
    await h.db.pool.query(
      `INSERT INTO outbox_events (tenant_id, id, event_type, object_id, payload, created_at) VALUES ($1, $2, 'customer.created', 'cus_legacy', $3, $4)`,
      [h.tenant.id, legacyId, JSON.stringify({ customer_id: 'cus_legacy' }), h.clock.now()],
    );
    const newId = await emit(h, 'customer.created', 'cus_new', { customer_id: 'cus_new' });
    expect(newId).toMatch(/^evt_/);
    await h.drainJobs();
    expect(receiver.at('/legacy').map((r) => r.headers['webhook-id']).sort()).toEqual([newId, legacyId].sort());
    const [legacy, ...others] = await deliveries(h, endpoint.id, `&event_id=${legacyId}`);
    expect(others).toEqual([]);
    expect(legacy).toMatchObject({ event_id: legacyId, object_id: 'cus_legacy', status: 'SUCCEEDED' });
    const again = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/deliveries/${legacy!.id}/redeliver`);
    expect(again.statusCode, again.body).toBe(202);
    await h.drainJobs();
    const redelivered = receiver.at('/legacy').at(-1)!;
    expect(redelivered.headers['webhook-id']).toBe(legacyId);
    expect(verify(endpoint.secret, redelivered)).toMatchObject({ id: legacyId, type: 'customer.created', customer_id: 'cus_legacy' });
  });

  it('sends a signed test event', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/ping', { event_types: ['invoice.paid'] });
    const res = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/test`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ trigger: 'TEST', event_type: 'webhook.test', status: 'PENDING' });
    await h.drainJobs();
    const [got] = receiver.at('/ping');
    expect(res.json().event_id).toMatch(/^evt_/);
    expect(verify(endpoint.secret, got!)).toEqual({
      id: res.json().event_id,
      type: 'webhook.test',
      timestamp: h.clock.now().toISOString(),
      endpoint_id: endpoint.id,
      message: 'This is a test event.',
    });
    await h.request('PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`, { body: { enabled: false } });
    const refused = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/test`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('CONFLICT');
  });
});

describe('ordering', () => {
  it("holds an object's later events until its earlier one is delivered", async () => {
    const h = harness();
    await createEndpoint(h, '/ordered');
    receiver.replies = [500];
    const first = await emit(h, 'invoice.created', 'inv_A', { invoice_id: 'inv_A', status: 'DRAFT' });
    await h.drainJobs(); // first attempt of inv_A fails
    const second = await emit(h, 'invoice.finalized', 'inv_A', { invoice_id: 'inv_A', status: 'FINALIZED' });
    const other = await emit(h, 'invoice.created', 'inv_B', { invoice_id: 'inv_B', status: 'DRAFT' });
    await h.drainJobs();
    // inv_B is not held up by inv_A; inv_A's second event waits for its first
    expect(receiver.at('/ordered').map((r) => r.headers['webhook-id'])).toEqual([first, other]);
    h.clock.advance(5 * MS_PER_SECOND);
    expect(await h.service.webhooks.deliverDue()).toBe(2);
    expect(receiver.at('/ordered').map((r) => r.headers['webhook-id'])).toEqual([first, other, first, second]);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the grace period, then with the new one only', async () => {
    const h = harness();
    const endpoint = await createEndpoint(h, '/rotate');
    const rotated = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/rotate_secret`, { body: { grace_period_hours: 24 } });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newSecret = rotated.json().secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    expect(rotated.json().previous_secret_expires_at).toBe(new Date(h.clock.now().getTime() + 24 * MS_PER_HOUR).toISOString());

    await emit(h, 'customer.created', 'cus_rot1', { customer_id: 'cus_rot1' });
    await h.drainJobs();
    const [during] = receiver.at('/rotate');
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(newSecret, during!).customer_id).toBe('cus_rot1');
    expect(verify(endpoint.secret, during!).customer_id).toBe('cus_rot1');

    h.clock.advance(24 * MS_PER_HOUR + 1);
    await emit(h, 'customer.created', 'cus_rot2', { customer_id: 'cus_rot2' });
    await h.drainJobs();
    const after = receiver.at('/rotate')[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(newSecret, after).customer_id).toBe('cus_rot2');
    expect(() => verify(endpoint.secret, after)).toThrow('No matching signature found');

    // without a grace period the old secret stops at once
    const immediate = await h.request('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/rotate_secret`, { body: { grace_period_hours: 0 } });
    expect(immediate.json().previous_secret_expires_at).toBeNull();
    await emit(h, 'customer.created', 'cus_rot3', { customer_id: 'cus_rot3' });
    await h.drainJobs();
    const last = receiver.at('/rotate')[2]!;
    expect(verify(immediate.json().secret, last).customer_id).toBe('cus_rot3');
    expect(() => verify(newSecret, last)).toThrow();
  });
});
