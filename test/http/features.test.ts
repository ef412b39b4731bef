import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

let seq = 0;
async function metric(key?: string) {
  const h = harness();
  const familyId = (await h.request('POST', '/api/v1/product_families', { body: { name: 'F' }, key })).json().id;
  const res = await h.request('POST', '/api/v1/metrics', { key, body: { name: 'Calls', code: `call_${++seq}`, aggregation_type: 'COUNT', product_family_id: familyId } });
  expect(res.statusCode).toBe(201);
  return { metricId: res.json().id as string, familyId: familyId as string };
}

async function createFeature(body: Record<string, unknown>, key?: string) {
  return harness().request('POST', '/api/v1/features', { body, key });
}

describe('features', () => {
  it('creates a boolean feature with a default entitlement and gets it by id and by code', async () => {
    const h = harness();
    const res = await createFeature({ code: 'sso', name: 'Single sign-on', description: 'SAML', feature_type: { type: 'BOOLEAN' }, entitlement: { value: { enabled: false } } });
    expect(res.statusCode, res.body).toBe(201);
    const feature = res.json();
    const now = h.clock.now().toISOString();
    expect(feature).toEqual({
      id: expect.stringMatching(/^feat_[0-9A-Z]{26}$/),
      code: 'sso',
      name: 'Single sign-on',
      description: 'SAML',
      status: 'ACTIVE',
      feature_type: { type: 'BOOLEAN' },
      entitlement: { id: expect.stringMatching(/^ent_/), feature_id: feature.id, value: { type: 'BOOLEAN', enabled: false }, created_at: now, updated_at: now },
      product: null,
      created_at: now,
    });
    expect((await h.request('GET', `/api/v1/features/${feature.id}`)).json()).toEqual(feature);
    expect((await h.request('GET', '/api/v1/features/sso')).json()).toEqual(feature);
    const duplicate = await createFeature({ code: 'sso', name: 'Again', feature_type: { type: 'BOOLEAN' } });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({ code: 'CONFLICT', message: "code 'sso' is already used by another feature" });
  });

  it('creates a metered feature bound to a metric and a product, with a limit and a reset period', async () => {
    const h = harness();
    const { metricId, familyId } = await metric();
    const product = (await h.request('POST', '/api/v1/products', { body: { name: 'API', product_family_id: familyId, fee_structure: { type: 'RATE' } } })).json();
    const res = await createFeature({
      code: 'api-calls',
      name: 'API calls',
      feature_type: { type: 'METERED', metric_id: metricId },
      product_id: product.id,
      entitlement: { value: { limit: '10000', reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 1 } } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      feature_type: { type: 'METERED', metric_id: metricId },
      product: { id: product.id, name: 'API' },
      entitlement: { value: { type: 'METERED', enabled: true, limit: '10000', reset_period: { type: 'CALENDAR', unit: 'MONTH', interval: 1 } } },
    });
    const unlimited = await createFeature({ code: 'api-unlimited', name: 'Unlimited', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { limit: null } } });
    expect(unlimited.json().entitlement.value).toEqual({ type: 'METERED', enabled: true, limit: null, reset_period: { type: 'NEVER' } });
    const none = await createFeature({ code: 'no-default', name: 'No default', feature_type: { type: 'BOOLEAN' } });
    expect(none.json().entitlement).toBeNull();
  });

  it('refuses invalid features with a message naming the field', async () => {
    const h = harness();
    const { metricId } = await metric();
    const other = await metric(h.other.apiKey);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ code: 'Bad Code', name: 'x', feature_type: { type: 'BOOLEAN' } }, 400, 'code must be'],
      [{ code: 'x1', name: 'x', feature_type: { type: 'CONFIG' } }, 400, 'feature_type.type'],
      [{ code: 'x2', name: 'x', feature_type: { type: 'METERED' } }, 400, 'feature_type.metric_id is required'],
      [{ code: 'x3', name: 'x', feature_type: { type: 'METERED', metric_id: 'bm_missing' } }, 400, "feature_type.metric_id 'bm_missing'"],
      [{ code: 'x4', name: 'x', feature_type: { type: 'METERED', metric_id: other.metricId } }, 400, 'feature_type.metric_id'],
      [{ code: 'x5', name: 'x', feature_type: { type: 'BOOLEAN' }, product_id: 'prd_missing' }, 400, "product_id 'prd_missing'"],
      [{ code: 'x6', name: 'x', feature_type: { type: 'BOOLEAN' }, entitlement: { value: {} } }, 400, 'entitlement.value.enabled is required'],
      [{ code: 'x7', name: 'x', feature_type: { type: 'BOOLEAN' }, entitlement: { value: { type: 'METERED', limit: '5' } } }, 400, 'entitlement.value.type must be BOOLEAN'],
      [{ code: 'x8', name: 'x', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { limit: 100 } } }, 400, 'entitlement.value.limit'],
      [{ code: 'x9', name: 'x', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { limit: '-1' } } }, 400, 'entitlement.value.limit must not be negative'],
      [{ code: 'x10', name: 'x', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { limit: '1e3' } } }, 400, 'entitlement.value.limit must be a decimal string'],
      [{ code: 'x11', name: 'x', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { reset_period: { type: 'SLIDING_WINDOW', unit: 'DAY' } } } }, 400, 'entitlement.value.reset_period.interval'],
      [{ code: 'x12', name: 'x', feature_type: { type: 'METERED', metric_id: metricId }, entitlement: { value: { reset_period: { type: 'CALENDAR', unit: 'DECADE', interval: 1 } } } }, 400, 'entitlement.value.reset_period.unit'],
    ];
    for (const [body, status, message] of cases) {
      const res = await createFeature(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json(), JSON.stringify(body)).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
    // An archived metric cannot be bound.
    await h.request('POST', `/api/v1/metrics/${metricId}/archive`);
    const archived = await createFeature({ code: 'late', name: 'x', feature_type: { type: 'METERED', metric_id: metricId } });
    expect(archived.statusCode).toBe(400);
  });

  it('PATCH changes only name and description; code, feature_type and product are immutable', async () => {
    const h = harness();
    const feature = (await createFeature({ code: 'exports', name: 'Exports', feature_type: { type: 'BOOLEAN' } })).json();
    const patched = await h.request('PATCH', '/api/v1/features/exports', { body: { name: 'CSV exports', description: 'download as CSV' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toEqual({ ...feature, name: 'CSV exports', description: 'download as CSV' });
    const cleared = await h.request('PATCH', `/api/v1/features/${feature.id}`, { body: { description: null } });
    expect(cleared.json().description).toBeNull();
    for (const [field, value] of [['code', 'other'], ['feature_type', { type: 'BOOLEAN' }], ['product', { id: 'prd_x', name: 'x' }], ['product_id', 'prd_x']] as const) {
      const res = await h.request('PATCH', `/api/v1/features/${feature.id}`, { body: { name: 'n', [field]: value } });
      expect(res.statusCode, field).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: `${field} is immutable: only name and description can be changed` });
    }
    const empty = await h.request('PATCH', `/api/v1/features/${feature.id}`, { body: { name: '' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('name');
    expect((await h.request('GET', `/api/v1/features/${feature.id}`)).json().name).toBe('CSV exports');
    expect((await h.request('PATCH', '/api/v1/features/feat_missing', { body: { name: 'x' } })).statusCode).toBe(404);
  });

  it('moves status among ACTIVE, DISABLED and ARCHIVED', async () => {
    const h = harness();
    await createFeature({ code: 'audit-log', name: 'Audit log', feature_type: { type: 'BOOLEAN' } });
    const move = async (action: string) => h.request('POST', `/api/v1/features/audit-log/${action}`);
    expect((await move('disable')).json().status).toBe('DISABLED');
    expect((await move('disable')).json().status).toBe('DISABLED');
    expect((await move('enable')).json().status).toBe('ACTIVE');
    expect((await move('archive')).json().status).toBe('ARCHIVED');
    for (const action of ['enable', 'disable']) {
      const res = await move(action);
      expect(res.statusCode, action).toBe(409);
      expect(res.json()).toEqual({ code: 'CONFLICT', message: 'feature is archived; unarchive it first' });
    }
    expect((await move('unarchive')).json().status).toBe('ACTIVE');
    await move('disable');
    expect((await move('archive')).json().status).toBe('ARCHIVED');
    expect((await h.request('GET', '/api/v1/features/audit-log')).json().status).toBe('ARCHIVED');
  });

  it('sets, replaces and removes the feature-level entitlement', async () => {
    const h = harness();
    const feature = (await createFeature({ code: 'dashboards', name: 'Dashboards', feature_type: { type: 'BOOLEAN' } })).json();
    const set = await h.request('PUT', '/api/v1/features/dashboards/entitlement', { body: { value: { enabled: true } } });
    expect(set.statusCode, set.body).toBe(200);
    const first = set.json().entitlement;
    expect(first).toMatchObject({ feature_id: feature.id, value: { type: 'BOOLEAN', enabled: true } });
    h.clock.advance(60_000);
    const replaced = (await h.request('PUT', '/api/v1/features/dashboards/entitlement', { body: { value: { enabled: false } } })).json().entitlement;
    expect(replaced).toEqual({ ...first, value: { type: 'BOOLEAN', enabled: false }, updated_at: h.clock.now().toISOString() });
    const wrong = await h.request('PUT', '/api/v1/features/dashboards/entitlement', { body: { value: { enabled: true, limit: '5' } } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toContain('value.limit');
    expect((await h.request('DELETE', '/api/v1/features/dashboards/entitlement')).json().entitlement).toBeNull();
  });

  it('lists with statuses, product, search and paging', async () => {
    const h = harness();
    const { familyId } = await metric();
    const product = (await h.request('POST', '/api/v1/products', { body: { name: 'Analytics', product_family_id: familyId, fee_structure: { type: 'RATE' } } })).json();
    for (const name of ['Zeta chart', 'Alpha chart', 'Mid chart']) {
      await createFeature({ code: name.toLowerCase().replace(' ', '-'), name, feature_type: { type: 'BOOLEAN' }, product_id: product.id });
    }
    await h.request('POST', '/api/v1/features/mid-chart/disable');
    const all = (await h.request('GET', `/api/v1/features?product_id=${product.id}&per_page=2`)).json();
    expect(all.pagination_meta).toEqual({ page: 0, per_page: 2, total_items: 3, total_pages: 2 });
    expect(all.data.map((f: { name: string }) => f.name)).toEqual(['Alpha chart', 'Mid chart']);
    const active = (await h.request('GET', `/api/v1/features?product_id=${product.id}&statuses=ACTIVE`)).json();
    expect(active.data.map((f: { name: string }) => f.name)).toEqual(['Alpha chart', 'Zeta chart']);
    const both = (await h.request('GET', `/api/v1/features?product_id=${product.id}&statuses=ACTIVE&statuses=DISABLED`)).json();
    expect(both.pagination_meta.total_items).toBe(3);
    const search = (await h.request('GET', '/api/v1/features?search=ZETA')).json();
    expect(search.data.map((f: { code: string }) => f.code)).toEqual(['zeta-chart']);
    const bad = await h.request('GET', '/api/v1/features?statuses=GONE');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('statuses');
    expect((await h.request('GET', '/api/v1/features?per_page=101')).statusCode).toBe(400);
  });

  it('is invisible to another tenant, by id and by code', async () => {
    const h = harness();
    const feature = (await createFeature({ code: 'private-thing', name: 'Private', feature_type: { type: 'BOOLEAN' } })).json();
    for (const ref of [feature.id, 'private-thing']) {
      for (const [method, url] of [
        ['GET', `/api/v1/features/${ref}`],
        ['PATCH', `/api/v1/features/${ref}`],
        ['POST', `/api/v1/features/${ref}/archive`],
        ['POST', `/api/v1/features/${ref}/disable`],
        ['PUT', `/api/v1/features/${ref}/entitlement`],
      ] as const) {
        const body = method === 'PATCH' ? { name: 'x' } : method === 'PUT' ? { value: { enabled: true } } : undefined;
        const res = await h.request(method, url, { key: h.other.apiKey, body });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'feature not found' });
      }
    }
    // The same code is free in another tenant.
    expect((await createFeature({ code: 'private-thing', name: 'Theirs', feature_type: { type: 'BOOLEAN' } }, h.other.apiKey)).statusCode).toBe(201);
    expect((await h.request('GET', '/api/v1/features/private-thing')).json()).toEqual(feature);
  });
});
