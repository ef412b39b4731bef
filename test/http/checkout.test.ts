import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { seedCustomer, seedPlan } from './subscription-fixtures.js';

const harness = useHarness();
const NOW = '2026-03-15T12:00:00.000Z';

async function setup(options: Parameters<typeof seedPlan>[3] = {}) {
  const h = harness();
  h.clock.set(NOW);
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, options);
  const customer = await seedCustomer(h, h.tenant.apiKey, { alias: `crm-${Math.random().toString(36).slice(2)}` });
  return { h, plan, customer };
}

async function createSession(body: Record<string, unknown>, key?: string) {
  return harness().request('POST', '/api/v1/checkout-sessions', { body, key });
}

async function subscriptionsOf(sessionId: string): Promise<string[]> {
  const { rows } = await harness().db.pool.query(`SELECT id FROM subscriptions WHERE checkout_session_id = $1`, [sessionId]);
  return rows.map((r) => r.id as string);
}

describe('create, get, list', () => {
  it('creates a SELF_SERVE session (200) that expires in one hour by default, and reads it back', async () => {
    const { h, plan, customer } = await setup();
    const res = await createSession({
      customer_id: customer.alias, plan_version_id: plan.versionId, billing_day_anchor: 5, net_terms: 30, trial_duration_days: 7,
      success_url: 'https://shop.test/ok', cancel_url: 'https://shop.test/no', payment_methods_config: { type: 'online', config: { card: { enabled: true } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = res.json().session;
    expect(session).toEqual({
      id: expect.stringMatching(/^che_/), checkout_type: 'SELF_SERVE', status: 'CREATED', customer_id: customer.id, plan_version_id: plan.versionId,
      created_at: NOW, subscription_id: null, start_date: null, billing_day_anchor: 5, billing_start_date: null, net_terms: 30, trial_duration_days: 7,
      coupon_code: null, coupon_ids: [], expires_at: '2026-03-15T13:00:00.000Z', completed_at: null, cancelled_at: null,
      // the hosted checkout page, on the request's origin (PUBLIC_BASE_URL unset); the token is not the session id
      checkout_url: expect.stringMatching(/^http:\/\/[^/]+\/checkout\/cs_[A-Za-z0-9_-]{43}$/),
      success_url: 'https://shop.test/ok', cancel_url: 'https://shop.test/no', payment_methods_config: { type: 'online', config: { card: { enabled: true } } },
      payment_reference: null,
    });
    const got = await h.request('GET', `/api/v1/checkout-sessions/${session.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ session });
    expect(await subscriptionsOf(session.id)).toEqual([]);
  });

  it('lists newest first under `sessions`, filtered by customer (id or alias) and status, with paging', async () => {
    const { h, plan, customer } = await setup();
    const first = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    h.clock.set('2026-03-15T12:00:01.000Z');
    const second = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    await h.request('POST', `/api/v1/checkout-sessions/${first.id}/cancel`);
    const all = await h.request('GET', `/api/v1/checkout-sessions?customer_id=${customer.alias}`);
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ sessions: [{ id: second.id, status: 'CREATED' }, { id: first.id, status: 'CANCELLED' }], pagination_meta: { total_items: 2 } });
    const cancelled = await h.request('GET', `/api/v1/checkout-sessions?customer_id=${customer.id}&status=CANCELLED`);
    expect(cancelled.json().sessions.map((s: { id: string }) => s.id)).toEqual([first.id]);
    const paged = await h.request('GET', `/api/v1/checkout-sessions?customer_id=${customer.id}&per_page=1&page=1`);
    expect(paged.json()).toMatchObject({ sessions: [{ id: first.id }], pagination_meta: { page: 1, per_page: 1, total_items: 2, total_pages: 2 } });
    const bad = await h.request('GET', '/api/v1/checkout-sessions?status=DONE');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('status');
  });

  it('refuses bad input at creation with messages naming the checkout field', async () => {
    const { plan, customer } = await setup({ annual: true });
    const base = { customer_id: customer.id, plan_version_id: plan.versionId, components: { parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'MONTHLY' } }] } };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, customer_id: 'ghost' }, "customer_id 'ghost' is not a customer of this tenant"],
      [{ ...base, plan_version_id: 'plv_nope' }, "plan_version_id 'plv_nope' has no published version in this tenant"],
      [{ customer_id: customer.id, plan_version_id: plan.versionId }, `components.parameterized_components[component ${plan.rateComponentId}].parameters.billing_period is required`],
      [{ ...base, components: { overridden_components: [{ component_id: plan.rateComponentId, fee: { type: 'RATE', rate: 12 } }] } }, 'components.overridden_components'],
      [{ ...base, success_url: 'shop.test/ok' }, 'success_url must be an absolute http(s) URL'],
      [{ ...base, cancel_url: 'javascript:alert(1)' }, 'cancel_url must be an absolute http(s) URL'],
      [{ ...base, start_date: '2026-03-01' }, 'start_date must not be in the past'],
      [{ ...base, expires_in_hours: 100000 }, 'expires_in_hours must be a whole number between 0 and 720'],
      [{ ...base, trial_duration_days: -1 }, 'trial_duration_days'],
      [{ ...base, trial_duration_days: 731 }, 'trial_duration_days must be <= 730 (body)'],
      [{ ...base, net_terms: 10 ** 9 }, 'net_terms must be <= 365 (body)'],
      [{ ...base, coupon_code: 'NOPE' }, "coupon_code 'NOPE' is not a coupon of this tenant"],
      [{ ...base, coupon_ids: ['cou_nope'] }, "coupon_ids[0] 'cou_nope' is not a coupon of this tenant"],
    ];
    for (const [body, message] of cases) {
      const res = await createSession(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
      expect(res.json().message).toContain(message);
    }
  });
});

describe('complete', () => {
  it('creates the subscription once; a retried completion answers the same session', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, billing_day_anchor: 1 })).json().session;
    h.clock.set('2026-03-15T12:30:00.000Z');
    const res = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`, { body: { payment_reference: 'pi_123' } });
    expect(res.statusCode, res.body).toBe(200);
    const done = res.json().session;
    expect(done).toMatchObject({ status: 'COMPLETED', completed_at: '2026-03-15T12:30:00.000Z', subscription_id: expect.stringMatching(/^sub_/), payment_reference: 'pi_123' });
    expect(await subscriptionsOf(session.id)).toEqual([done.subscription_id]);
    const sub = (await h.request('GET', `/api/v1/subscriptions/${done.subscription_id}`)).json();
    expect(sub).toMatchObject({ customer_id: customer.id, plan_version_id: plan.versionId, status: 'ACTIVE', start_date: '2026-03-15', billing_day_anchor: 1, current_period_end: '2026-04-01' });
    const { rows } = await h.db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1`, [done.subscription_id]);
    expect(rows.map((r) => r.event_type)).toEqual(['subscription.created']);
    const again = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`);
    expect(again.statusCode).toBe(200);
    expect(again.json().session).toEqual(done);
    expect(await subscriptionsOf(session.id)).toEqual([done.subscription_id]);
  });

  it('raced completions create exactly one subscription', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    const results = await Promise.all(Array.from({ length: 8 }, () => h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`, { body: {} })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const ids = new Set(results.map((r) => r.json().session.subscription_id));
    expect(ids.size).toBe(1);
    expect(await subscriptionsOf(session.id)).toEqual([...ids]);
    const { rows } = await h.db.pool.query(`SELECT count(*)::int AS n FROM outbox_events WHERE object_id = $1 AND event_type = 'subscription.created'`, [[...ids][0]]);
    expect(rows[0].n).toBe(1);
  });

  it('refuses a session whose price changed since it was created, and leaves it open', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    await h.db.pool.query(`UPDATE price_components SET fee = jsonb_set(fee, '{rates,0,price}', '"59.00"') WHERE id = $1`, [plan.rateComponentId]);
    const res = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ code: 'CONFLICT', message: 'the price of this checkout changed since the session was created; create a new checkout session' });
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.status).toBe('CREATED');
    expect(await subscriptionsOf(session.id)).toEqual([]);
    // A session created at the new price completes.
    const fresh = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    expect((await h.request('POST', `/api/v1/checkout-sessions/${fresh.id}/complete`)).json().session.status).toBe('COMPLETED');
  });

  it('waits in AWAITING_PAYMENT for a pending payment, which the clock does not expire', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    const pending = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`, { body: { payment_status: 'PENDING', payment_reference: 'sepa_1' } });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().session).toMatchObject({ status: 'AWAITING_PAYMENT', subscription_id: null, payment_reference: 'sepa_1' });
    expect(await subscriptionsOf(session.id)).toEqual([]);
    h.clock.set('2026-03-17T09:00:00.000Z');
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.status).toBe('AWAITING_PAYMENT');
    const settled = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`);
    expect(settled.json().session).toMatchObject({ status: 'COMPLETED', payment_reference: 'sepa_1', completed_at: '2026-03-17T09:00:00.000Z' });
    const sub = (await h.request('GET', `/api/v1/subscriptions/${settled.json().session.subscription_id}`)).json();
    expect(sub.start_date).toBe('2026-03-17');
  });

  it('starts the subscription on the requested future start date', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, start_date: '2026-04-01' })).json().session;
    expect(session.start_date).toBe('2026-04-01');
    const done = (await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`)).json().session;
    expect((await h.request('GET', `/api/v1/subscriptions/${done.subscription_id}`)).json()).toMatchObject({ status: 'PENDING_ACTIVATION', start_date: '2026-04-01' });
  });

  it('redeems the coupon once when the session completes', async () => {
    const { h, plan, customer } = await setup();
    const code = `WELCOME${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const coupon = await h.request('POST', '/api/v1/coupons', { body: { code, discount: { type: 'PERCENTAGE', percentage: '10' } } });
    expect(coupon.statusCode, coupon.body).toBe(201);
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, coupon_code: code.toLowerCase() })).json().session;
    expect(session.coupon_code).toBe(code.toLowerCase());
    const done = (await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`)).json().session;
    const sub = (await h.request('GET', `/api/v1/subscriptions/${done.subscription_id}`)).json();
    expect(sub.applied_coupons).toEqual([expect.objectContaining({ coupon: expect.objectContaining({ id: coupon.json().id, code, discount: { type: 'PERCENTAGE', percentage: '10' } }) })]);
    expect((await h.request('GET', `/api/v1/coupons/${coupon.json().id}`)).json().redemption_count).toBe(1);
  });

  it('names coupon_ids by their own index when a coupon_code comes first', async () => {
    const { h, plan, customer } = await setup();
    const code = `FIRST${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    expect((await h.request('POST', '/api/v1/coupons', { body: { code, discount: { type: 'PERCENTAGE', percentage: '5' } } })).statusCode).toBe(201);
    const res = await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, coupon_code: code, coupon_ids: ['cou_nope'] });
    expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: "coupon_ids[0] 'cou_nope' is not a coupon of this tenant" });
  });
});

describe('cancel and expiry', () => {
  it('cancels an open session; every other state is a 400 with {code, message}', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    const res = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().session).toMatchObject({ id: session.id, status: 'CANCELLED', cancelled_at: NOW });
    const again = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/cancel`);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ code: 'BAD_REQUEST', message: 'checkout session is already cancelled and cannot be cancelled' });
    const complete = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`);
    expect(complete.statusCode).toBe(400);
    expect(complete.json()).toEqual({ code: 'BAD_REQUEST', message: 'checkout session is already cancelled and cannot be completed' });

    const completed = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    await h.request('POST', `/api/v1/checkout-sessions/${completed.id}/complete`);
    const cancelCompleted = await h.request('POST', `/api/v1/checkout-sessions/${completed.id}/cancel`);
    expect(cancelCompleted.statusCode).toBe(400);
    expect(cancelCompleted.json()).toEqual({ code: 'BAD_REQUEST', message: 'checkout session is already completed and cannot be cancelled' });

    const unknown = await h.request('POST', '/api/v1/checkout-sessions/che_00000000000000000000000000/cancel');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', message: 'checkout session not found' });
  });

  it('expires by the clock: the session reads EXPIRED and can be neither cancelled nor completed; 0 hours never expires', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, expires_in_hours: 2 })).json().session;
    const forever = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId, expires_in_hours: 0 })).json().session;
    expect(session.expires_at).toBe('2026-03-15T14:00:00.000Z');
    expect(forever.expires_at).toBeNull();
    h.clock.set('2026-03-15T14:00:00.000Z');
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.status).toBe('EXPIRED');
    expect((await h.request('GET', `/api/v1/checkout-sessions?status=EXPIRED&customer_id=${customer.id}`)).json().sessions.map((s: { id: string }) => s.id)).toEqual([session.id]);
    const cancel = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/cancel`);
    expect(cancel.statusCode).toBe(400);
    expect(cancel.json()).toEqual({ code: 'BAD_REQUEST', message: 'checkout session expired at 2026-03-15T14:00:00.000Z and cannot be cancelled' });
    const complete = await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`);
    expect(complete.json()).toEqual({ code: 'BAD_REQUEST', message: 'checkout session expired at 2026-03-15T14:00:00.000Z and cannot be completed' });
    expect(await subscriptionsOf(session.id)).toEqual([]);
    h.clock.set('2027-01-01T00:00:00.000Z');
    expect((await h.request('POST', `/api/v1/checkout-sessions/${forever.id}/complete`)).json().session.status).toBe('COMPLETED');
  });

  it('is invisible to another tenant', async () => {
    const { h, plan, customer } = await setup();
    const session = (await createSession({ customer_id: customer.id, plan_version_id: plan.versionId })).json().session;
    const key = h.other.apiKey;
    for (const res of [
      await h.request('GET', `/api/v1/checkout-sessions/${session.id}`, { key }),
      await h.request('POST', `/api/v1/checkout-sessions/${session.id}/cancel`, { key }),
      await h.request('POST', `/api/v1/checkout-sessions/${session.id}/complete`, { key }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'checkout session not found' });
    }
    expect((await h.request('GET', '/api/v1/checkout-sessions', { key })).json().sessions).toEqual([]);
    const cross = await createSession({ customer_id: customer.id, plan_version_id: plan.versionId }, key);
    expect(cross.statusCode).toBe(400);
    expect(cross.json().message).toBe(`customer_id '${customer.id}' is not a customer of this tenant`);
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session.status).toBe('CREATED');
  });
});
