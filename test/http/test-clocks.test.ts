// Test clocks through the API (docs/test-clocks.md): sandbox only, forward-only advances of at
// most two years run as a job (ADVANCING -> READY, test_clock.ready), deletion takes the clock's
// objects with it, and clock customers and the others never share a clock-driven run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { seedPlan } from './subscription-fixtures.js';
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

async function createClock(h: Harness, frozenTime: string, name = 'Clock'): Promise<string> {
  const res = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: frozenTime, name } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function advanceAndWait(h: Harness, clockId: string, to: string): Promise<void> {
  const res = await h.request('POST', `/api/v1/test-clocks/${clockId}/advance`, { body: { frozen_time: to } });
  expect(res.statusCode, res.body).toBe(200);
  await h.drainJobs();
  await expect.poll(async () => (await h.request('GET', `/api/v1/test-clocks/${clockId}`)).json().status).toBe('READY');
}

/** A customer (on a test clock or not) with a monthly subscription to a plan of 49.00 + one seat at 10.00, anchor 1. */
async function subscribed(h: Harness, options: { startDate: string; testClockId?: string; alias?: string }) {
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  const customer = await h.request('POST', '/api/v1/customers', {
    body: { name: 'Clocked', currency: 'EUR', ...(options.alias ? { alias: options.alias } : {}), ...(options.testClockId ? { test_clock_id: options.testClockId } : {}) },
  });
  expect(customer.statusCode, customer.body).toBe(201);
  const sub = await h.request('POST', '/api/v1/subscriptions', {
    body: { customer_id_or_alias: customer.json().id, plan_version_id: plan.versionId, start_date: options.startDate, billing_day_anchor: 1 },
  });
  expect(sub.statusCode, sub.body).toBe(201);
  return { customerId: customer.json().id as string, subscriptionId: sub.json().id as string };
}

async function invoiceDates(h: Harness, subscriptionId: string): Promise<string[]> {
  const res = await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&order_by=invoice_date.asc&per_page=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.map((i: { invoice_date: string }) => i.invoice_date);
}

describe('test clocks API', () => {
  it('exists only in sandbox tenants: production credentials get a 403 that says why, and a production customer cannot name a clock', async () => {
    const h = harness();
    const key = h.production.apiKey;
    const created = await h.request('POST', '/api/v1/test-clocks', { key, body: { frozen_time: '2026-01-01T00:00:00Z' } });
    expect(created.statusCode).toBe(403);
    expect(created.json()).toEqual({
      code: 'FORBIDDEN',
      message: 'test clocks exist only in sandbox tenants, and this request acts for a production tenant; use a sandbox API key (sk_sandbox_...)',
    });
    expect((await h.request('GET', '/api/v1/test-clocks', { key })).statusCode).toBe(403);
    const sandboxClock = await createClock(h, '2026-01-01T00:00:00Z');
    expect((await h.request('GET', `/api/v1/test-clocks/${sandboxClock}`, { key })).statusCode).toBe(403);
    expect((await h.request('POST', `/api/v1/test-clocks/${sandboxClock}/advance`, { key, body: { frozen_time: '2026-02-01T00:00:00Z' } })).statusCode).toBe(403);
    expect((await h.request('DELETE', `/api/v1/test-clocks/${sandboxClock}`, { key })).statusCode).toBe(403);

    const customer = await h.request('POST', '/api/v1/customers', { key, body: { name: 'Live', currency: 'EUR', test_clock_id: sandboxClock } });
    expect(customer.statusCode).toBe(400);
    expect(customer.json().message).toBe('test_clock_id: production tenants have no test clocks; create customers on a test clock with a sandbox API key (sk_sandbox_...)');
    // a sandbox of another organization does not see this clock either
    const foreign = await h.request('POST', '/api/v1/customers', { key: h.other.apiKey, body: { name: 'Other', currency: 'EUR', test_clock_id: sandboxClock } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toMatch(new RegExp(`^test_clock_id '${sandboxClock}' is not a test clock of this tenant; create one with POST /api/v1/test-clocks`));
    expect((await h.request('GET', `/api/v1/test-clocks/${sandboxClock}`, { key: h.other.apiKey })).statusCode).toBe(404);
  });

  it('creates, gets and lists clocks; refuses a malformed or out-of-range frozen_time naming the field', async () => {
    const h = harness();
    const id = await createClock(h, '2030-06-15T08:30:00+02:00', 'Future');
    const got = await h.request('GET', `/api/v1/test-clocks/${id}`);
    expect(got.json()).toEqual({
      id, name: 'Future', frozen_time: '2030-06-15T06:30:00.000Z', status: 'READY', target_frozen_time: null,
      created_at: h.clock.now().toISOString(), updated_at: h.clock.now().toISOString(),
    });
    const list = await h.request('GET', '/api/v1/test-clocks', { query: { order_by: 'frozen_time.desc', per_page: '1' } });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(list.json().pagination_meta.total_items).toBeGreaterThanOrEqual(1);

    const malformed = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-01-01' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toBe(`frozen_time must be an RFC 3339 date-time with a zone, e.g. "2026-01-01T00:00:00Z"; got '2026-01-01'`);
    const early = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '1999-12-31T23:59:59Z' } });
    expect(early.statusCode).toBe(400);
    expect(early.json().message).toMatch(/^frozen_time must be from 2000-01-01T00:00:00Z up to 2099-12-31T23:59:59Z/);
    // set at creation only
    const customer = await h.request('POST', '/api/v1/customers', { body: { name: 'On clock', currency: 'EUR', test_clock_id: id } });
    expect(customer.statusCode, customer.body).toBe(201);
    expect(customer.json()).toMatchObject({ test_clock_id: id, created_at: '2030-06-15T06:30:00.000Z' });
    const patch = await h.request('PATCH', `/api/v1/customers/${customer.json().id}`, { body: { test_clock_id: null } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().message).toContain('test_clock_id');
  });

  it('advances forward only, at most two years per call, one advance at a time', async () => {
    const h = harness();
    const id = await createClock(h, '2026-01-31T12:00:00Z');
    const advance = (to: string) => h.request('POST', `/api/v1/test-clocks/${id}/advance`, { body: { frozen_time: to } });
    const same = await advance('2026-01-31T12:00:00Z');
    expect(same.statusCode).toBe(400);
    expect(same.json().message).toBe("frozen_time must be after the clock's frozen_time 2026-01-31T12:00:00.000Z: a test clock only moves forward; got '2026-01-31T12:00:00Z'");
    const back = await advance('2025-12-31T00:00:00Z');
    expect(back.statusCode).toBe(400);
    expect(back.json().message).toContain('a test clock only moves forward');
    const far = await advance('2028-01-31T12:00:01Z');
    expect(far.statusCode).toBe(400);
    expect(far.json().message).toBe("frozen_time may be at most 2 years after the clock's frozen_time, so at most 2028-01-31T12:00:00.000Z; advance in several steps. Got '2028-01-31T12:00:01Z'");
    expect((await h.request('GET', `/api/v1/test-clocks/${id}`)).json()).toMatchObject({ status: 'READY', frozen_time: '2026-01-31T12:00:00.000Z' });

    const twoYears = await advance('2028-01-31T12:00:00Z');
    expect(twoYears.statusCode, twoYears.body).toBe(200);
    expect(twoYears.json()).toMatchObject({ status: 'ADVANCING', frozen_time: '2026-01-31T12:00:00.000Z', target_frozen_time: '2028-01-31T12:00:00.000Z' });
    const again = await advance('2028-02-01T00:00:00Z');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', message: 'test clock is ADVANCING to 2028-01-31T12:00:00.000Z; advance it again once its status is READY' });
    const deleting = await h.request('DELETE', `/api/v1/test-clocks/${id}`);
    expect(deleting.statusCode).toBe(409);
    await h.drainJobs();
    expect((await h.request('GET', `/api/v1/test-clocks/${id}`)).json()).toMatchObject({ status: 'READY', frozen_time: '2028-01-31T12:00:00.000Z', target_frozen_time: null });
  });

  it('shows ADVANCING until the job has run, then READY, and emits test_clock.created, .advancing and .ready', async () => {
    const h = harness();
    const endpoint = await h.request('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `${baseUrl}/clocks`, event_types: ['test_clock.created', 'test_clock.advancing', 'test_clock.ready'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const id = await createClock(h, '2026-05-01T00:00:00Z', 'Webhooks');
    const started = await h.request('POST', `/api/v1/test-clocks/${id}/advance`, { body: { frozen_time: '2026-06-15T00:00:00Z' } });
    expect(started.json()).toMatchObject({ status: 'ADVANCING', target_frozen_time: '2026-06-15T00:00:00.000Z' });
    // nothing has run yet: the advance is a job
    expect((await h.request('GET', `/api/v1/test-clocks/${id}`)).json()).toMatchObject({ status: 'ADVANCING', frozen_time: '2026-05-01T00:00:00.000Z' });
    await h.drainJobs();
    expect((await h.request('GET', `/api/v1/test-clocks/${id}`)).json()).toMatchObject({ status: 'READY', frozen_time: '2026-06-15T00:00:00.000Z', target_frozen_time: null });
    await h.drainJobs();
    await h.service.webhooks.deliverDue();
    await expect.poll(() => receiver.at('/clocks').length).toBe(3);
    const events = receiver.at('/clocks').map((r) => r.json);
    expect(events.map((e) => [e.type, e.test_clock_id, e.status, e.frozen_time])).toEqual([
      ['test_clock.created', id, 'READY', '2026-05-01T00:00:00.000Z'],
      ['test_clock.advancing', id, 'ADVANCING', '2026-05-01T00:00:00.000Z'],
      ['test_clock.ready', id, 'READY', '2026-06-15T00:00:00.000Z'],
    ]);
  });

  it('keeps clock customers out of the periodic run at service time, and an advance away from every other customer', async () => {
    const h = harness();
    // the service clock is 2026-03-15; this clock is in 2025, before its subscription starts
    const clockId = await createClock(h, '2025-06-01T00:00:00Z');
    const onClock = await subscribed(h, { startDate: '2025-07-01', testClockId: clockId });
    const elsewhere = await subscribed(h, { startDate: '2026-04-01' });
    const backdated = await subscribed(h, { startDate: '2026-02-01' });
    const status = async (id: string) => (await h.request('GET', `/api/v1/subscriptions/${id}`)).json().status;
    expect(await status(onClock.subscriptionId)).toBe('PENDING_ACTIVATION');

    await h.service.tasks['billing.run']!({ once: true });
    // the run billed the ordinary backdated subscription, and nothing of the clock's
    expect(await invoiceDates(h, backdated.subscriptionId)).toEqual(['2026-02-01', '2026-03-01']);
    expect(await invoiceDates(h, onClock.subscriptionId)).toEqual([]);
    expect(await status(onClock.subscriptionId)).toBe('PENDING_ACTIVATION');
    const listed = await h.request('GET', `/api/v1/subscriptions?customer_id=${onClock.customerId}`);
    expect(listed.json().data.map((s: { status: string }) => s.status)).toEqual(['PENDING_ACTIVATION']);

    // the advance crosses 2025-07-01..2026-04-01 for the clock's customer only
    await advanceAndWait(h, clockId, '2026-04-02T00:00:00Z');
    expect(await status(onClock.subscriptionId)).toBe('ACTIVE');
    expect(await invoiceDates(h, onClock.subscriptionId)).toEqual([
      '2025-07-01', '2025-08-01', '2025-09-01', '2025-10-01', '2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01',
    ]);
    expect(await status(elsewhere.subscriptionId)).toBe('PENDING_ACTIVATION');
    expect(await invoiceDates(h, elsewhere.subscriptionId)).toEqual([]);
    expect(await invoiceDates(h, backdated.subscriptionId)).toEqual(['2026-02-01', '2026-03-01']);
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [elsewhere.subscriptionId]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['subscription.created']);
  });

  it('answers requests about a clock\'s subscription at the clock\'s time: current period, list, usage period, cancellation at period end', async () => {
    const h = harness();
    const clockId = await createClock(h, '2026-06-10T09:00:00Z');
    const { subscriptionId } = await subscribed(h, { startDate: '2026-06-01', testClockId: clockId });
    // the service clock (2026-03-15) would put the subscription before its start
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json()).toMatchObject({
      status: 'ACTIVE', current_period_start: '2026-06-01', current_period_end: '2026-07-01', next_invoice_date: '2026-07-01',
    });
    const listed = (await h.request('GET', '/api/v1/subscriptions', { query: { per_page: '100' } })).json().data.find((s: { id: string }) => s.id === subscriptionId);
    expect(listed).toMatchObject({ current_period_start: '2026-06-01', current_period_end: '2026-07-01' });
    expect((await h.request('GET', `/api/v1/usage/subscription/${subscriptionId}`)).json()).toMatchObject({ period_start: '2026-06-01', period_end: '2026-07-01' });
    const cancelled = await h.request('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, { body: {} });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().subscription).toMatchObject({ status: 'ACTIVE', cancel_effective_date: '2026-07-01', current_period_end: '2026-07-01' });
    await advanceAndWait(h, clockId, '2026-07-01T00:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json()).toMatchObject({ status: 'CANCELLED' });
  });

  it('times usage of a clock customer by the clock: an event at service time is in the clock\'s future', async () => {
    const h = harness();
    const clockId = await createClock(h, '2025-06-01T00:00:00Z');
    const { customerId } = await subscribed(h, { startDate: '2025-06-01', testClockId: clockId });
    const send = (timestamp: string) => h.request('POST', '/api/v1/events', { body: { event_id: `u-${timestamp}`, code: 'api_call', customer_id: customerId, timestamp } });
    const atServiceTime = await send(h.clock.now().toISOString());
    expect(atServiceTime.statusCode).toBe(400);
    expect(atServiceTime.json().message).toContain('timestamp');
    expect((await send('2025-06-01T00:00:00Z')).statusCode).toBe(201);
  });

  it('deletes the clock with its customers, subscriptions, invoices, usage and events, and nothing else', async () => {
    const h = harness();
    const clockId = await createClock(h, '2026-01-01T00:00:00Z');
    const { customerId, subscriptionId } = await subscribed(h, { startDate: '2026-01-01', testClockId: clockId, alias: 'clocked-alias' });
    const other = await subscribed(h, { startDate: '2026-03-01' });
    const ingest = await h.request('POST', '/api/v1/events/ingest', {
      body: { events: [{ event_id: 'del-1', code: 'api_call', customer_id: 'clocked-alias', timestamp: '2026-01-01T00:00:00Z' }, { event_id: 'del-2', code: 'api_call', customer_id: other.customerId, timestamp: h.clock.now().toISOString() }] },
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    await advanceAndWait(h, clockId, '2026-02-15T00:00:00Z');
    const invoices = (await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}`)).json().data.map((i: { id: string }) => i.id);
    expect(invoices).toHaveLength(2);
    await h.drainJobs(); // PDFs and e-mails of the finalized invoices
    const count = async (sql: string, params: unknown[]) => Number((await h.db.pool.query(sql, params)).rows[0].n);
    expect(await count(`SELECT count(*) AS n FROM documents WHERE object_id = ANY($1)`, [invoices])).toBe(2);
    expect(await count(`SELECT count(*) AS n FROM usage_events WHERE customer_ref = ANY($1)`, [[customerId, 'clocked-alias']])).toBe(1);

    const deleted = await h.request('DELETE', `/api/v1/test-clocks/${clockId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ id: clockId, deleted: true, deleted_objects: { customers: 1, subscriptions: 1, invoices: 2, credit_notes: 0 } });
    expect((await h.request('GET', `/api/v1/test-clocks/${clockId}`)).statusCode).toBe(404);
    expect((await h.request('GET', `/api/v1/customers/${customerId}`)).statusCode).toBe(404);
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).statusCode).toBe(404);
    for (const id of invoices) expect((await h.request('GET', `/api/v1/invoices/${id}`)).statusCode).toBe(404);
    const gone = [customerId, subscriptionId, ...invoices];
    expect(await count(`SELECT count(*) AS n FROM outbox_events WHERE object_id = ANY($1) OR (object_id = $2 AND event_type <> 'test_clock.deleted')`, [gone, clockId])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM usage_events WHERE customer_ref = ANY($1)`, [[customerId, 'clocked-alias']])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM documents WHERE object_id = ANY($1)`, [invoices])).toBe(0);
    // the tenant's other customer keeps everything
    expect((await h.request('GET', `/api/v1/subscriptions/${other.subscriptionId}`)).statusCode).toBe(200);
    expect(await count(`SELECT count(*) AS n FROM usage_events WHERE customer_ref = $1`, [other.customerId])).toBe(1);
    // the usage event id is free again
    const reused = await h.request('POST', '/api/v1/events', { body: { event_id: 'del-1', code: 'api_call', customer_id: other.customerId, timestamp: h.clock.now().toISOString() } });
    expect(reused.statusCode, reused.body).toBe(201);
  });
});
