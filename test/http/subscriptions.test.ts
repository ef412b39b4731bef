import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();

async function eventTypes(objectId: string): Promise<string[]> {
  const { rows } = await harness().db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [objectId]);
  return rows.map((r) => r.event_type as string);
}

async function setup(options: Parameters<typeof seedPlan>[3] = {}) {
  const h = harness();
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, options);
  const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `alias-${Math.random().toString(36).slice(2)}` });
  return { h, plan, customer };
}

describe('create subscription', () => {
  it('creates an active subscription with a fee snapshot, current period, next invoice date and MRR', async () => {
    const { h, plan, customer } = await setup();
    const res = await h.request('POST', '/api/v1/subscriptions', {
      body: {
        customer_id_or_alias: customer.alias, plan_id: plan.planId, start_date: '2026-03-01',
        price_components: { parameterized_components: [{ component_id: plan.slotComponentId, parameters: { initial_slot_count: 3 } }] },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sub = res.json();
    expect(sub).toMatchObject({
      id: expect.stringMatching(/^sub_/), customer_id: customer.id, plan_id: plan.planId, plan_version_id: plan.versionId, plan_version: 1,
      status: 'ACTIVE', start_date: '2026-03-01', billing_start_date: '2026-03-01', billing_day_anchor: 1, period: 'MONTHLY', net_terms: 15,
      current_period_start: '2026-03-01', current_period_end: '2026-04-01', next_invoice_date: '2026-04-01', mrr: '79.00', currency: 'EUR',
      trial_duration: null, activated_at: '2026-03-15T12:00:00.000Z',
    });
    expect([...sub.components].sort((x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name))).toEqual([
      expect.objectContaining({ price_component_id: plan.rateComponentId, period: 'MONTHLY', fee: { type: 'RATE', rate: '49.00' }, effective_from: '2026-03-01', effective_to: null }),
      expect.objectContaining({ price_component_id: plan.slotComponentId, fee: { type: 'SLOT', unit: 'seat', unit_rate: '10.00', initial_slots: 3, min_slots: 1, max_slots: 50 } }),
    ]);
    expect(await eventTypes(sub.id)).toEqual(['subscription.created']);
    // The snapshot survives catalog edits.
    await h.db.pool.query(`UPDATE price_components SET fee = jsonb_set(fee, '{rates,0,price}', '"99.00"') WHERE id = $1`, [plan.rateComponentId]);
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json().components.find((c: { price_component_id: string }) => c.price_component_id === plan.rateComponentId).fee).toEqual({ type: 'RATE', rate: '49.00' });
  });

  it('starts pending for a future start and moves with the clock through trial to active', async () => {
    const { h, plan, customer } = await setup({ trialDays: 14, trialIsFree: true });
    const res = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-04-01' } });
    expect(res.statusCode, res.body).toBe(201);
    const sub = res.json();
    expect(sub).toMatchObject({ status: 'PENDING_ACTIVATION', trial_duration: 14, trial_is_free: true, billing_start_date: '2026-04-15', billing_day_anchor: 15, activated_at: null, next_invoice_date: '2026-04-15' });
    h.clock.set('2026-04-02T00:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json()).toMatchObject({ status: 'TRIAL_ACTIVE', current_period_start: '2026-04-01', current_period_end: '2026-04-15' });
    h.clock.set('2026-04-20T00:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json()).toMatchObject({ status: 'ACTIVE', current_period_start: '2026-04-15', current_period_end: '2026-05-15' });
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'subscription.trial_started', 'subscription.trial_ended']);
    h.clock.set('2026-03-15T12:00:00Z');
  });

  it('places a skip_past_invoices subscription at the current period', async () => {
    const { h, plan, customer } = await setup();
    const res = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2025-11-10', skip_past_invoices: true } });
    expect(res.statusCode, res.body).toBe(201);
    // billing starts on the start date; the period running today is the current one (the old
    // system billed it: test/scenarios/billing-engine.test.ts), so the next invoice is its end
    expect(res.json()).toMatchObject({ billing_start_date: '2025-11-10', current_period_start: '2026-03-10', current_period_end: '2026-04-10', next_invoice_date: '2026-04-10' });
    const future = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-05-01', skip_past_invoices: true } });
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toBe('skip_past_invoices needs a start_date in the past');
  });

  it('refuses bad input with messages naming the field', async () => {
    const { h, plan, customer } = await setup({ annual: true });
    const base = { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, customer_id_or_alias: 'ghost' }, "customer_id_or_alias 'ghost' is not a customer of this tenant"],
      [{ ...base, plan_id: 'plan_nope' }, "plan_id 'plan_nope' has no published version"],
      [base, 'billing_period is required'],
      [{ ...base, price_components: { parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'QUARTERLY' } }] } }, 'billing_period QUARTERLY is not offered'],
      [{ ...base, price_components: { remove_components: [plan.rateComponentId], parameterized_components: [{ component_id: plan.slotComponentId, parameters: { initial_slot_count: 99 } }] } }, 'initial_slot_count must be at most 50'],
      [{ ...base, end_date: '2026-02-01' }, 'end_date must be after start_date'],
      [{ ...base, start_date: '01/03/2026' }, 'start_date'],
      [{ ...base, billing_day_anchor: 32 }, 'billing_day_anchor'],
      [{ ...base, price_components: { remove_components: [plan.rateComponentId] }, coupon_codes: ['WELCOME'] }, "coupon_codes[0] 'WELCOME' is not a coupon of this tenant"],
    ];
    for (const [body, message] of cases) {
      const res = await h.request('POST', '/api/v1/subscriptions', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
      expect(res.json().message).toContain(message);
    }
    const override = await h.request('POST', '/api/v1/subscriptions', {
      body: { ...base, price_components: { parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'ANNUAL' } }], overridden_components: [{ component_id: plan.rateComponentId, fee: { type: 'RATE', rate: '400.00' } }] } },
    });
    expect(override.statusCode, override.body).toBe(201);
    expect(override.json()).toMatchObject({ period: 'MONTHLY', mrr: '43.33' });
    expect(override.json().components.find((c: { price_component_id: string }) => c.price_component_id === plan.rateComponentId)).toMatchObject({ period: 'ANNUAL', fee: { type: 'RATE', rate: '400.00' } });
  });

  it('refuses an archived customer, and archiving a customer with a live subscription', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const archive = await h.request('DELETE', `/api/v1/customers/${customer.id}`);
    expect(archive.statusCode).toBe(409);
    expect(archive.json().message).toContain('customer has 1 subscription(s) that are not cancelled or ended');
    await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: { effective_date: '2026-03-15' } });
    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}`)).statusCode).toBe(204);
    const refused = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('is archived and cannot get new subscriptions');
  });
});

describe('list, update, cancel', () => {
  it('lists with customer, plan and status filters and paging', async () => {
    const { h, plan, customer } = await setup();
    const a = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const b = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-06-01' } })).json();
    const all = await h.request('GET', `/api/v1/subscriptions?customer_id=${customer.alias}`);
    expect(all.json().data.map((s: { id: string }) => s.id).sort()).toEqual([a.id, b.id].sort());
    const pending = await h.request('GET', `/api/v1/subscriptions?plan_id=${plan.planId}&statuses=PENDING_ACTIVATION`);
    expect(pending.json().data.map((s: { id: string }) => s.id)).toEqual([b.id]);
    const paged = await h.request('GET', `/api/v1/subscriptions?customer_id=${customer.id}&per_page=1&order_by=billing_start_date.asc`);
    expect(paged.json()).toMatchObject({ data: [{ id: a.id }], pagination_meta: { page: 0, per_page: 1, total_items: 2, total_pages: 2 } });
    const bad = await h.request('GET', '/api/v1/subscriptions?statuses=DONE');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('statuses');
  });

  it('PATCH changes invoicing settings only', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const res = await h.request('PATCH', `/api/v1/subscriptions/${sub.id}`, { body: { net_terms: 30, invoice_memo: 'PO 7', purchase_order: 'PO-7' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().subscription).toMatchObject({ net_terms: 30, invoice_memo: 'PO 7', purchase_order: 'PO-7', mrr: '59.00' });
    const forbidden = await h.request('PATCH', `/api/v1/subscriptions/${sub.id}`, { body: { start_date: '2026-01-01' } });
    expect(forbidden.statusCode).toBe(400);
    expect(forbidden.json().message).toContain('start_date is not a known field');
  });

  it('cancels at period end, then refuses a second cancellation; the clock ends it', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const res = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: { reason: 'too expensive' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().subscription).toMatchObject({ status: 'ACTIVE', cancel_effective_date: '2026-04-01', cancellation_reason: 'too expensive' });
    const again = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: {} });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', message: 'subscription is already cancelled effective 2026-04-01' });
    h.clock.set('2026-04-01T08:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json()).toMatchObject({ status: 'CANCELLED', current_period_end: null, next_invoice_date: null });
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'subscription.cancellation_scheduled', 'subscription.cancelled']);
    h.clock.set('2026-03-15T12:00:00Z');
  });

  it('cancels a pending subscription at a date before its start: it ends on its start day and stays readable', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-04-01' } })).json();
    const res = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: { effective_date: '2026-03-20' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().subscription).toMatchObject({ status: 'PENDING_ACTIVATION', cancel_effective_date: '2026-04-01' });
    const read = await h.request('GET', `/api/v1/subscriptions/${sub.id}`);
    expect(read.statusCode, read.body).toBe(200);
    h.clock.set('2026-04-02T00:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${sub.id}`)).json()).toMatchObject({ status: 'CANCELLED', cancel_effective_date: '2026-04-01' });
    h.clock.set('2026-03-15T12:00:00Z');
  });

  it('cancels immediately with today as the effective date', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const res = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: { effective_date: '2026-03-15' } });
    expect(res.json().subscription).toMatchObject({ status: 'CANCELLED', cancel_effective_date: '2026-03-15' });
    const past = await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { body: { effective_date: '2026-03-01' } });
    expect(past.statusCode).toBe(409);
    expect(past.json().message).toBe('subscription is already cancelled');
  });

  it('is invisible to another tenant', async () => {
    const { h, plan, customer } = await setup();
    const sub = (await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } })).json();
    const key = h.other.apiKey;
    for (const res of [
      await h.request('GET', `/api/v1/subscriptions/${sub.id}`, { key }),
      await h.request('PATCH', `/api/v1/subscriptions/${sub.id}`, { key, body: { net_terms: 1 } }),
      await h.request('POST', `/api/v1/subscriptions/${sub.id}/cancel`, { key, body: {} }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'subscription not found' });
    }
    expect((await h.request('GET', `/api/v1/subscriptions?customer_id=${customer.id}`, { key })).json().data).toEqual([]);
    const crossCustomer = await h.request('POST', '/api/v1/subscriptions', { key, body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-03-01' } });
    expect(crossCustomer.statusCode).toBe(400);
    expect(crossCustomer.json().message).toContain('is not a customer of this tenant');
  });
});

describe('status moves driven by the clock, without reads', () => {
  it('the periodic billing run activates a pending subscription and writes its event', async () => {
    const h = harness();
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = await seedCustomer(h, h.tenant.apiKey);
    const created = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-04-01' } });
    expect(created.json().status).toBe('PENDING_ACTIVATION');
    const id = created.json().id as string;
    const statusRow = async () => (await h.db.pool.query(`SELECT status FROM subscriptions WHERE id = $1`, [id])).rows[0].status;
    const events = async () => (await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [id])).rows.map((r) => r.event_type);

    await h.service.tasks['billing.run']!({ once: true });
    expect(await statusRow()).toBe('PENDING_ACTIVATION');
    h.clock.set('2026-04-01T00:30:00.000Z');
    await h.service.tasks['billing.run']!({ once: true });
    expect(await statusRow()).toBe('ACTIVE');
    expect(await events()).toContain('subscription.activated');
  });
});
