import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { grantPlanEntitlements, offerAddOn, seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();
let seq = 0;

async function post(h: Harness, url: string, body: Record<string, unknown>) {
  const res = await h.request('POST', url, { body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Features: api (metered, default 100/billing cycle), audit (default on), export (no default), sso (default off). */
async function catalog(h: Harness) {
  seq += 1;
  const family = await post(h, '/api/v1/product_families', { name: `Ent ${seq}` });
  const metricCode = `calls_${seq}`;
  const metric = await post(h, '/api/v1/metrics', { name: 'Calls', code: metricCode, aggregation_type: 'COUNT', product_family_id: family.id });
  const feature = (code: string, body: Record<string, unknown>) => post(h, '/api/v1/features', { code: `${code}-${seq}`, name: code.toUpperCase(), ...body });
  const api = await feature('api', { feature_type: { type: 'METERED', metric_id: metric.id }, entitlement: { value: { limit: '100', reset_period: { type: 'BILLING_CYCLE' } } } });
  const audit = await feature('audit', { feature_type: { type: 'BOOLEAN' }, entitlement: { value: { enabled: true } } });
  const exporter = await feature('export', { feature_type: { type: 'BOOLEAN' } });
  const sso = await feature('sso', { feature_type: { type: 'BOOLEAN' }, entitlement: { value: { enabled: false } } });
  const product = await post(h, '/api/v1/products', { name: 'Support', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  return { family, metric, metricCode, api, audit, exporter, sso, product };
}

async function setup() {
  const h = harness();
  h.clock.set('2026-03-15T12:00:00.000Z');
  const c = await catalog(h);
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  await grantPlanEntitlements(h, h.tenant.id, plan.versionId, [
    { featureId: c.sso.id, value: { type: 'BOOLEAN', enabled: true } },
    { featureId: c.api.id, value: { type: 'METERED', enabled: true, limit: '1000', reset_period: { type: 'BILLING_CYCLE' } } },
  ]);
  const addOn = await post(h, '/api/v1/addons', {
    name: 'Power pack', product_id: c.product.id, price: { currency: 'EUR', fee: { rates: [{ term: 'MONTHLY', price: '9.00' }] } },
    entitlements: [{ feature_id: c.exporter.id, value: { enabled: true } }, { feature_id: c.api.id, value: { limit: '5000', reset_period: { type: 'BILLING_CYCLE' } } }],
  });
  await offerAddOn(h, h.tenant.id, plan.versionId, addOn.id);
  const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `ent-${seq}` });
  return { h, c, plan, addOn, customer };
}

const names = (data: { feature: { code: string }; value: unknown }[]) => Object.fromEntries(data.map((e) => [e.feature.code.replace(/-\d+$/, ''), e.value]));

describe('effective entitlements', () => {
  it('resolves feature defaults < plan < add-ons < overrides, with metered consumption from usage', async () => {
    const { h, c, plan, addOn, customer } = await setup();
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01', add_ons: [{ add_on_id: addOn.id }] });
    const ingest = await h.request('POST', '/api/v1/events/ingest', {
      body: {
        allow_backfilling: true,
        events: ['2026-03-02T10:00:00Z', '2026-03-10T10:00:00Z', '2026-03-14T10:00:00Z', '2026-02-20T10:00:00Z'].map((timestamp, i) => ({ event_id: `ev-${seq}-${i}`, code: c.metricCode, customer_id: customer.id, timestamp, properties: {} })),
      },
    });
    expect(ingest.statusCode, ingest.body).toBe(200);

    const res = await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data[0]).toEqual({
      feature: { id: c.api.id, code: c.api.code, name: 'API', product: null },
      value: {
        type: 'METERED',
        spec: { enabled: true, limit: '5000', metric_id: c.metric.id, reset_period: { type: 'BILLING_CYCLE' } },
        // February's event is outside the billing cycle [2026-03-01, 2026-04-01).
        usage: { consumed: '3', remaining: '4997', reset_at: '2026-04-01T00:00:00.000Z' },
      },
    });
    expect(names(res.json().data)).toMatchObject({
      audit: { type: 'BOOLEAN', enabled: true }, // feature default
      export: { type: 'BOOLEAN', enabled: true }, // add-on
      sso: { type: 'BOOLEAN', enabled: true }, // plan beats the default (off)
    });

    const override = await h.request('PUT', `/api/v1/subscriptions/${sub.id}/entitlements/${c.sso.code}`, { body: { value: { enabled: false } } });
    expect(override.statusCode, override.body).toBe(200);
    expect(override.json()).toMatchObject({ id: expect.stringMatching(/^ent_/), feature_id: c.sso.id, value: { type: 'BOOLEAN', enabled: false } });
    const limited = await h.request('PUT', `/api/v1/subscriptions/${sub.id}/entitlements/${c.api.id}`, { body: { value: { limit: '2', reset_period: { type: 'BILLING_CYCLE' } } } });
    expect(limited.statusCode, limited.body).toBe(200);
    const after = names((await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`)).json().data);
    expect(after.sso).toEqual({ type: 'BOOLEAN', enabled: false });
    expect(after.api).toMatchObject({ spec: { limit: '2' }, usage: { consumed: '3', remaining: '0' } });
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [sub.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['subscription.created', 'subscription.entitlements_updated', 'subscription.entitlements_updated']);

    expect((await h.request('DELETE', `/api/v1/subscriptions/${sub.id}/entitlements/${c.sso.id}`)).statusCode).toBe(204);
    expect(names((await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`)).json().data).sso).toEqual({ type: 'BOOLEAN', enabled: true });
    const missing = await h.request('DELETE', `/api/v1/subscriptions/${sub.id}/entitlements/${c.sso.id}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 'NOT_FOUND', message: 'entitlement override not found' });
    const wrongType = await h.request('PUT', `/api/v1/subscriptions/${sub.id}/entitlements/${c.sso.id}`, { body: { value: { type: 'METERED', limit: '1' } } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().message).toBe('value.type must be BOOLEAN: the feature is BOOLEAN');

    // The customer sees the same, by id or alias.
    const byAlias = await h.request('GET', `/api/v1/customers/${customer.alias}/entitlements`);
    expect(byAlias.statusCode).toBe(200);
    expect(names(byAlias.json().data)).toMatchObject({ sso: { enabled: true }, export: { enabled: true }, audit: { enabled: true } });
    expect(names(byAlias.json().data).api).toMatchObject({ spec: { limit: '2' }, usage: { consumed: '3', remaining: '0' } });
  });

  it('uses the trialing plan during a trial and the own plan after it', async () => {
    const { h, c, customer } = await setup();
    const trialing = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    await grantPlanEntitlements(h, h.tenant.id, trialing.versionId, [{ featureId: c.exporter.id, value: { type: 'BOOLEAN', enabled: true } }]);
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, { trialDays: 14, trialIsFree: true, trialingPlanId: trialing.planId });
    await grantPlanEntitlements(h, h.tenant.id, plan.versionId, [{ featureId: c.sso.id, value: { type: 'BOOLEAN', enabled: true } }]);
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-10' });
    expect(sub.status).toBe('TRIAL_ACTIVE');
    const during = names((await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`)).json().data);
    expect(during).toMatchObject({ export: { enabled: true }, sso: { enabled: false }, api: { spec: { limit: '100' } } });
    h.clock.set('2026-03-25T00:00:00.000Z');
    const afterTrial = names((await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`)).json().data);
    expect(afterTrial).toMatchObject({ sso: { enabled: true } });
    expect(afterTrial.export).toBeUndefined();
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('gives a customer without a serving subscription nothing; unknown customers and other tenants get 404 {code, message}', async () => {
    const { h, plan, customer } = await setup();
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/entitlements`)).json()).toEqual({ data: [] });
    await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-05-01' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/entitlements`)).json()).toEqual({ data: [] });
    for (const res of [
      await h.request('GET', '/api/v1/customers/nobody/entitlements'),
      await h.request('GET', `/api/v1/customers/${customer.id}/entitlements`, { key: h.other.apiKey }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'customer not found' });
    }
    const sub = await post(h, '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' });
    for (const res of [
      await h.request('GET', `/api/v1/subscriptions/${sub.id}/entitlements`, { key: h.other.apiKey }),
      await h.request('PUT', `/api/v1/subscriptions/${sub.id}/entitlements/sso`, { key: h.other.apiKey, body: { value: { enabled: true } } }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'subscription not found' });
    }
  });
});
