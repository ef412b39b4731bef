import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { customersMetricUsage } from '../../src/modules/usage/index.js';
import { foldUsage } from '../scenarios/billing-support.js';
import { grantPlanEntitlements, offerAddOn, seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();
let seq = 0;

async function post(h: Harness, url: string, body: Record<string, unknown>) {
  const res = await h.request('POST', url, { body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A metered feature `api` on a COUNT metric granted by the plan version (limit 5 per billing cycle, policy as given), a customer subscribed since 2026-03-01. */
async function setup(planValue: Record<string, unknown> = { type: 'METERED', enabled: true, limit: '5', reset_period: { type: 'BILLING_CYCLE' } }) {
  const h = harness();
  h.clock.set('2026-03-15T12:00:00.000Z');
  seq += 1;
  const family = await post(h, '/api/v1/product_families', { name: `Checks ${seq}` });
  const metric = await post(h, '/api/v1/metrics', { name: 'Calls', code: `check_calls_${seq}`, aggregation_type: 'COUNT', product_family_id: family.id });
  const api = await post(h, '/api/v1/features', { code: `api-${seq}`, name: 'API', feature_type: { type: 'METERED', metric_id: metric.id } });
  const sso = await post(h, '/api/v1/features', { code: `sso-${seq}`, name: 'SSO', feature_type: { type: 'BOOLEAN' } });
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  await grantPlanEntitlements(h, h.tenant.id, plan.versionId, [{ featureId: api.id, value: planValue }, { featureId: sso.id, value: { type: 'BOOLEAN', enabled: true } }]);
  const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `checked-${seq}` });
  let n = 0;
  const ingest = async (count: number) => {
    const events = Array.from({ length: count }, () => ({ event_id: `chk-${seq}-${(n += 1)}`, code: metric.code, customer_id: customer.alias, timestamp: h.clock.now().toISOString(), properties: {} }));
    const res = await h.request('POST', '/api/v1/events/ingest', { body: { events } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const check = async (feature = api.code) => {
    const res = await h.request('GET', `/api/v1/customers/${customer.alias}/entitlements/${feature}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  return { h, family, metric, api, sso, plan, customer, ingest, check };
}

describe('metered entitlement check', () => {
  it('blocks at the limit under BLOCK (the default), with used, limit and remaining as invoicing counts them', async () => {
    const { h, metric, api, sso, plan, customer, ingest, check } = await setup();
    expect(await check()).toMatchObject({ allowed: false, reason: 'NOT_ENTITLED', source: null, used: null });
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    await ingest(4);
    expect(await check()).toEqual({
      customer_id: customer.id, feature: { id: api.id, code: api.code, name: 'API' }, type: 'METERED', allowed: true, reason: 'WITHIN_LIMIT', source: 'PLAN_VERSION', enabled: true,
      metric_id: metric.id, used: '4', limit: '5', remaining: '1', overage: '0', overage_policy: 'BLOCK', period_start: '2026-03-01T00:00:00.000Z', reset_at: '2026-04-01T00:00:00.000Z',
    });
    await ingest(1);
    expect(await check()).toMatchObject({ allowed: false, reason: 'LIMIT_REACHED', used: '5', remaining: '0', overage: '0', overage_policy: 'BLOCK' });
    // the figure the usage API (the aggregation invoicing bills through) gives for the period
    const usage = await h.request('GET', `/api/v1/usage/customer/${customer.id}?start_date=2026-03-01&end_date=2026-04-01&metric_id=${metric.id}`);
    expect(usage.statusCode, usage.body).toBe(200);
    expect(JSON.stringify(usage.json())).toContain('"5"');
    // a BOOLEAN feature: allowed is enabled
    expect(await check(sso.id)).toMatchObject({ type: 'BOOLEAN', allowed: true, source: 'PLAN_VERSION', used: null, limit: null });
    // a new period starts from zero
    h.clock.set('2026-04-03T00:00:00.000Z');
    expect(await check()).toMatchObject({ allowed: true, used: '0', remaining: '5', period_start: '2026-04-01T00:00:00.000Z', reset_at: '2026-05-01T00:00:00.000Z' });
  });

  it("moves the customer's own due statuses before it answers: a subscription starting today entitles without waiting for the job", async () => {
    const { h, plan, customer, check } = await setup();
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-20' });
    expect(sub.status).toBe('PENDING_ACTIVATION');
    expect(await check()).toMatchObject({ allowed: false, reason: 'NOT_ENTITLED' });
    // no job runs here: the check itself moves the status the clock made due
    h.clock.set('2026-03-20T00:30:00.000Z');
    expect(await check()).toMatchObject({ allowed: true, reason: 'WITHIN_LIMIT', source: 'PLAN_VERSION', period_start: '2026-03-20T00:00:00.000Z' });
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json().status).toBe('ACTIVE');
  });

  it('allows over the limit under ALLOW_AND_BILL and reports the overage', async () => {
    const { h, plan, customer, ingest, check } = await setup({ type: 'METERED', enabled: true, limit: '5', reset_period: { type: 'BILLING_CYCLE' }, overage_policy: 'ALLOW_AND_BILL' });
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    await ingest(5);
    expect(await check()).toMatchObject({ allowed: true, reason: 'OVERAGE_ALLOWED', used: '5', limit: '5', remaining: '0', overage: '0', overage_policy: 'ALLOW_AND_BILL' });
    await ingest(3);
    expect(await check()).toMatchObject({ allowed: true, reason: 'OVERAGE_ALLOWED', used: '8', remaining: '0', overage: '3' });
  });

  it('takes the customer override over the add-on over the plan version, and the policy travels with the value', async () => {
    const { h, api, plan, customer, ingest, check } = await setup({ type: 'METERED', enabled: true, limit: '5', reset_period: { type: 'BILLING_CYCLE' }, overage_policy: 'ALLOW_AND_BILL' });
    const product = await post(h, '/api/v1/products', { name: 'Pack', product_family_id: (await post(h, '/api/v1/product_families', { name: `Pack ${seq}` })).id, fee_structure: { type: 'RATE' } });
    const addOn = await post(h, '/api/v1/addons', {
      name: 'More calls', product_id: product.id, price: { currency: 'EUR', fee: { rates: [{ term: 'MONTHLY', price: '9.00' }] } },
      entitlements: [{ feature_id: api.id, value: { limit: '8', reset_period: { type: 'BILLING_CYCLE' } } }],
    });
    await offerAddOn(h, h.tenant.id, plan.versionId, addOn.id);
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01', add_ons: [{ add_on_id: addOn.id }] });
    await ingest(8);
    // the add-on's value replaces the plan's whole value: its limit, and its policy (unset = BLOCK)
    expect(await check()).toMatchObject({ source: 'ADD_ON', limit: '8', overage_policy: 'BLOCK', allowed: false, reason: 'LIMIT_REACHED' });

    const set = await h.request('PUT', `/api/v1/customers/${customer.alias}/entitlements/${api.code}`, { body: { value: { limit: '10', reset_period: { type: 'BILLING_CYCLE' } } } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ id: expect.stringMatching(/^ent_/), feature_id: api.id, value: { type: 'METERED', enabled: true, limit: '10' } });
    expect(await check()).toMatchObject({ source: 'CUSTOMER_OVERRIDE', limit: '10', remaining: '2', allowed: true });
    // the customer's list shows the same value
    const list = (await h.request('GET', `/api/v1/customers/${customer.id}/entitlements`)).json().data;
    expect(list.find((e: { feature: { id: string } }) => e.feature.id === api.id).value.spec.limit).toBe('10');

    const bad = await h.request('PUT', `/api/v1/customers/${customer.id}/entitlements/${api.code}`, { body: { value: { limit: '10', overage_policy: 'SOMETIMES' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/overage_policy/);

    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}/entitlements/${api.code}`)).statusCode).toBe(204);
    expect(await check()).toMatchObject({ source: 'ADD_ON', limit: '8' });
    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}/entitlements/${api.code}`)).statusCode).toBe(404);
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 AND event_type = 'customer.entitlements_updated'`, [customer.id]);
    expect(events.rows).toHaveLength(2);
  });

  it('reads the window the value resolves to, not the one the last check read (the early usage read is only used when it is the same window)', async () => {
    const { h, api, plan, customer, ingest } = await setup();
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    // by id: the subscriptions are read beside the customer
    const check = async () => {
      const res = await h.request('GET', `/api/v1/customers/${customer.id}/entitlements/${api.code}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    h.clock.set('2026-03-14T12:00:00.000Z');
    await ingest(2);
    h.clock.set('2026-03-15T12:00:00.000Z');
    await ingest(1);
    expect(await check()).toMatchObject({ used: '3', period_start: '2026-03-01T00:00:00.000Z' });
    expect(await check()).toMatchObject({ used: '3' });
    // a customer override with a daily window: the next check counts today only
    const set = await h.request('PUT', `/api/v1/customers/${customer.id}/entitlements/${api.code}`, { body: { value: { limit: '5', reset_period: { type: 'CALENDAR', unit: 'DAY', interval: 1 } } } });
    expect(set.statusCode, set.body).toBe(200);
    expect(await check()).toMatchObject({ source: 'CUSTOMER_OVERRIDE', used: '1', period_start: '2026-03-15T00:00:00.000Z', reset_at: '2026-03-16T00:00:00.000Z' });
    await ingest(1);
    expect(await check()).toMatchObject({ used: '2' });
    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}/entitlements/${api.code}`)).statusCode).toBe(204);
    expect(await check()).toMatchObject({ source: 'PLAN_VERSION', used: '4', period_start: '2026-03-01T00:00:00.000Z' });
    // the next period: the remembered March window is not the resolved one
    h.clock.set('2026-04-02T00:00:00.000Z');
    expect(await check()).toMatchObject({ used: '0', period_start: '2026-04-01T00:00:00.000Z' });
    await ingest(1);
    expect(await check()).toMatchObject({ used: '1' });
  });

  it('reads the usage in the statement that resolves the value once the window was read before: one statement per check', async () => {
    const { h, plan, customer, ingest, check } = await setup();
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    await ingest(3);
    const connections = h.service.plannedOnce.pool;
    const query = connections.query;
    const sent: string[] = [];
    connections.query = ((config: { text: string }, ...rest: unknown[]) => {
      sent.push(config.text);
      return (query as (...args: unknown[]) => unknown).call(connections, config, ...rest);
    }) as typeof query;
    try {
      // the first check resolves the window, then reads it
      expect(await check()).toMatchObject({ used: '3' });
      expect(sent).toHaveLength(2);
      await ingest(1);
      expect(await check()).toMatchObject({ used: '4', remaining: '1' });
      expect(sent).toHaveLength(3);
      expect(sent[2]).toContain('check_usage');
    } finally {
      connections.query = query;
    }
  });

  it("reads again when the metric's definition changed since the last check (the early usage read is of the remembered definition)", async () => {
    const { h, metric, plan, customer, check } = await setup({ type: 'METERED', enabled: true, limit: '100', reset_period: { type: 'BILLING_CYCLE' } });
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    const events = ['eu', 'eu', 'us'].map((region, i) => ({ event_id: `seg-${seq}-${i}`, code: metric.code, customer_id: customer.alias, timestamp: h.clock.now().toISOString(), properties: { region } }));
    const res = await h.request('POST', '/api/v1/events/ingest', { body: { events } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await check()).toMatchObject({ used: '3' });
    expect(await check()).toMatchObject({ used: '3' });
    const patched = await h.request('PATCH', `/api/v1/metrics/${metric.id}`, { body: { segmentation_matrix: { type: 'SINGLE', key: 'region', values: ['eu'] } } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await check()).toMatchObject({ used: '2', limit: '100' });
    expect(await check()).toMatchObject({ used: '2' });
  });

  it("takes a trial's value from the trialing plan's version, and the plan's own after the trial", async () => {
    const { h, api, sso, customer, check } = await setup();
    const trialing = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    await grantPlanEntitlements(h, h.tenant.id, trialing.versionId, [{ featureId: api.id, value: { type: 'METERED', enabled: true, limit: '7', reset_period: { type: 'BILLING_CYCLE' } } }]);
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, { trialDays: 14, trialIsFree: true, trialingPlanId: trialing.planId });
    await grantPlanEntitlements(h, h.tenant.id, plan.versionId, [{ featureId: sso.id, value: { type: 'BOOLEAN', enabled: true } }]);
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-10' });
    expect(sub.status).toBe('TRIAL_ACTIVE');
    expect(await check()).toMatchObject({ allowed: true, reason: 'WITHIN_LIMIT', source: 'PLAN_VERSION', limit: '7' });
    expect(await check(sso.code)).toMatchObject({ allowed: false, reason: 'NOT_ENTITLED' });
    h.clock.set('2026-03-25T00:00:00.000Z');
    expect(await check()).toMatchObject({ allowed: false, reason: 'NOT_ENTITLED' });
    expect(await check(sso.code)).toMatchObject({ allowed: true, source: 'PLAN_VERSION' });
  });

  it('counts events below the rollup watermark (from the rollups) and above it (raw) once each, as the billing aggregation does', async () => {
    const { h, metric, plan, customer, ingest, check } = await setup({ type: 'METERED', enabled: true, limit: '100', reset_period: { type: 'BILLING_CYCLE' } });
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    const tenantKey = `(SELECT key FROM tenants WHERE id = $1)`;
    const folded = async () => Number((await h.db.pool.query(`SELECT coalesce(sum(event_count), 0)::int AS n FROM usage_rollups WHERE tenant_id = $1 AND metric_id = $2`, [h.tenant.id, metric.id])).rows[0].n);
    const aboveWatermark = async () => Number((await h.db.pool.query(
      `SELECT count(*)::int AS n FROM usage_events WHERE tenant_key = ${tenantKey} AND code = $3 AND xid >= (SELECT watermark FROM usage_rollup_state WHERE tenant_id = $1 AND metric_id = $2)`,
      [h.tenant.id, metric.id, metric.code],
    )).rows[0].n);
    for (const at of ['2026-03-02T08:10:00.000Z', '2026-03-09T23:59:59.000Z', '2026-03-15T11:00:00.000Z']) {
      h.clock.set(at);
      await ingest(2);
    }
    await foldUsage(h);
    expect(await folded()).toBe(6);
    // A transaction open elsewhere holds every later fold's watermark below it (the watermark is
    // the oldest running transaction): the next events stay above it, read raw.
    const holder = await h.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      // one event in an hour the rollups already hold, three in new hours
      h.clock.set('2026-03-09T23:30:00.000Z');
      await ingest(1);
      h.clock.set('2026-03-15T12:00:00.000Z');
      await ingest(3);
      await h.service.tasks['usage.rollup']!({ tenant_id: h.tenant.id });
      expect(await folded()).toBe(6);
      expect(await aboveWatermark()).toBe(4);
      const billed = await customersMetricUsage(h.db.pool, h.tenant.id, { customers: [{ key: customer.id, refs: [customer.id, customer.alias!] }], metricId: metric.id, periodStart: new Date('2026-03-01'), periodEnd: new Date('2026-04-01') });
      expect(billed?.byCustomer.get(customer.id)?.totalValue).toBe('10');
      expect(await check()).toMatchObject({ used: '10', remaining: '90', period_start: '2026-03-01T00:00:00.000Z', reset_at: '2026-04-01T00:00:00.000Z' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    // folded at last: the same figure, now all from the rollups
    await foldUsage(h);
    expect(await folded()).toBe(10);
    expect(await check()).toMatchObject({ used: '10' });
  });

  it('answers 404 {code, message} for an unknown customer or feature and another tenant', async () => {
    const { h, api, customer } = await setup();
    for (const [res, message] of [
      [await h.request('GET', `/api/v1/customers/nobody/entitlements/${api.code}`), 'customer not found'],
      [await h.request('GET', `/api/v1/customers/${customer.id}/entitlements/no-such-feature`), 'feature not found'],
      [await h.request('GET', `/api/v1/customers/${customer.id}/entitlements/${api.code}`, { key: h.other.apiKey }), 'customer not found'],
    ] as const) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message });
    }
  });
});
