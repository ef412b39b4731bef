import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { loadPlanVersionSnapshot, loadTrialSettings, resolvePublishedVersionId } from '../../src/modules/plans/index.js';

const harness = useHarness();

interface Catalog {
  familyId: string;
  rateProductId: string;
  seatProductId: string;
  usageProductId: string;
  metricId: string;
}

let counter = 0;

/** A product family with a RATE, a SLOT and a USAGE (TIERED) product bound to a SUM metric. */
async function catalog(h: Harness, key = h.tenant.apiKey): Promise<Catalog> {
  counter += 1;
  const post = async (url: string, body: unknown) => {
    const res = await h.request('POST', url, { body, key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const family = await post('/api/v1/product_families', { name: `Family ${counter}` });
  const metric = await post('/api/v1/metrics', { name: 'Storage', code: `storage_${counter}`, aggregation_type: 'SUM', aggregation_key: 'gb', product_family_id: family.id });
  const rate = await post('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const seat = await post('/api/v1/products', { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'SLOT', slot_unit_name: 'seat' } });
  const usage = await post('/api/v1/products', { name: 'Storage', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'TIERED' } });
  return { familyId: family.id, rateProductId: rate.id, seatProductId: seat.id, usageProductId: usage.id, metricId: metric.id };
}

function planBody(c: Catalog, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Pro',
    currency: 'EUR',
    product_family_id: c.familyId,
    components: [{ name: 'Platform fee', product_id: c.rateProductId, fee: { rates: [{ price: '49.00' }] } }],
    ...overrides,
  };
}

async function createPlan(h: Harness, c: Catalog, overrides: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/api/v1/plans', { body: planBody(c, overrides) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function eventsOf(h: Harness, objectId: string) {
  const rows = await h.db.pool.query(`SELECT event_type, payload FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [objectId]);
  return rows.rows as { event_type: string; payload: Record<string, unknown> }[];
}

describe('plan creation', () => {
  it('creates a draft by default with the spec body and answers the spec Plan', async () => {
    const h = harness();
    const c = await catalog(h);
    const res = await h.request('POST', '/api/v1/plans', { body: planBody(c, { description: 'For teams' }) });
    expect(res.statusCode, res.body).toBe(201);
    const plan = res.json();
    expect(plan.id).toMatch(/^plan_[0-9A-Z]{26}$/);
    expect(plan.version_id).toMatch(/^plv_[0-9A-Z]{26}$/);
    expect(plan).toMatchObject({
      name: 'Pro',
      description: 'For teams',
      currency: 'EUR',
      plan_type: 'STANDARD',
      status: 'DRAFT',
      version: 1,
      is_draft: true,
      net_terms: 0,
      billing_cycles: null,
      period_start_day: null,
      tax_inclusive: false,
      self_service_rank: null,
      created_at: h.clock.now().toISOString(),
      product_family: { id: c.familyId, name: expect.stringMatching(/^Family /) },
      available_parameters: { billing_periods: {}, capacity_thresholds: {}, slot_components: [] },
      entitlements: [],
      trial: null,
      minimum_commitment: null,
    });
    expect(plan.price_components).toEqual([
      { id: expect.stringMatching(/^price_[0-9A-Z]{26}$/), name: 'Platform fee', product_id: c.rateProductId, fee: { type: 'RATE', rates: [{ term: 'MONTHLY', price: '49.00' }] } },
    ]);
    expect((await eventsOf(h, plan.id)).map((e) => e.event_type)).toEqual(['plan.created']);
  });

  it('publishes immediately with status ACTIVE and writes created then published events', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, {
      status: 'ACTIVE',
      plan_type: 'CUSTOM',
      billing: { net_terms: 30, billing_cycles: 12, period_start_day: 1 },
      tax_inclusive: true,
      self_service_rank: 2,
      trial: { duration_days: 14, is_free: true },
      minimum_commitment: { amount: '100.00', scope: { kind: 'invoice' } },
    });
    expect(plan).toMatchObject({
      status: 'ACTIVE',
      plan_type: 'CUSTOM',
      is_draft: false,
      net_terms: 30,
      billing_cycles: 12,
      period_start_day: 1,
      tax_inclusive: true,
      self_service_rank: 2,
      trial: { duration_days: 14, is_free: true, trialing_plan_id: null },
      minimum_commitment: { amount: '100.00', scope: { kind: 'invoice' } },
    });
    const events = await eventsOf(h, plan.id);
    expect(events.map((e) => e.event_type)).toEqual(['plan.created', 'plan.published']);
    expect(events[1]!.payload).toEqual({
      plan_id: plan.id,
      name: 'Pro',
      description: null,
      plan_type: 'CUSTOM',
      status: 'ACTIVE',
      currency: 'EUR',
      version: 1,
      custom_properties: {},
      created_at: h.clock.now().toISOString(),
    });
  });

  it.each([
    ['INACTIVE', ['plan.created', 'plan.published'], 'plan is inactive'],
    ['ARCHIVED', ['plan.created', 'plan.published', 'plan.archived'], 'plan is archived'],
  ] as const)('accepts status %s: version 1 is published, the plan is in that state and not offered for new subscriptions', async (status, events, refusal) => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, { status });
    expect(plan).toMatchObject({ status, version: 1, is_draft: false });
    const read = (await h.request('GET', `/api/v1/plans/${plan.id}`)).json();
    expect(read).toMatchObject({ status, version: 1, version_id: plan.version_id, is_draft: false });
    expect((await h.request('GET', `/api/v1/plans/${plan.id}?version=draft`)).statusCode).toBe(404);
    const listed = (await h.request('GET', `/api/v1/plans?product_family_id=${c.familyId}&status=${status}`)).json().data;
    expect(listed.map((p: { id: string }) => p.id)).toEqual([plan.id]);
    const recorded = await eventsOf(h, plan.id);
    expect(recorded.map((e) => e.event_type)).toEqual(events);
    expect(recorded.map((e) => e.payload.status)).toEqual(status === 'INACTIVE' ? ['INACTIVE', 'INACTIVE'] : ['ARCHIVED', 'ACTIVE', 'ARCHIVED']);

    const customer = await h.request('POST', '/api/v1/customers', { body: { name: `Buyer of ${status}`, currency: 'EUR' } });
    expect(customer.statusCode, customer.body).toBe(201);
    const subscribe = () => h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.json().id, plan_version_id: plan.version_id, start_date: '2026-03-15' } });
    const refused = await subscribe();
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().message).toContain(`plan_version_id: the ${refusal}`);

    // Out of that state: an INACTIVE plan by a PUT that publishes (version 2), an ARCHIVED one by unarchiving (version 1, published at creation).
    if (status === 'INACTIVE') {
      const replaced = await h.request('PUT', `/api/v1/plans/${plan.id}`, { body: planBody(c, { status: 'ACTIVE' }) });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expect(replaced.json()).toMatchObject({ status: 'ACTIVE', version: 2, is_draft: false });
      const onNew = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.json().id, plan_id: plan.id, start_date: '2026-03-15' } });
      expect(onNew.statusCode, onNew.body).toBe(201);
    } else {
      const restored = await h.request('POST', `/api/v1/plans/${plan.id}/unarchive`);
      expect(restored.json()).toEqual({ message: 'plan unarchived; its status is ACTIVE' });
      expect((await subscribe()).statusCode).toBe(201);
    }
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const h = harness();
    const c = await catalog(h);
    const cases: [Record<string, unknown>, string][] = [
      [{ components: [{ name: 'x', product_id: c.rateProductId, fee: { rates: [{ price: 49 }] } }] }, 'components[0].fee.rates[0].price must be a decimal string such as "49.00", not a JSON number'],
      [{ components: [{ name: 'x', product_id: c.rateProductId, fee: { rates: [{ price: '-1' }] } }] }, 'components[0].fee.rates[0].price must be a non-negative decimal string'],
      [{ components: [{ name: 'x', product_id: c.rateProductId, fee: { rates: [{ price: '1e3' }] } }] }, 'components[0].fee.rates[0].price'],
      [{ components: [{ name: 'x', product_id: c.rateProductId, fee: { rates: [{ price: '1', term: 'MONTHLY' }, { price: '2' }] } }] }, 'components[0].fee.rates[1].term MONTHLY is given twice'],
      [{ components: [{ name: 'x', product_id: c.rateProductId, fee: { type: 'ONE_TIME', unit_price: '1' } }] }, 'components[0].fee.type is ONE_TIME but the product\'s fee type is RATE'],
      [{ components: [{ name: 'x', product_id: 'prd_nope', fee: { rates: [{ price: '1' }] } }] }, "components[0].product_id 'prd_nope' is not a product of this tenant"],
      [{ currency: 'eur' }, 'currency'],
      [{ product_family_id: 'pf_nope' }, "product_family_id 'pf_nope'"],
      [{ status: 'PAUSED' }, 'status'],
      [{ plan_type: 'FREE' }, 'components[0].fee holds the price "49.00" but a FREE plan may only have zero prices'],
      [{ minimum_commitment: { amount: '10.001' } }, 'minimum_commitment.amount has more than 2 decimals for EUR'],
      [{ trial: { duration_days: 7, is_free: true, trialing_plan_id: 'plan_nope' } }, "trial.trialing_plan_id 'plan_nope'"],
      [{ add_ons: [{ add_on_id: 'add_nope' }] }, "add_ons[0].add_on_id 'add_nope'"],
      [{ entitlements: [{ feature_id: 'feat_nope', value: { enabled: true } }] }, "entitlements[0].feature_id 'feat_nope'"],
    ];
    for (const [overrides, message] of cases) {
      const res = await h.request('POST', '/api/v1/plans', { body: planBody(c, overrides) });
      expect(res.statusCode, JSON.stringify(overrides)).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
      expect(res.json().message, JSON.stringify(overrides)).toContain(message);
    }
    const missing = await h.request('POST', '/api/v1/plans', { body: { name: 'x', currency: 'EUR', product_family_id: c.familyId } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain('components is required');
  });

  it('refuses another tenant\'s family and products as unknown', async () => {
    const h = harness();
    const c = await catalog(h);
    const res = await h.request('POST', '/api/v1/plans', { key: h.other.apiKey, body: planBody(c) });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('product_family_id');
  });
});

describe('plan versions', () => {
  it('changes a draft in place, publishes it, then gives replacements new versions', async () => {
    const h = harness();
    const c = await catalog(h);
    const draft = await createPlan(h, c);
    const replaced = await h.request('PUT', `/api/v1/plans/${draft.id}`, {
      body: { name: 'Pro 2', currency: 'EUR', components: [{ name: 'Platform fee', product_id: c.rateProductId, fee: { rates: [{ price: '59.00' }] } }] },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ name: 'Pro 2', status: 'DRAFT', version: 1, version_id: draft.version_id, is_draft: true });
    expect(replaced.json().price_components[0].fee.rates[0].price).toBe('59.00');

    const published = await h.request('POST', `/api/v1/plans/${draft.id}/publish`);
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ status: 'ACTIVE', version: 1, version_id: draft.version_id, is_draft: false });
    const again = await h.request('POST', `/api/v1/plans/${draft.id}/publish`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', message: 'plan has no draft version to publish' });

    h.clock.advance(60_000);
    const v2 = (await h.request('PUT', `/api/v1/plans/${draft.id}`, {
      body: { name: 'Pro 2', currency: 'EUR', components: [{ name: 'Platform fee', product_id: c.rateProductId, fee: { rates: [{ price: '69.00' }] } }] },
    })).json();
    expect(v2).toMatchObject({ status: 'ACTIVE', version: 2, is_draft: false });
    expect(v2.version_id).not.toBe(draft.version_id);

    const v3 = (await h.request('PUT', `/api/v1/plans/${draft.id}`, {
      body: { name: 'Pro 2', currency: 'EUR', status: 'DRAFT', components: [{ name: 'Platform fee', product_id: c.rateProductId, fee: { rates: [{ price: '79.00' }] } }] },
    })).json();
    expect(v3).toMatchObject({ status: 'ACTIVE', version: 3, is_draft: true });

    // the default view is the published version; ?version= picks a draft or a number
    const current = (await h.request('GET', `/api/v1/plans/${draft.id}`)).json();
    expect(current).toMatchObject({ version: 2, version_id: v2.version_id });
    expect(current.price_components[0].fee.rates[0].price).toBe('69.00');
    expect((await h.request('GET', `/api/v1/plans/${draft.id}?version=draft`)).json().version).toBe(3);
    const first = (await h.request('GET', `/api/v1/plans/${draft.id}?version=1`)).json();
    expect(first.price_components[0].fee.rates[0].price).toBe('59.00');
    expect((await h.request('GET', `/api/v1/plans/${draft.id}?version=9`)).statusCode).toBe(404);
    expect((await h.request('GET', `/api/v1/plans/${draft.id}?version=latest`)).statusCode).toBe(400);
    // past PostgreSQL's integer: a 400 naming the parameter, not the database's out-of-range 500
    const tooLarge = await h.request('GET', `/api/v1/plans/${draft.id}?version=2147483648`);
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json().message).toContain('version must be');
    expect((await h.request('GET', `/api/v1/plans/${draft.id}?version=2147483647`)).statusCode).toBe(404);

    const versions = (await h.request('GET', `/api/v1/plans/${draft.id}/versions`)).json();
    expect(versions.data.map((v: { version: number; is_draft: boolean }) => [v.version, v.is_draft])).toEqual([[3, true], [2, false], [1, false]]);
    expect(versions.pagination_meta).toEqual({ page: 0, per_page: 10, total_items: 3, total_pages: 1 });

    expect((await eventsOf(h, draft.id)).map((e) => e.event_type)).toEqual(['plan.created', 'plan.published', 'plan.published']);
  });

  it('patches metadata only', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, { status: 'ACTIVE' });
    const patched = await h.request('PATCH', `/api/v1/plans/${plan.id}`, { body: { name: 'Renamed', description: 'new', self_service_rank: 1 } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Renamed', description: 'new', self_service_rank: 1, version: 1, version_id: plan.version_id });
    const pricing = await h.request('PATCH', `/api/v1/plans/${plan.id}`, { body: { components: [] } });
    expect(pricing.statusCode).toBe(400);
    expect(pricing.json().message).toContain('components is not a known field');
  });

  it('archives and unarchives, answering unarchive as {message}', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, { status: 'ACTIVE' });
    expect((await h.request('POST', `/api/v1/plans/${plan.id}/archive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/plans/${plan.id}`)).json().status).toBe('ARCHIVED');
    const replace = await h.request('PUT', `/api/v1/plans/${plan.id}`, { body: planBody(c) });
    expect(replace.statusCode).toBe(409);
    const restored = await h.request('POST', `/api/v1/plans/${plan.id}/unarchive`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({ message: 'plan unarchived; its status is ACTIVE' });
    expect((await h.request('GET', `/api/v1/plans/${plan.id}`)).json().status).toBe('ACTIVE');
    const twice = await h.request('POST', `/api/v1/plans/${plan.id}/unarchive`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({ message: 'plan is not archived' });
    const missing = await h.request('POST', '/api/v1/plans/plan_nope/unarchive');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'plan not found' });
    expect((await eventsOf(h, plan.id)).map((e) => e.event_type)).toEqual(['plan.created', 'plan.published', 'plan.archived']);
  });
});

describe('plan list', () => {
  it('filters by family, status, type and search, sorts and pages', async () => {
    const h = harness();
    const c = await catalog(h);
    const made = [];
    for (const [name, status, plan_type] of [['Alpha', 'ACTIVE', 'STANDARD'], ['Bravo', 'DRAFT', 'STANDARD'], ['Charlie', 'ACTIVE', 'CUSTOM']] as const) {
      h.clock.advance(1000);
      made.push(await createPlan(h, c, { name, status, plan_type }));
    }
    const base = `/api/v1/plans?product_family_id=${c.familyId}`;
    const all = (await h.request('GET', base)).json();
    expect(all.data.map((p: { name: string }) => p.name)).toEqual(['Charlie', 'Bravo', 'Alpha']);
    expect(all.data[0].price_components).toHaveLength(1);
    expect((await h.request('GET', `${base}&status=ACTIVE`)).json().data.map((p: { name: string }) => p.name)).toEqual(['Charlie', 'Alpha']);
    expect((await h.request('GET', `${base}&status=ACTIVE&status=DRAFT&plan_type=STANDARD&order_by=name.asc`)).json().data.map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Bravo']);
    expect((await h.request('GET', `${base}&search=rav`)).json().data.map((p: { name: string }) => p.name)).toEqual(['Bravo']);
    const page1 = (await h.request('GET', `${base}&per_page=2&page=1&order_by=name.asc`)).json();
    expect(page1.data.map((p: { name: string }) => p.name)).toEqual(['Charlie']);
    expect(page1.pagination_meta).toEqual({ page: 1, per_page: 2, total_items: 3, total_pages: 2 });
    for (const query of ['order_by=price.asc', 'per_page=0', 'status=GONE']) {
      const res = await h.request('GET', `/api/v1/plans?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
    }
    expect((await h.request('GET', base, { key: h.other.apiKey })).json().data).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it('answers 404 for another tenant\'s plan on every operation', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c);
    const key = h.other.apiKey;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/plans/${plan.id}`],
      ['PUT', `/api/v1/plans/${plan.id}`, planBody(c)],
      ['PATCH', `/api/v1/plans/${plan.id}`, { name: 'x' }],
      ['POST', `/api/v1/plans/${plan.id}/publish`],
      ['POST', `/api/v1/plans/${plan.id}/archive`],
      ['POST', `/api/v1/plans/${plan.id}/unarchive`],
      ['GET', `/api/v1/plans/${plan.id}/versions`],
      ['GET', `/api/v1/plan-versions/${plan.version_id}/entitlements`],
    ];
    for (const [method, url, body] of calls) {
      const res = await h.request(method as 'GET', url, { key, body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });
});

describe('components, entitlements and add-ons on versions', () => {
  it('prices every fee type and lists what a subscription must choose', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, {
      components: [
        { name: 'Platform', product_id: c.rateProductId, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }, { term: 'ANNUAL', price: '490.00' }] } },
        { name: 'Seats', product_id: c.seatProductId, fee: { rates: [{ price: '10.00' }], minimum_count: 1, quota: 100 } },
        { name: 'Storage', product_id: c.usageProductId, fee: { pricing: { tiers: [{ first_unit: 0, rate: '0' }, { first_unit: 100, rate: '0.10', flat_fee: '1.00' }] } } },
      ],
    });
    const [platform, seats, storage] = plan.price_components;
    expect(seats.fee).toEqual({ type: 'SLOT', rates: [{ term: 'MONTHLY', price: '10.00' }], slot_unit_name: 'seat', minimum_count: 1, quota: 100, upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' });
    expect(storage.fee).toEqual({
      type: 'USAGE',
      metric_id: c.metricId,
      cadence: 'MONTHLY',
      pricing: { type: 'TIERED', block_size: null, tiers: [{ first_unit: 0, rate: '0', flat_fee: null, flat_cap: null }, { first_unit: 100, rate: '0.10', flat_fee: '1.00', flat_cap: null }] },
    });
    expect(plan.available_parameters).toEqual({ billing_periods: { [platform.id]: ['MONTHLY', 'ANNUAL'] }, capacity_thresholds: {}, slot_components: [seats.id] });

    const badTiers = await h.request('POST', '/api/v1/plans', {
      body: planBody(c, { components: [{ name: 'Storage', product_id: c.usageProductId, fee: { pricing: { tiers: [{ first_unit: 10, rate: '1' }] } } }] }),
    });
    expect(badTiers.statusCode).toBe(400);
    expect(badTiers.json().message).toBe('components[0].fee.pricing.tiers[0].first_unit must be 0: the first tier starts at unit 0');
    const otherMetric = await h.request('POST', '/api/v1/plans', {
      body: planBody(c, { components: [{ name: 'Storage', product_id: c.usageProductId, fee: { metric_id: 'bm_other', pricing: { tiers: [{ first_unit: 0, rate: '1' }] } } }] }),
    });
    expect(otherMetric.json().message).toBe(`components[0].fee.metric_id must be the product's metric ${c.metricId}`);
  });

  it('attaches entitlements and add-ons to the version the call produces, carrying them over when omitted', async () => {
    const h = harness();
    const c = await catalog(h);
    const post = async (url: string, body: unknown) => (await h.request('POST', url, { body })).json();
    const sso = await post('/api/v1/features', { code: `sso_plan_${counter}`, name: 'SSO', feature_type: { type: 'BOOLEAN' } });
    const api = await post('/api/v1/features', { code: `api_plan_${counter}`, name: 'API calls', feature_type: { type: 'METERED', metric_id: c.metricId } });
    const addOn = await post('/api/v1/addons', { name: 'Priority', product_id: c.rateProductId, price: { currency: 'EUR', fee: { rates: [{ price: '5' }] } } });
    const plan = await createPlan(h, c, {
      status: 'ACTIVE',
      entitlements: [
        { feature_id: sso.id, value: { enabled: true } },
        { feature_id: api.id, value: { enabled: true, limit: '1000', reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 1 } } },
      ],
      add_ons: [{ add_on_id: addOn.id, max_instances: 3 }],
    });
    expect(plan.entitlements.map((e: { feature_id: string; value: unknown }) => [e.feature_id, e.value])).toEqual([
      [sso.id, { type: 'BOOLEAN', enabled: true }],
      [api.id, { type: 'METERED', enabled: true, limit: '1000', reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 1 } }],
    ]);
    expect(plan.add_ons).toEqual([{ add_on_id: addOn.id, price_id: null, max_instances: 3, self_serviceable: null }]);
    const resolved = (await h.request('GET', `/api/v1/plan-versions/${plan.version_id}/entitlements`)).json();
    expect(resolved.data).toEqual([
      { feature: { id: sso.id, code: sso.code, name: 'SSO', product: null }, value: { type: 'BOOLEAN', enabled: true } },
      { feature: { id: api.id, code: api.code, name: 'API calls', product: null }, value: { type: 'METERED', enabled: true, limit: '1000', reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 1 }, metric_id: c.metricId } },
    ]);

    // a replace without entitlements/add_ons copies them to the new version; the old version keeps its own
    const v2 = (await h.request('PUT', `/api/v1/plans/${plan.id}`, { body: { name: 'Pro', currency: 'EUR', components: planBody(c).components } })).json();
    expect(v2.version).toBe(2);
    expect(v2.entitlements.map((e: { feature_id: string }) => e.feature_id)).toEqual([sso.id, api.id]);
    expect(v2.add_ons).toEqual(plan.add_ons);
    const v3 = (await h.request('PUT', `/api/v1/plans/${plan.id}`, {
      body: { name: 'Pro', currency: 'EUR', components: planBody(c).components, entitlements: [{ feature_id: sso.id, value: { enabled: false } }], add_ons: [] },
    })).json();
    expect(v3.entitlements.map((e: { value: unknown }) => e.value)).toEqual([{ type: 'BOOLEAN', enabled: false }]);
    expect(v3.add_ons).toEqual([]);
    expect((await h.request('GET', `/api/v1/plan-versions/${plan.version_id}/entitlements`)).json().data).toHaveLength(2);
    expect((await h.request('GET', '/api/v1/plan-versions/plv_nope/entitlements')).statusCode).toBe(404);

    const bad = await h.request('PUT', `/api/v1/plans/${plan.id}`, {
      body: { name: 'Pro', currency: 'EUR', components: planBody(c).components, entitlements: [{ feature_id: sso.id, value: { enabled: true } }, { feature_id: sso.id, value: { enabled: true } }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe(`entitlements[1].feature_id ${sso.id} is entitled twice`);
  });

  it('keeps trial settings with a trialing plan of the same tenant', async () => {
    const h = harness();
    const c = await catalog(h);
    const premium = await createPlan(h, c, { name: 'Premium', status: 'ACTIVE' });
    const basic = await createPlan(h, c, { name: 'Basic', status: 'ACTIVE', trial: { duration_days: 30, is_free: false, trialing_plan_id: premium.id } });
    expect(basic.trial).toEqual({ duration_days: 30, is_free: false, trialing_plan_id: premium.id });
    const self = await h.request('PUT', `/api/v1/plans/${basic.id}`, { body: planBody(c, { name: 'Basic', trial: { duration_days: 1, is_free: true, trialing_plan_id: basic.id } }) });
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toBe('trial.trialing_plan_id must be another plan');
    const negative = await h.request('POST', '/api/v1/plans', { body: planBody(c, { trial: { duration_days: -1, is_free: true } }) });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().message).toContain('trial.duration_days');
  });
});

describe('the interface for subscriptions and invoicing', () => {
  it('loads a version snapshot, resolves the published version and the trial', async () => {
    const h = harness();
    const c = await catalog(h);
    const plan = await createPlan(h, c, { status: 'ACTIVE', trial: { duration_days: 7, is_free: true }, billing: { net_terms: 15 } });
    const pool = h.db.pool;
    expect(await resolvePublishedVersionId(pool, h.tenant.id, plan.id)).toBe(plan.version_id);
    expect(await resolvePublishedVersionId(pool, h.other.id, plan.id)).toBeUndefined();
    const snapshot = await loadPlanVersionSnapshot(pool, h.tenant.id, plan.version_id);
    expect(snapshot).toEqual({
      plan: { id: plan.id, name: 'Pro', plan_type: 'STANDARD', status: 'ACTIVE', product_family_id: c.familyId },
      plan_version_id: plan.version_id,
      version: 1,
      is_draft: false,
      currency: 'EUR',
      net_terms: 15,
      billing_cycles: null,
      period_start_day: null,
      tax_inclusive: false,
      trial: { duration_days: 7, is_free: true, trialing_plan_id: null },
      minimum_commitment: null,
      usage_thresholds: [],
      components: [{ id: plan.price_components[0].id, name: 'Platform fee', product_id: c.rateProductId, fee: { type: 'RATE', rates: [{ term: 'MONTHLY', price: '49.00' }] } }],
      add_ons: [],
      entitlements: [],
    });
    expect(await loadPlanVersionSnapshot(pool, h.other.id, plan.version_id)).toBeUndefined();
    expect(await loadTrialSettings(pool, h.tenant.id, plan.version_id)).toEqual({ duration_days: 7, is_free: true, trialing_plan_id: null });
    const draft = await createPlan(h, c);
    expect(await resolvePublishedVersionId(pool, h.tenant.id, draft.id)).toBeUndefined();
    await h.request('POST', `/api/v1/plans/${plan.id}/archive`);
    expect(await resolvePublishedVersionId(pool, h.tenant.id, plan.id)).toBeUndefined();
  });
});
