import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { offerAddOn, seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();

type Row = { price_component_id?: string; add_on_id?: string; fee: Record<string, unknown>; quantity?: number; effective_from: string; effective_to: string | null };

async function setup() {
  const h = harness();
  h.clock.set('2026-03-15T12:00:00.000Z');
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  const customer = await seedCustomer(h, h.tenant.apiKey);
  const res = await h.request('POST', '/api/v1/subscriptions', {
    body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01', price_components: { parameterized_components: [{ component_id: plan.slotComponentId, parameters: { initial_slot_count: 3 } }] } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { h, plan, customer, sub: res.json() };
}

async function eventTypes(objectId: string): Promise<string[]> {
  const { rows } = await harness().db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [objectId]);
  return rows.map((r) => r.event_type as string);
}

describe('slot changes', () => {
  it('adds slots today and removes slots at the period end, as dated fee rows', async () => {
    const { h, plan, sub } = await setup();
    const up = await h.request('POST', `/api/v1/subscriptions/${sub.id}/slots`, { body: { price_component_id: plan.slotComponentId, slots: 5 } });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().mrr).toBe('99.00');
    const down = await h.request('POST', `/api/v1/subscriptions/${sub.id}/slots`, { body: { price_component_id: plan.slotComponentId, slots: 2 } });
    expect(down.statusCode, down.body).toBe(200);
    const slots = (down.json().components as Row[]).filter((c) => c.price_component_id === plan.slotComponentId).map((c) => [c.fee.initial_slots, c.effective_from, c.effective_to]);
    expect(slots).toEqual([[3, '2026-03-01', '2026-03-15'], [5, '2026-03-15', '2026-04-01'], [2, '2026-04-01', null]]);
    expect(down.json().mrr).toBe('99.00'); // today's fees; the downgrade starts next period
    const tooMany = await h.request('POST', `/api/v1/subscriptions/${sub.id}/slots`, { body: { price_component_id: plan.slotComponentId, slots: 99 } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual({ code: 'BAD_REQUEST', message: 'slots must be at most 50' });
    const notSlot = await h.request('POST', `/api/v1/subscriptions/${sub.id}/slots`, { body: { price_component_id: plan.rateComponentId, slots: 2 } });
    expect(notSlot.json().message).toBe(`price_component_id '${plan.rateComponentId}' is not a slot component of this subscription`);
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'subscription.slots_changed', 'subscription.slots_changed']);
  });
});

describe('plan changes', () => {
  it('changes plan immediately, then schedules one for the period end that the clock applies', async () => {
    const { h, plan, sub } = await setup();
    const b = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const c = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const inactive = await seedPlan(h, h.tenant.id, h.tenant.apiKey, { status: 'INACTIVE' });
    const toInactive = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: inactive.planId } });
    expect(toInactive.statusCode).toBe(400);
    expect(toInactive.json().message).toBe(`plan_id '${inactive.planId}': the plan is inactive and not offered for plan changes`);
    const now = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: b.planId } });
    expect(now.statusCode, now.body).toBe(200);
    expect(now.json()).toMatchObject({ plan_id: b.planId, plan_version_id: b.versionId, scheduled_plan_change: null });
    const rows = (now.json().components as Row[]).map((r) => [r.price_component_id, r.effective_from, r.effective_to]);
    expect(rows).toEqual(expect.arrayContaining([
      [plan.rateComponentId, '2026-03-01', '2026-03-15'], [plan.slotComponentId, '2026-03-01', '2026-03-15'],
      [b.rateComponentId, '2026-03-15', null], [b.slotComponentId, '2026-03-15', null],
    ]));
    expect(rows).toHaveLength(4);

    const later = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_version_id: c.versionId, timing: 'END_OF_PERIOD' } });
    expect(later.statusCode, later.body).toBe(200);
    expect(later.json()).toMatchObject({ plan_version_id: b.versionId, scheduled_plan_change: { plan_version_id: c.versionId, effective_date: '2026-04-01' } });
    const again = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: plan.planId } });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('a plan change is already scheduled for 2026-04-01');
    const same = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_version_id: b.versionId } });
    expect(same.statusCode).toBe(409);

    h.clock.set('2026-04-02T00:00:00.000Z');
    const applied = (await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json();
    expect(applied).toMatchObject({ plan_id: c.planId, plan_version_id: c.versionId, scheduled_plan_change: null });
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'subscription.plan_changed', 'subscription.plan_change_scheduled', 'subscription.plan_changed']);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('drops a scheduled change when the subscription is cancelled before it applies', async () => {
    const { h, sub } = await setup();
    const b = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: b.planId, timing: 'END_OF_PERIOD' } });
    const cancelled = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: {} });
    expect(cancelled.statusCode).toBe(200);
    const details = (await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json();
    expect(details.scheduled_plan_change).toBeNull();
    expect((details.components as Row[]).map((r) => r.effective_to)).toEqual([null, null]);
    const refused = await h.request('POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { body: { plan_id: b.planId, timing: 'END_OF_PERIOD' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('the change would apply on 2026-04-01, when the subscription has already stopped');
  });
});

describe('add-on changes', () => {
  it('adds an offered add-on today, raises its quantity today and removes it at the period end', async () => {
    const { h, plan, sub } = await setup();
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'AddFam' } })).json();
    const product = (await h.request('POST', '/api/v1/products', { body: { name: 'Support', product_family_id: family.id, fee_structure: { type: 'RATE' } } })).json();
    const addOn = (await h.request('POST', '/api/v1/addons', { body: { name: 'Support', product_id: product.id, price: { currency: 'EUR', fee: { rates: [{ term: 'MONTHLY', price: '5.00' }] } } } })).json();
    const notOffered = await h.request('POST', `/api/v1/subscriptions/${sub.id}/add-ons`, { body: { add_on_id: addOn.id } });
    expect(notOffered.statusCode).toBe(400);
    expect(notOffered.json().message).toBe(`add_ons[0].add_on_id '${addOn.id}' is not offered with this plan version`);
    await offerAddOn(h, h.tenant.id, plan.versionId, addOn.id, 3);

    const added = await h.request('POST', `/api/v1/subscriptions/${sub.id}/add-ons`, { body: { add_on_id: addOn.id } });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().mrr).toBe('84.00');
    const rowId = added.json().add_ons[0].id;
    const raised = await h.request('PATCH', `/api/v1/subscriptions/${sub.id}/add-ons/${rowId}`, { body: { quantity: 3 } });
    expect(raised.statusCode, raised.body).toBe(200);
    // Same-day change: the row of today is replaced, not kept for zero days.
    expect((raised.json().add_ons as Row[]).map((a) => [a.quantity, a.effective_from, a.effective_to])).toEqual([[3, '2026-03-15', null]]);
    expect(raised.json().mrr).toBe('94.00');
    const tooMany = await h.request('PATCH', `/api/v1/subscriptions/${sub.id}/add-ons/${raised.json().add_ons[0].id}`, { body: { quantity: 4 } });
    expect(tooMany.json()).toEqual({ code: 'BAD_REQUEST', message: 'quantity must be at most 3 (max instances per subscription)' });

    const removed = await h.request('DELETE', `/api/v1/subscriptions/${sub.id}/add-ons/${raised.json().add_ons[0].id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((removed.json().add_ons as Row[]).map((a) => [a.quantity, a.effective_from, a.effective_to])).toEqual([[3, '2026-03-15', '2026-04-01']]);
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'subscription.add_on_added', 'subscription.add_on_changed', 'subscription.add_on_removed']);
    const unknown = await h.request('DELETE', `/api/v1/subscriptions/${sub.id}/add-ons/sub_add_nope`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', message: 'subscription add-on not found' });
  });

  it('is invisible to another tenant', async () => {
    const { h, plan, sub } = await setup();
    const res = await h.request('POST', `/api/v1/subscriptions/${sub.id}/slots`, { key: h.other.apiKey, body: { price_component_id: plan.slotComponentId, slots: 4 } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'subscription not found' });
  });
});
