import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

async function family(name = 'Metering', key?: string) {
  const h = harness();
  const res = await h.request('POST', '/api/v1/product_families', { body: { name }, key });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

async function createMetric(body: Record<string, unknown>, key?: string) {
  return harness().request('POST', '/api/v1/metrics', { body, key });
}

describe('billable metrics', () => {
  it('creates a SUM metric with grouping and unit conversion, and gets it back', async () => {
    const h = harness();
    const familyId = await family();
    const body = {
      name: 'Storage',
      code: 'storage_used',
      description: 'GB stored',
      aggregation_type: 'SUM',
      aggregation_key: 'bytes',
      product_family_id: familyId,
      segmentation_matrix: { type: 'DOUBLE', dimension1: { key: 'region', values: ['eu', 'us'] }, dimension2: { key: 'tier', values: ['hot', 'cold'] } },
      unit_conversion: { factor: 1000000000, rounding: 'UP' },
      usage_group_key: 'bucket',
    };
    const res = await createMetric(body);
    expect(res.statusCode, res.body).toBe(201);
    const metric = res.json();
    expect(metric).toEqual({
      ...body,
      id: expect.stringMatching(/^bm_[0-9A-Z]{26}$/),
      product_id: null,
      created_at: h.clock.now().toISOString(),
      archived_at: null,
    });
    expect((await h.request('GET', `/api/v1/metrics/${metric.id}`)).json()).toEqual(metric);
    const events = await h.db.pool.query(`SELECT event_type, payload FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [metric.id]);
    expect(events.rows).toEqual([
      {
        event_type: 'metric.created',
        payload: {
          metric_id: metric.id,
          name: 'Storage',
          code: 'storage_used',
          description: 'GB stored',
          aggregation_type: 'SUM',
          aggregation_key: 'bytes',
          product_family_id: familyId,
          product_id: null,
          segmentation_matrix: body.segmentation_matrix,
          unit_conversion_factor: 1000000000,
          unit_conversion_rounding: 'UP',
          usage_group_key: 'bucket',
          created_at: metric.created_at,
        },
      },
    ]);
  });

  it('creates a COUNT metric without a property, bound to a product of its family', async () => {
    const h = harness();
    const familyId = await family();
    const product = (await h.request('POST', '/api/v1/products', { body: { name: 'API', product_family_id: familyId, fee_structure: { type: 'RATE' } } })).json();
    const res = await createMetric({ name: 'Calls', code: 'api_call', aggregation_type: 'COUNT', product_family_id: familyId, product_id: product.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ aggregation_type: 'COUNT', aggregation_key: null, product_id: product.id, segmentation_matrix: null, unit_conversion: null });
    // Two metrics may read the same event code.
    const sum = await createMetric({ name: 'Call units', code: 'api_call', aggregation_type: 'SUM', aggregation_key: 'units', product_family_id: familyId });
    expect(sum.statusCode).toBe(201);
  });

  it('refuses invalid definitions with a message naming the field', async () => {
    const familyId = await family();
    const base = { name: 'M', code: 'm', product_family_id: familyId };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, aggregation_type: 'SUM' }, 'aggregation_key is required'],
      [{ ...base, aggregation_type: 'MAX', aggregation_key: '' }, 'aggregation_key is required'],
      [{ ...base, aggregation_type: 'COUNT', aggregation_key: 'x' }, 'aggregation_key must be omitted'],
      [{ ...base, aggregation_type: 'MEDIAN' }, 'aggregation_type must be one of'],
      [{ ...base, code: '', aggregation_type: 'COUNT' }, 'code'],
      [{ ...base, aggregation_type: 'COUNT', unit_conversion: { factor: 0, rounding: 'UP' } }, 'unit_conversion.factor'],
      [{ ...base, aggregation_type: 'COUNT', unit_conversion: { factor: 10, rounding: 'SIDEWAYS' } }, 'unit_conversion.rounding'],
      [{ ...base, aggregation_type: 'COUNT', unit_conversion: { factor: '10', rounding: 'UP' } }, 'unit_conversion.factor'],
      [{ ...base, aggregation_type: 'COUNT', segmentation_matrix: { type: 'SINGLE', key: 'region', values: [] } }, 'segmentation_matrix.values'],
      [{ ...base, aggregation_type: 'COUNT', segmentation_matrix: { type: 'LINKED', dimension1_key: 'a', dimension2_key: 'b', values: { x: 'y' } } }, 'segmentation_matrix.values.x'],
      [{ ...base, aggregation_type: 'COUNT', segmentation_matrix: { type: 'SINGLE', key: 'region', values: ['eu'] }, usage_group_key: 'region' }, 'usage_group_key'],
      [{ ...base, aggregation_type: 'COUNT', product_family_id: 'pf_missing' }, "product_family_id 'pf_missing'"],
      [{ ...base, aggregation_type: 'COUNT', product_id: 'prd_missing' }, "product_id 'prd_missing'"],
    ];
    for (const [body, message] of cases) {
      const res = await createMetric(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json(), JSON.stringify(body)).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
  });

  it('updates the mutable fields, refuses the immutable ones, and clears with null', async () => {
    const h = harness();
    const familyId = await family();
    const metric = (await createMetric({
      name: 'Tokens', code: 'tokens', aggregation_type: 'SUM', aggregation_key: 'n', product_family_id: familyId,
      unit_conversion: { factor: 1000, rounding: 'NEAREST' },
    })).json();
    const patched = await h.request('PATCH', `/api/v1/metrics/${metric.id}`, {
      body: { name: 'Kilotokens', description: 'per 1k', segmentation_matrix: { type: 'SINGLE', key: 'model', values: ['small', 'large'] } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'Kilotokens', description: 'per 1k', code: 'tokens',
      segmentation_matrix: { type: 'SINGLE', key: 'model', values: ['small', 'large'] }, unit_conversion: { factor: 1000, rounding: 'NEAREST' },
    });
    const cleared = await h.request('PATCH', `/api/v1/metrics/${metric.id}`, { body: { unit_conversion: null, description: null } });
    expect(cleared.json()).toMatchObject({ unit_conversion: null, description: null, name: 'Kilotokens' });
    for (const field of ['code', 'aggregation_type']) {
      const res = await h.request('PATCH', `/api/v1/metrics/${metric.id}`, { body: { [field]: 'COUNT' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: `${field} is immutable: create a new metric to change it` });
    }
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [metric.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['metric.created', 'metric.updated', 'metric.updated']);
  });

  it('archives and unarchives, once each', async () => {
    const h = harness();
    const familyId = await family();
    const metric = (await createMetric({ name: 'Seats', code: 'seat', aggregation_type: 'LATEST', aggregation_key: 'count', product_family_id: familyId })).json();
    expect((await h.request('POST', `/api/v1/metrics/${metric.id}/archive`)).statusCode).toBe(204);
    expect((await h.request('POST', `/api/v1/metrics/${metric.id}/archive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/metrics/${metric.id}`)).json().archived_at).toBe(h.clock.now().toISOString());
    // An archived metric cannot be bound to a new product fee.
    const product = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: familyId, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } } });
    expect(product.statusCode).toBe(400);
    expect(product.json().message).toContain('fee_structure.metric_id');
    expect((await h.request('POST', `/api/v1/metrics/${metric.id}/unarchive`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/metrics/${metric.id}`)).json().archived_at).toBeNull();
    const bound = await h.request('POST', '/api/v1/products', { body: { name: 'x', product_family_id: familyId, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } } });
    expect(bound.statusCode, bound.body).toBe(201);
    const events = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [metric.id]);
    expect(events.rows.map((r) => r.event_type)).toEqual(['metric.created', 'metric.archived', 'metric.updated']);
    expect((await h.request('POST', '/api/v1/metrics/bm_missing/archive')).statusCode).toBe(404);
  });

  it('lists with filters, search, order and paging', async () => {
    const h = harness();
    const familyId = await family('Listing');
    for (const [name, code] of [['Gamma', 'c_evt'], ['Alpha', 'z_evt'], ['Beta', 'a_evt']]) {
      h.clock.advance(1000);
      await createMetric({ name, code, aggregation_type: 'COUNT', product_family_id: familyId });
    }
    const page0 = (await h.request('GET', `/api/v1/metrics?product_family_id=${familyId}&per_page=2`)).json();
    expect(page0.pagination_meta).toEqual({ page: 0, per_page: 2, total_items: 3, total_pages: 2 });
    expect(page0.data.map((m: { name: string }) => m.name)).toEqual(['Alpha', 'Beta']);
    expect(Object.keys(page0.data[0]).sort()).toEqual(['aggregation_key', 'aggregation_type', 'archived_at', 'code', 'created_at', 'description', 'id', 'name']);
    const byCode = (await h.request('GET', `/api/v1/metrics?product_family_id=${familyId}&order_by=code.desc`)).json();
    expect(byCode.data.map((m: { code: string }) => m.code)).toEqual(['z_evt', 'c_evt', 'a_evt']);
    const search = (await h.request('GET', `/api/v1/metrics?product_family_id=${familyId}&search=Z_EV`)).json();
    expect(search.data.map((m: { name: string }) => m.name)).toEqual(['Alpha']);
    for (const query of ['per_page=0', 'page=-1', 'order_by=aggregation_type.asc']) {
      const res = await h.request('GET', `/api/v1/metrics?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toMatch(/per_page|page|order_by/);
    }
  });

  it("is invisible to another tenant, and cannot use another tenant's family", async () => {
    const h = harness();
    const familyId = await family();
    const metric = (await createMetric({ name: 'Mine', code: 'mine', aggregation_type: 'COUNT', product_family_id: familyId })).json();
    for (const [method, url] of [
      ['GET', `/api/v1/metrics/${metric.id}`],
      ['PATCH', `/api/v1/metrics/${metric.id}`],
      ['POST', `/api/v1/metrics/${metric.id}/archive`],
      ['POST', `/api/v1/metrics/${metric.id}/unarchive`],
    ] as const) {
      const res = await h.request(method, url, { key: h.other.apiKey, ...(method === 'PATCH' ? { body: { name: 'stolen' } } : {}) });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'metric not found' });
    }
    const list = (await h.request('GET', '/api/v1/metrics', { key: h.other.apiKey })).json();
    expect(list.data.map((m: { id: string }) => m.id)).not.toContain(metric.id);
    const foreign = await createMetric({ name: 'x', code: 'x', aggregation_type: 'COUNT', product_family_id: familyId }, h.other.apiKey);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toContain('product_family_id');
    expect((await h.request('GET', `/api/v1/metrics/${metric.id}`)).json().name).toBe('Mine');
  });
});
