import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { compose } from '../../src/main.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';
let seq = 0;

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});
afterEach(async () => {
  // every endpoint of the tenant gets every alert event: leave none behind for the next test
  const h = harness();
  const list = await h.request('GET', '/api/v1/webhooks/endpoints?per_page=100');
  for (const endpoint of list.json().data) await h.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`);
});

async function post(h: Harness, url: string, body: Record<string, unknown>, status = 201) {
  const res = await h.request('POST', url, { body });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}

/** A customer subscribed since 2026-03-01 (monthly periods), a COUNT metric, and a webhook endpoint for alert events at `path`. */
async function setup(path: string) {
  const h = harness();
  h.clock.set('2026-03-15T12:00:00.000Z');
  seq += 1;
  const family = await post(h, '/api/v1/product_families', { name: `Alerts ${seq}` });
  const metric = await post(h, '/api/v1/metrics', { name: 'Calls', code: `alert_calls_${seq}`, aggregation_type: 'COUNT', product_family_id: family.id });
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `alerted-${seq}` });
  const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
  await post(h, '/api/v1/webhooks/endpoints', { url: `${baseUrl}${path}`, event_types: ['alert.triggered', 'alert.resolved'] });
  let n = 0;
  const events = (count: number) => Array.from({ length: count }, () => ({ event_id: `alert-${seq}-${(n += 1)}`, code: metric.code, customer_id: customer.alias, timestamp: h.clock.now().toISOString(), properties: {} }));
  return { h, metric, customer, sub, events };
}

async function ingest(h: Harness, events: unknown[]) {
  const res = await h.request('POST', '/api/v1/events/ingest', { body: { events } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().ingested).toBe(events.length);
}

/** Waits until evaluations are done and every queued delivery was attempted. */
async function settle(h: Harness) {
  await h.service.alerts.idle();
  await h.drainJobs();
}

/** A second process on the same database (its own ingestion, alert index and evaluation rounds), closed after `run`. */
async function withSecondProcess(h: Harness, run: (second: Awaited<ReturnType<typeof compose>>) => Promise<void>) {
  const second = await compose({ pool: h.db.pool, clock: h.clock, config: h.config });
  try {
    await run(second);
  } finally {
    await second.app.close();
  }
}

const types = (path: string) => receiver.at(path).map((r) => `${r.json.type} ${r.json.threshold}`);

describe('usage alerts', () => {
  it('fires alert.triggered once when usage crosses a threshold and alert.resolved when a new period starts: exactly two webhooks', async () => {
    const { h, metric, customer, events } = await setup('/cross');
    const created = await post(h, '/api/v1/alerts', { name: 'Calls', kind: 'USAGE_UNITS', customer_id: customer.alias, metric_id: metric.id, thresholds: ['5'] });
    expect(created).toMatchObject({ id: expect.stringMatching(/^alr_/), kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['5'], status: 'ACTIVE' });
    expect(created.state).toEqual([{ threshold: '5', triggered: false, period_start: null, period_end: null, last_value: null, changed_at: null }]);

    await ingest(h, events(4));
    await settle(h);
    expect(types('/cross')).toEqual([]);

    // the fifth event, on its own through the real-time endpoint (the group-commit path)
    const single = await h.request('POST', '/api/v1/events', { body: events(1)[0] });
    expect(single.statusCode, single.body).toBe(201);
    await expect.poll(async () => (await settle(h), types('/cross'))).toEqual(['alert.triggered 5']);
    const triggered = receiver.at('/cross')[0]!.json;
    expect(triggered).toMatchObject({
      type: 'alert.triggered', alert_id: created.id, kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, threshold: '5', value: '5',
      period_start: '2026-03-01T00:00:00.000Z', period_end: '2026-04-01T00:00:00.000Z', reason: 'USAGE_COMMITTED',
    });

    // more usage in the same period crosses nothing new
    await ingest(h, events(3));
    await settle(h);
    expect(types('/cross')).toEqual(['alert.triggered 5']);
    const got = await h.request('GET', `/api/v1/alerts/${created.id}`);
    expect(got.json().state).toEqual([{ threshold: '5', triggered: true, period_start: '2026-03-01T00:00:00.000Z', period_end: '2026-04-01T00:00:00.000Z', last_value: '5', changed_at: '2026-03-15T12:00:00.000Z' }]);

    // a new period starts usage from zero: the period-boundary job resolves it with no new event
    h.clock.set('2026-04-01T00:05:00.000Z');
    expect(await h.service.alerts.resolveEndedPeriods()).toBe(1);
    await expect.poll(async () => (await settle(h), types('/cross'))).toEqual(['alert.triggered 5', 'alert.resolved 5']);
    expect(receiver.at('/cross')[1]!.json).toMatchObject({ type: 'alert.resolved', alert_id: created.id, value: '0', period_start: '2026-03-01T00:00:00.000Z', reason: 'PERIOD_ENDED' });
    // running the job again, and new usage below the threshold, change nothing
    expect(await h.service.alerts.resolveEndedPeriods()).toBe(0);
    await ingest(h, events(2));
    await settle(h);
    expect(types('/cross')).toHaveLength(2);

    const history = await h.request('GET', `/api/v1/alerts/${created.id}/history`);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data.map((e: { transition: string; reason: string; value: string }) => [e.transition, e.reason, e.value])).toEqual([
      ['RESOLVED', 'PERIOD_ENDED', '0'],
      ['TRIGGERED', 'USAGE_COMMITTED', '5'],
    ]);
    expect(history.json().data[1].event_id).toBe(triggered.id);
  });

  it('resolves at the first evaluation of a new period and triggers again when the new period crosses too', async () => {
    const { h, metric, customer, events } = await setup('/rollover');
    const alert = await post(h, '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['2', '10'] });
    await ingest(h, events(3));
    await expect.poll(async () => (await settle(h), types('/rollover'))).toEqual(['alert.triggered 2']);
    h.clock.set('2026-04-02T10:00:00.000Z');
    await ingest(h, events(2));
    await expect.poll(async () => (await settle(h), types('/rollover'))).toEqual(['alert.triggered 2', 'alert.resolved 2', 'alert.triggered 2']);
    const state = (await h.request('GET', `/api/v1/alerts/${alert.id}`)).json().state;
    expect(state.map((s: { threshold: string; triggered: boolean; period_start: string | null }) => [s.threshold, s.triggered, s.period_start])).toEqual([
      ['2', true, '2026-04-01T00:00:00.000Z'],
      ['10', false, null],
    ]);
  });

  it('gives one trigger when batches crossing one threshold race through two processes', async () => {
    const { h, metric, customer, events } = await setup('/race');
    await withSecondProcess(h, async (second) => {
      const alert = await post(h, '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['5'] });
      await settle(h);
      // both processes have measured the alert (0): each crossing batch takes its process's fast lane (a round of its own)
      expect(await second.alerts.evaluate(h.tenant.id, [alert.id])).toBe(0);
      const [a, b] = [events(5), events(5)];
      const results = await Promise.all([
        h.request('POST', '/api/v1/events/ingest', { body: { events: a } }),
        second.app.inject({ method: 'POST', url: '/api/v1/events/ingest', headers: { authorization: `Bearer ${h.tenant.apiKey}` }, payload: { events: b } }),
      ]);
      for (const res of results) expect(res.statusCode, res.body).toBe(200);
      // and direct evaluations racing on the same reading, from both processes, bypassing the rounds
      await Promise.all([h.service.alerts.evaluate(h.tenant.id, [alert.id]), second.alerts.evaluate(h.tenant.id, [alert.id]), h.service.alerts.evaluate(h.tenant.id, [alert.id])]);
      await second.alerts.idle();
      await expect.poll(async () => (await settle(h), types('/race'))).toEqual(['alert.triggered 5']);
      const history = (await h.request('GET', `/api/v1/alerts/${alert.id}/history`)).json();
      expect(history.data.map((e: { transition: string }) => e.transition)).toEqual(['TRIGGERED']);
    });
  });

  it("finds a crossing that two processes make only together, where neither one's own events can reach it, once", async () => {
    const { h, metric, customer, events } = await setup('/together');
    await withSecondProcess(h, async (second) => {
      const alert = await post(h, '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['8'] });
      await settle(h);
      expect(await second.alerts.evaluate(h.tenant.id, [alert.id])).toBe(0);
      // each process measured 0 and is told 5 events: by its own count the alert cannot reach 8,
      // so each holds it back from its rounds; together they stored 10
      await ingest(h, events(5));
      const res = await second.app.inject({ method: 'POST', url: '/api/v1/events/ingest', headers: { authorization: `Bearer ${h.tenant.apiKey}` }, payload: { events: events(5) } });
      expect(res.statusCode, res.body).toBe(200);
      // no further event and no direct evaluation: the held alerts are measured again by both processes
      await Promise.all([h.service.alerts.idle(), second.alerts.idle()]);
      await expect.poll(async () => (await settle(h), types('/together'))).toEqual(['alert.triggered 8']);
      const history = (await h.request('GET', `/api/v1/alerts/${alert.id}/history`)).json();
      expect(history.data.map((e: { transition: string; value: string }) => [e.transition, e.value])).toEqual([['TRIGGERED', '10']]);
    });
  });

  it('fires a SPEND alert on the usage charges the upcoming invoice would bill, on a subscription', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    seq += 1;
    const family = await post(h, '/api/v1/product_families', { name: `Spend ${seq}` });
    const metric = await post(h, '/api/v1/metrics', { name: 'GB', code: `alert_gb_${seq}`, aggregation_type: 'SUM', aggregation_key: 'gb', product_family_id: family.id });
    const rate = await post(h, '/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const usage = await post(h, '/api/v1/products', { name: 'Storage', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } });
    const plan = await post(h, '/api/v1/plans', {
      name: `Spend ${seq}`, currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
      components: [{ name: 'Platform', product_id: rate.id, fee: { rates: [{ price: '10.00' }] } }, { name: 'Storage', product_id: usage.id, fee: { pricing: { rate: '0.50' } } }],
    });
    const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `spender-${seq}` });
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: '2026-03-01' });
    await post(h, '/api/v1/webhooks/endpoints', { url: `${baseUrl}/spend`, event_types: ['alert.triggered', 'alert.resolved'] });
    const alert = await post(h, '/api/v1/alerts', { kind: 'SPEND', customer_id: customer.id, subscription_id: sub.id, thresholds: ['5.00', '50'] });
    expect(alert).toMatchObject({ kind: 'SPEND', subscription_id: sub.id, metric_id: null, thresholds: ['5', '50'] });
    const gb = (id: string, amount: string) => ({ event_id: `spend-${seq}-${id}`, code: metric.code, customer_id: customer.id, timestamp: h.clock.now().toISOString(), properties: { gb: amount } });
    await ingest(h, [gb('1', '9.98')]); // 4.99 EUR
    await settle(h);
    expect(types('/spend')).toEqual([]);
    await ingest(h, [gb('2', '0.02')]); // 5.00 EUR
    await expect.poll(async () => (await settle(h), types('/spend'))).toEqual(['alert.triggered 5']);
    expect(receiver.at('/spend')[0]!.json).toMatchObject({ kind: 'SPEND', subscription_id: sub.id, value: '5', period_start: '2026-03-01T00:00:00.000Z' });
  });

  it('lists, updates thresholds (a new one below the value fires at once) and archives', async () => {
    const { h, metric, customer, events } = await setup('/crud');
    const alert = await post(h, '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['100'] });
    await ingest(h, events(3));
    await settle(h);
    const updated = await h.request('PATCH', `/api/v1/alerts/${alert.id}`, { body: { name: 'Renamed', thresholds: ['3', '100'] } });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Renamed', thresholds: ['3', '100'] });
    await expect.poll(async () => (await settle(h), types('/crud'))).toEqual(['alert.triggered 3']);

    const list = await h.request('GET', `/api/v1/alerts?customer_id=${customer.alias}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.map((a: { id: string }) => a.id)).toEqual([alert.id]);

    const archived = await h.request('DELETE', `/api/v1/alerts/${alert.id}`);
    expect(archived.statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/alerts/${alert.id}`)).json().status).toBe('ARCHIVED');
    await ingest(h, events(200));
    await settle(h);
    expect(types('/crud')).toEqual(['alert.triggered 3']);
    expect((await h.request('PATCH', `/api/v1/alerts/${alert.id}`, { body: { thresholds: ['1'] } })).statusCode).toBe(400);
    expect((await h.request('GET', '/api/v1/alerts/alr_01KKRNW4G0Q841X0CQ0K68EGW9')).statusCode).toBe(404);
    expect((await h.request('GET', `/api/v1/alerts/${alert.id}`, { key: h.other.apiKey })).statusCode).toBe(404);
  });

  it('refuses bad definitions with a 400 naming the field', async () => {
    const { h, metric, customer } = await setup('/bad');
    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await h.request('POST', '/api/v1/alerts', { body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(message);
    };
    await bad({ kind: 'USAGE_UNITS', customer_id: customer.id, thresholds: ['5'] }, /metric_id is required/);
    await bad({ kind: 'SPEND', customer_id: customer.id, metric_id: metric.id, thresholds: ['5'] }, /metric_id must be left out/);
    await bad({ kind: 'USAGE_UNITS', customer_id: 'nobody', metric_id: metric.id, thresholds: ['5'] }, /customer_id 'nobody'/);
    await bad({ kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: ['5', '5.0'] }, /distinct/);
    await bad({ kind: 'SPEND', customer_id: customer.id, thresholds: ['-1'] }, /thresholds\[0\] must be >= 0/);
    await bad({ kind: 'CREDIT_BALANCE', customer_id: customer.id, subscription_id: 'sub_x', thresholds: ['5'] }, /subscription_id must be left out/);
    await bad({ kind: 'USAGE_UNITS', customer_id: customer.id, metric_id: metric.id, thresholds: [] }, /thresholds/);
    const list = await h.request('GET', `/api/v1/alerts?customer_id=${customer.id}`);
    expect(list.json().data).toEqual([]);
  });
});
