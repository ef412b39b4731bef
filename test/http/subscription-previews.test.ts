// POST /api/v1/subscriptions/preview-invoice and .../change-plan/preview (src/modules/invoices/previews.ts):
// the invoice a request would lead to, equal to the one after making it, with nothing stored.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();

type Line = { name: string; start_date: string; end_date: string; quantity: string; amount_total: string };
type InvoiceWire = { id: string; status: string; period_start: string; period_end: string; total: string; line_items: Line[] };
/** What a preview and the real invoice must agree on (ids and timestamps differ). */
const money = (i: InvoiceWire) => ({ period: [i.period_start, i.period_end], total: i.total, lines: i.line_items.map((l) => [l.name, l.start_date, l.end_date, l.quantity, l.amount_total]) });

async function countRows(h: Harness, table: string, tenantId: string): Promise<number> {
  const { rows } = await h.db.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenantId]);
  return rows[0].n as number;
}

/** A plan of one 99.00 EUR monthly fee, to move to. */
async function businessPlan(h: Harness): Promise<{ planId: string }> {
  const post = async (url: string, body: unknown) => {
    const res = await h.request('POST', url, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const family = await post('/api/v1/product_families', { name: 'Fam' });
  const product = await post('/api/v1/products', { name: 'Business', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const plan = await post('/api/v1/plans', { name: 'Business', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE', components: [{ name: 'Business', product_id: product.id, fee: { rates: [{ term: 'MONTHLY', price: '99.00' }] } }] });
  return { planId: plan.id };
}

describe('the first invoice of a subscription, before creating it', () => {
  it('answers the invoice creation then leads to, stores nothing, and refuses as creation does', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = await seedCustomer(h, h.tenant.apiKey);
    const body = { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-15', price_components: { parameterized_components: [{ component_id: plan.slotComponentId, parameters: { initial_slot_count: 3 } }] } };
    const outboxBefore = await countRows(h, 'outbox_events', h.tenant.id);

    const preview = await h.request('POST', '/api/v1/subscriptions/preview-invoice', { body });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ id: 'upcoming', status: 'DRAFT', currency: 'EUR', total: '79.00' });
    expect(await countRows(h, 'subscriptions', h.tenant.id)).toBe(0);
    expect(await countRows(h, 'outbox_events', h.tenant.id)).toBe(outboxBefore);

    const created = await h.request('POST', '/api/v1/subscriptions', { body });
    expect(created.statusCode, created.body).toBe(201);
    const upcoming = await h.request('GET', `/api/v1/subscriptions/${created.json().id}/upcoming-invoice`);
    expect(upcoming.statusCode, upcoming.body).toBe(200);
    expect(money(preview.json())).toEqual(money(upcoming.json()));

    const noCustomer = await h.request('POST', '/api/v1/subscriptions/preview-invoice', { body: { ...body, customer_id_or_alias: 'nobody' } });
    const createNoCustomer = await h.request('POST', '/api/v1/subscriptions', { body: { ...body, customer_id_or_alias: 'nobody' } });
    expect(noCustomer.statusCode).toBe(400);
    expect(noCustomer.json()).toEqual(createNoCustomer.json());
    expect(noCustomer.json().message).toMatch(/^customer_id_or_alias /);

    const later = await h.request('POST', '/api/v1/subscriptions/preview-invoice', { body: { ...body, start_date: '2026-05-01' } });
    expect(later.statusCode, later.body).toBe(404);
    expect(later.json().message).toContain('2026-05-01');
  });
});

describe('the next invoice after a plan change, before making it', () => {
  it('shows the proration the change makes, leaves the subscription as it was, and refuses as the change does', async () => {
    const h = harness();
    h.clock.set('2026-03-01T12:00:00.000Z');
    const a = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = await seedCustomer(h, h.tenant.apiKey);
    const created = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: a.planId, start_date: '2026-03-01' } });
    expect(created.statusCode, created.body).toBe(201);
    const sub = created.json();
    // the first invoice is issued, so the next one is the April one that carries the proration
    await h.service.invoicing.billing.runAll();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const b = await businessPlan(h);
    const before = await h.request('GET', `/api/v1/subscriptions/${sub.id}/upcoming-invoice`);
    expect(before.statusCode, before.body).toBe(200);
    const outboxBefore = await countRows(h, 'outbox_events', h.tenant.id);

    const preview = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan/preview`, { body: { plan_id: b.planId } });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ id: 'upcoming', status: 'DRAFT' });
    const unchanged = await h.request('GET', `/api/v1/subscriptions/${sub.id}`);
    expect(unchanged.json()).toMatchObject({ plan_id: a.planId, scheduled_plan_change: null });
    expect(unchanged.json().components).toEqual(sub.components);
    expect(await countRows(h, 'outbox_events', h.tenant.id)).toBe(outboxBefore);

    const changed = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: b.planId } });
    expect(changed.statusCode, changed.body).toBe(200);
    const after = await h.request('GET', `/api/v1/subscriptions/${sub.id}/upcoming-invoice`);
    expect(money(preview.json())).toEqual(money(after.json()));
    expect(money(preview.json())).not.toEqual(money(before.json()));

    const same = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan/preview`, { body: { plan_id: b.planId } });
    expect(same.statusCode).toBe(400);
    expect(same.json().message).toBe('plan_id: the subscription is already on this plan version');
    const unknown = await h.request('POST', '/api/v1/subscriptions/sub_unknown/change-plan/preview', { body: { plan_id: b.planId } });
    expect(unknown.statusCode).toBe(404);
  });

  it('is not seen by another tenant', async () => {
    const h = harness();
    const a = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = await seedCustomer(h, h.tenant.apiKey);
    const created = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: a.planId, start_date: '2026-03-01' } });
    const res = await h.request('POST', `/api/v1/subscriptions/${created.json().id}/change-plan/preview`, { key: h.other.apiKey, body: { plan_id: a.planId } });
    expect(res.statusCode).toBe(404);
  });
});
