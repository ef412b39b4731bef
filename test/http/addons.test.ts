import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';

const harness = useHarness();
let counter = 0;

async function post(h: Harness, url: string, body: unknown, key = h.tenant.apiKey) {
  const res = await h.request('POST', url, { body, key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function setup(h: Harness, key = h.tenant.apiKey) {
  counter += 1;
  const family = await post(h, '/api/v1/product_families', { name: `Addons ${counter}` }, key);
  const product = await post(h, '/api/v1/products', { name: 'Support', product_family_id: family.id, fee_structure: { type: 'RATE' } }, key);
  if (key !== h.tenant.apiKey) return { family, product };
  const seats = await post(h, '/api/v1/products', { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'SLOT', slot_unit_name: 'seat' } });
  const sso = await post(h, '/api/v1/features', { code: `sso_${counter}`, name: 'SSO', feature_type: { type: 'BOOLEAN' }, product_id: product.id, entitlement: { value: { enabled: false } } });
  const audit = await post(h, '/api/v1/features', { code: `audit_${counter}`, name: 'Audit log', feature_type: { type: 'BOOLEAN' } });
  return { family, product, seats, sso, audit };
}

const rate = (price: string) => ({ currency: 'EUR', fee: { rates: [{ term: 'MONTHLY', price }] } });

describe('add-ons', () => {
  it('creates with an inline price and entitlements, gets and lists its resolved entitlements', async () => {
    const h = harness();
    const { product, sso } = await setup(h);
    const res = await h.request('POST', '/api/v1/addons', {
      body: { name: 'Premium support', product_id: product.id, price: rate('19.90'), self_serviceable: true, max_instances_per_subscription: 2, entitlements: [{ feature_id: sso.id, value: { enabled: true } }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const addOn = res.json();
    expect(addOn).toMatchObject({
      name: 'Premium support',
      description: null,
      product_id: product.id,
      fee_type: 'RATE',
      currency: 'EUR',
      price: { currency: 'EUR', fee: { type: 'RATE', rates: [{ term: 'MONTHLY', price: '19.90' }] } },
      self_serviceable: true,
      max_instances_per_subscription: 2,
      created_at: h.clock.now().toISOString(),
      archived_at: null,
    });
    expect(addOn.id).toMatch(/^add_[0-9A-Z]{26}$/);
    expect(addOn.price_id).toMatch(/^pri_[0-9A-Z]{26}$/);
    expect(addOn.price.id).toBe(addOn.price_id);
    expect(addOn.entitlements).toEqual([
      { id: expect.stringMatching(/^ent_/), feature_id: sso.id, value: { type: 'BOOLEAN', enabled: true }, created_at: h.clock.now().toISOString(), updated_at: h.clock.now().toISOString() },
    ]);
    expect((await h.request('GET', `/api/v1/addons/${addOn.id}`)).json()).toEqual(addOn);
    const resolved = await h.request('GET', `/api/v1/addons/${addOn.id}/entitlements`);
    expect(resolved.json()).toEqual({ data: [{ feature: { id: sso.id, code: sso.code, name: 'SSO', product: { id: product.id, name: 'Support' } }, value: { type: 'BOOLEAN', enabled: true } }] });

    // a second add-on can reuse the price of the same product
    const reuse = await post(h, '/api/v1/addons', { name: 'Support again', product_id: product.id, price_id: addOn.price_id });
    expect(reuse.price_id).toBe(addOn.price_id);
    const events = await h.db.pool.query(`SELECT event_type, payload FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [addOn.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['addon.created']);
    expect(events.rows[0].payload).toEqual({
      add_on_id: addOn.id,
      name: 'Premium support',
      description: null,
      product_id: product.id,
      price_id: addOn.price_id,
      fee_type: 'RATE',
      self_serviceable: true,
      max_instances_per_subscription: 2,
      created_at: h.clock.now().toISOString(),
    });
  });

  it('validates prices, products and entitlements with 400 naming the field', async () => {
    const h = harness();
    const { product, seats, audit } = await setup(h);
    const other = await post(h, '/api/v1/addons', { name: 'Seats', product_id: seats.id, price: { currency: 'EUR', fee: { rates: [{ price: '5' }] } } });
    expect(other.price.fee).toMatchObject({ type: 'SLOT', slot_unit_name: 'seat', minimum_count: null, quota: null });
    const cases: [Record<string, unknown>, string][] = [
      [{ price: { currency: 'EUR', fee: { rates: [{ price: 10 }] } } }, 'price.fee.rates[0].price must be a decimal string such as "49.00", not a JSON number'],
      [{ price: { currency: 'EUR', fee: { rates: [{ price: '-3' }] } } }, 'price.fee.rates[0].price must be a non-negative decimal string'],
      [{ price: { currency: 'EURO', fee: { rates: [{ price: '3' }] } } }, 'price.currency'],
      [{}, 'price_id or price is required'],
      [{ price_id: other.price_id }, 'is a price of another product'],
      [{ price_id: 'pri_nope' }, "price_id 'pri_nope' is not a price of this tenant"],
      [{ product_id: 'prd_nope', price: rate('1') }, "product_id 'prd_nope'"],
      [{ price: rate('1'), max_instances_per_subscription: 0 }, 'max_instances_per_subscription'],
      // Beyond PostgreSQL's integer: a 400 naming the field, not the database's out-of-range error.
      [{ price: rate('1'), max_instances_per_subscription: 2 ** 31 }, 'max_instances_per_subscription must be <= 2147483647 (body)'],
      [{ price: rate('1'), entitlements: [{ feature_id: audit.id, value: { enabled: true, limit: '5' } }] }, 'entitlements[0].value.limit is not a field of a BOOLEAN entitlement value'],
    ];
    for (const [overrides, message] of cases) {
      const res = await h.request('POST', '/api/v1/addons', { body: { name: 'Bad', product_id: product.id, ...overrides } });
      expect(res.statusCode, JSON.stringify(overrides)).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
      expect(res.json().message, JSON.stringify(overrides)).toContain(message);
    }
  });

  it('updates, archives and unarchives with their events', async () => {
    const h = harness();
    const { product, audit } = await setup(h);
    const addOn = await post(h, '/api/v1/addons', { name: 'Extra', product_id: product.id, price: rate('5.00') });
    h.clock.advance(1000);
    const updated = await h.request('PATCH', `/api/v1/addons/${addOn.id}`, {
      body: { name: 'Extra+', description: 'more', price: rate('7.50'), self_serviceable: true, entitlements: [{ feature_id: audit.id, value: { enabled: true } }] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Extra+', description: 'more', self_serviceable: true, price: { fee: { rates: [{ price: '7.50' }] } } });
    expect(updated.json().price_id).not.toBe(addOn.price_id);
    expect(updated.json().entitlements.map((e: { feature_id: string }) => e.feature_id)).toEqual([audit.id]);
    expect((await h.request('PATCH', `/api/v1/addons/${addOn.id}`, { body: { name: '' } })).statusCode).toBe(400);

    expect((await h.request('POST', `/api/v1/addons/${addOn.id}/archive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/addons/${addOn.id}`)).json().archived_at).toBe(h.clock.now().toISOString());
    expect((await h.request('POST', `/api/v1/addons/${addOn.id}/unarchive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/addons/${addOn.id}`)).json().archived_at).toBeNull();
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [addOn.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['addon.created', 'addon.updated', 'addon.archived']);
  });

  it('lists with the spec query: currency, include_archived, order_by default created_at.desc, paging', async () => {
    const h = harness();
    // the production tenant holds only this test's add-ons
    const key = h.production.apiKey;
    const { product } = await setup(h, key);
    const made = [];
    for (const [name, currency] of [['Bravo', 'EUR'], ['Alpha', 'USD'], ['Charlie', 'EUR']]) {
      h.clock.advance(1000);
      made.push(await post(h, '/api/v1/addons', { name, product_id: product.id, price: { currency, fee: { rates: [{ price: '1' }] } } }, key));
    }
    await h.request('POST', `/api/v1/addons/${made[2].id}/archive`, { key });
    const names = async (query: string) => (await h.request('GET', `/api/v1/addons?${query}`, { key })).json().data.map((a: { name: string }) => a.name);
    expect(await names('search=')).toEqual(['Alpha', 'Bravo']);
    expect(await names('include_archived=true')).toEqual(['Charlie', 'Alpha', 'Bravo']);
    expect(await names('include_archived=true&currency=EUR&order_by=name.asc')).toEqual(['Bravo', 'Charlie']);
    const page = (await h.request('GET', '/api/v1/addons?include_archived=true&per_page=2&page=1&order_by=name.asc', { key })).json();
    expect(page.data.map((a: { name: string }) => a.name)).toEqual(['Charlie']);
    expect(page.pagination_meta).toEqual({ page: 1, per_page: 2, total_items: 3, total_pages: 2 });
    for (const query of ['per_page=101', 'page=-1', 'order_by=price.asc', 'include_archived=maybe']) {
      expect((await h.request('GET', `/api/v1/addons?${query}`, { key })).statusCode, query).toBe(400);
    }
    expect((await h.request('GET', '/api/v1/addons', { key: h.other.apiKey })).json().data).toEqual([]);
  });

  it('answers 404 to another tenant on every operation', async () => {
    const h = harness();
    const { product } = await setup(h);
    const addOn = await post(h, '/api/v1/addons', { name: 'Mine', product_id: product.id, price: rate('1') });
    const key = h.other.apiKey;
    for (const [method, url, body] of [
      ['GET', `/api/v1/addons/${addOn.id}`],
      ['PATCH', `/api/v1/addons/${addOn.id}`, { name: 'x' }],
      ['POST', `/api/v1/addons/${addOn.id}/archive`],
      ['POST', `/api/v1/addons/${addOn.id}/unarchive`],
      ['GET', `/api/v1/addons/${addOn.id}/entitlements`],
      ['GET', `/api/v1/products/${product.id}/entitlements`],
    ] as [string, string, unknown?][]) {
      const res = await h.request(method as 'GET', url, { key, body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const create = await h.request('POST', '/api/v1/addons', { key, body: { name: 'x', product_id: product.id, price: rate('1') } });
    expect(create.statusCode).toBe(400);
  });
});

describe('product entitlements', () => {
  it('lists the default entitlements of the product\'s features', async () => {
    const h = harness();
    const { product, sso } = await setup(h);
    const res = await h.request('GET', `/api/v1/products/${product.id}/entitlements`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [{ feature: { id: sso.id, code: sso.code, name: 'SSO', product: { id: product.id, name: 'Support' } }, value: { type: 'BOOLEAN', enabled: false } }] });
    expect((await h.request('GET', '/api/v1/products/prd_nope/entitlements')).statusCode).toBe(404);
  });
});
