import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

async function createFamily(name = 'Core') {
  const res = await harness().request('POST', '/api/v1/product_families', { body: { name } });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; name: string };
}

describe('product families', () => {
  it('creates, gets by id and alias, and lists with paging', async () => {
    const h = harness();
    const created = await h.request('POST', '/api/v1/product_families', { body: { name: 'Platform', alias: 'platform' } });
    expect(created.statusCode).toBe(201);
    const family = created.json();
    expect(family.id).toMatch(/^pf_[0-9A-Z]{26}$/);
    expect((await h.request('GET', `/api/v1/product_families/${family.id}`)).json()).toEqual({ id: family.id, name: 'Platform' });
    expect((await h.request('GET', '/api/v1/product_families/platform')).json().id).toBe(family.id);
    const list = await h.request('GET', '/api/v1/product_families?per_page=1&order_by=name.asc');
    expect(list.statusCode).toBe(200);
    expect(list.json().pagination_meta).toMatchObject({ page: 0, per_page: 1 });
    expect(list.json().data).toHaveLength(1);
  });

  it('is invisible to another tenant', async () => {
    const h = harness();
    const family = await createFamily('Private');
    const res = await h.request('GET', `/api/v1/product_families/${family.id}`, { key: h.other.apiKey });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  });
});

describe('products', () => {
  it('creates each fee type and validates its structure', async () => {
    const h = harness();
    const family = await createFamily();
    const metric = await h.request('POST', '/api/v1/metrics', { body: { name: 'Calls', code: 'calls', aggregation_type: 'COUNT', product_family_id: family.id } });
    expect(metric.statusCode, metric.body).toBe(201);
    const metricId = metric.json().id as string;
    const structures = [
      { type: 'RATE' },
      { type: 'SLOT', slot_unit_name: 'seat', upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' },
      { type: 'CAPACITY', metric_id: metricId },
      { type: 'USAGE', metric_id: metricId, model: 'TIERED' },
      { type: 'EXTRA_RECURRING', billing_type: 'ARREARS' },
      { type: 'ONE_TIME' },
    ];
    for (const fee_structure of structures) {
      const res = await h.request('POST', '/api/v1/products', { body: { name: `P ${fee_structure.type}`, product_family_id: family.id, fee_structure } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ fee_type: fee_structure.type, fee_structure, catalog: true, archived_at: null });
    }
    const bad = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: family.id, fee_structure: { type: 'USAGE', model: 'PER_UNIT' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('fee_structure.metric_id') });
    const badModel = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metricId, model: 'LINEAR' } } });
    expect(badModel.json().message).toContain('fee_structure.model');
    const unknownMetric = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: 'bm_unknown', model: 'PER_UNIT' } } });
    expect(unknownMetric.statusCode).toBe(400);
    expect(unknownMetric.json().message).toContain('fee_structure.metric_id');
    const otherTenantMetric = await h.request('POST', '/api/v1/products', { key: h.other.apiKey, body: { name: 'x', product_family_id: (await h.request('POST', '/api/v1/product_families', { key: h.other.apiKey, body: { name: 'O' } })).json().id, fee_structure: { type: 'USAGE', metric_id: metricId, model: 'PER_UNIT' } } });
    expect(otherTenantMetric.statusCode).toBe(400);
    const badType = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: family.id, fee_structure: { type: 'WEIRD' } } });
    expect(badType.statusCode).toBe(400);
    expect(badType.json().message).toContain('fee_structure.type');
  });

  it('refuses a product family of another tenant as a bad field', async () => {
    const h = harness();
    const family = await createFamily();
    const res = await h.request('POST', '/api/v1/products', { key: h.other.apiKey, body: { name: 'x', product_family_id: family.id, fee_structure: { type: 'RATE' } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('product_family_id');
  });

  it('updates, archives and unarchives, keeping the fee type immutable', async () => {
    const h = harness();
    const family = await createFamily();
    const product = (await h.request('POST', '/api/v1/products', { body: { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'SLOT', slot_unit_name: 'seat' } } })).json();
    const patched = await h.request('PATCH', `/api/v1/products/${product.id}`, { body: { name: 'Seats v2', description: 'per seat' } });
    expect(patched.json()).toMatchObject({ name: 'Seats v2', description: 'per seat', fee_type: 'SLOT' });
    const changeType = await h.request('PATCH', `/api/v1/products/${product.id}`, { body: { fee_structure: { type: 'RATE' } } });
    expect(changeType.statusCode).toBe(400);
    expect(changeType.json().message).toContain('immutable');
    expect((await h.request('POST', `/api/v1/products/${product.id}/archive`)).statusCode).toBe(204);
    const archived = (await h.request('GET', `/api/v1/products/${product.id}`)).json();
    expect(archived.archived_at).toBe(h.clock.now().toISOString());
    const listed = (await h.request('GET', `/api/v1/products?product_family_id=${family.id}`)).json();
    expect(listed.data.map((p: { id: string }) => p.id)).not.toContain(product.id);
    expect((await h.request('POST', `/api/v1/products/${product.id}/unarchive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/products/${product.id}`)).json().archived_at).toBeNull();
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [product.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['product.created', 'product.updated', 'product.archived']);
  });

  it('lists with the spec query parameters, default name.asc, and shape B errors', async () => {
    const h = harness();
    const family = await createFamily('Sorted');
    for (const name of ['Charlie', 'Alpha', 'Bravo']) {
      h.clock.advance(1000);
      await h.request('POST', '/api/v1/products', { body: { name, product_family_id: family.id, fee_structure: { type: 'RATE' } } });
    }
    const page0 = (await h.request('GET', `/api/v1/products?product_family_id=${family.id}&per_page=2`)).json();
    expect(page0.pagination_meta).toEqual({ page: 0, per_page: 2, total_items: 3, total_pages: 2 });
    const page1 = (await h.request('GET', `/api/v1/products?product_family_id=${family.id}&per_page=2&page=1`)).json();
    expect([...page0.data, ...page1.data].map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    const desc = (await h.request('GET', `/api/v1/products?product_family_id=${family.id}&order_by=created_at.desc`)).json();
    expect(desc.data[0].name).toBe('Bravo');
    const search = (await h.request('GET', `/api/v1/products?search=brav`)).json();
    expect(search.data.map((p: { name: string }) => p.name)).toEqual(['Bravo']);
    for (const query of ['per_page=0', 'per_page=101', 'page=-1', 'order_by=price.asc', 'order_by=name.up', 'per_page=abc']) {
      const res = await h.request('GET', `/api/v1/products?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(res.json()), query).toEqual(['message']);
      expect(res.json().message, query).toMatch(/per_page|page|order_by/);
    }
  });
});
