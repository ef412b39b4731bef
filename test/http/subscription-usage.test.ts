import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

async function post(url: string, body: unknown, key?: string) {
  const res = await harness().request('POST', url, { body, key });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

/** A plan with a flat fee and a usage component on a SUM metric, all created through the API. */
let fixtures = 0;
async function subscriptionWithUsage() {
  const n = ++fixtures;
  const family = await post('/api/v1/product_families', { name: 'Storage' });
  const metric = await post('/api/v1/metrics', { name: 'GB stored', code: `gb_stored_${n}`, aggregation_type: 'SUM', aggregation_key: 'gb', product_family_id: family.id });
  const unused = await post('/api/v1/metrics', { name: 'Calls', code: `calls_${n}`, aggregation_type: 'COUNT', product_family_id: family.id });
  const rate = await post('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const usage = await post('/api/v1/products', { name: 'Storage', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } });
  const plan = await post('/api/v1/plans', {
    name: 'Metered', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
    components: [
      { name: 'Platform', product_id: rate.id, fee: { rates: [{ price: '10.00' }] } },
      { name: 'Storage', product_id: usage.id, fee: { pricing: { rate: '0.50' } } },
    ],
  });
  const customer = await post('/api/v1/customers', { name: 'Acme', currency: 'EUR', alias: `acme-${n}` });
  const subscription = await post('/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: '2026-03-01' });
  return { metric, unused, customer, subscription };
}

describe('GET /api/v1/usage/subscription/{subscription_id}', () => {
  it("shows the current period's usage of the metrics the subscription bills, half-open", async () => {
    const h = harness();
    const { metric, unused, customer, subscription } = await subscriptionWithUsage();
    const event = (id: string, timestamp: string, gb: string) => ({ event_id: id, code: 'gb_stored_1', customer_id: 'acme-1', timestamp, properties: { gb } });
    await post('/api/v1/events/ingest', {
      allow_backfilling: true,
      events: [
        event('e1', '2026-02-28T23:59:59Z', '100'), // previous period
        event('e2', '2026-03-01T00:00:00Z', '1.5'), // first instant of the period: counted
        event('e3', '2026-03-14T10:00:00Z', '2.25'),
        { event_id: 'e4', code: 'calls_1', customer_id: customer.id, timestamp: '2026-03-02T00:00:00Z', properties: {} },
      ],
    });
    const res = await h.request('GET', `/api/v1/usage/subscription/${subscription.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.period_start).toBe('2026-03-01');
    expect(body.period_end).toBe('2026-04-01');
    expect(body.usage.map((u: { metric_id: string }) => u.metric_id)).toEqual([metric.id]);
    expect(body.usage.map((u: { metric_id: string }) => u.metric_id)).not.toContain(unused.id);
    expect(body.usage[0].total_value).toBe('3.75');
  });

  it('answers 404 for another tenant', async () => {
    const h = harness();
    const { subscription } = await subscriptionWithUsage();
    const res = await h.request('GET', `/api/v1/usage/subscription/${subscription.id}`, { key: h.other.apiKey });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });
});
