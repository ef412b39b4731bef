import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { checkCouponApplicable, redeemCoupon } from '../../src/modules/coupons/index.js';
import { withTx } from '../../src/db/tx.js';

const harness = useHarness();

async function createCoupon(body: Record<string, unknown>, key?: string) {
  return harness().request('POST', '/api/v1/coupons', { body, key });
}

async function eventTypes(objectId: string): Promise<string[]> {
  const rows = await harness().db.pool.query(`SELECT event_type FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [objectId]);
  return rows.rows.map((r) => r.event_type);
}

let plans = 0;
/** A real plan of the calling tenant, for coupons restricted to plans. */
async function createPlan(key?: string): Promise<string> {
  const h = harness();
  const post = async (url: string, body: unknown) => {
    const res = await h.request('POST', url, { body, key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const family = await post('/api/v1/product_families', { name: `Coupon plans ${++plans}` });
  const product = await post('/api/v1/products', { name: 'Platform', product_family_id: family, fee_structure: { type: 'RATE' } });
  return post('/api/v1/plans', { name: 'Pro', currency: 'EUR', product_family_id: family, components: [{ name: 'Platform', product_id: product, fee: { rates: [{ price: '10.00' }] } }] });
}

describe('coupons', () => {
  it('creates percentage and fixed coupons with their terms and writes coupon.created', async () => {
    const h = harness();
    const planA = await createPlan();
    const res = await createCoupon({
      code: 'WELCOME20', description: '20% off', discount: { type: 'PERCENTAGE', percentage: '20.0' },
      expires_at: '2026-12-31T23:59:59Z', redemption_limit: 100, recurring_value: 3, reusable: false, plan_ids: [planA, planA],
    });
    expect(res.statusCode, res.body).toBe(201);
    const coupon = res.json();
    expect(coupon).toEqual({
      id: expect.stringMatching(/^cou_[0-9A-Z]{26}$/),
      code: 'WELCOME20',
      description: '20% off',
      discount: { type: 'PERCENTAGE', percentage: '20' },
      expires_at: '2026-12-31T23:59:59.000Z',
      redemption_limit: 100,
      recurring_value: 3,
      reusable: false,
      disabled: false,
      archived_at: null,
      redemption_count: 0,
      last_redemption_at: null,
      plan_ids: [planA],
      created_at: h.clock.now().toISOString(),
    });
    expect((await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json()).toEqual(coupon);
    const event = await h.db.pool.query(`SELECT event_type, payload FROM outbox_events WHERE object_id = $1`, [coupon.id]);
    expect(event.rows).toEqual([{
      event_type: 'coupon.created',
      payload: {
        coupon_id: coupon.id, code: 'WELCOME20', description: '20% off', discount: { type: 'PERCENTAGE', percentage: '20' },
        expires_at: '2026-12-31T23:59:59.000Z', redemption_limit: 100, recurring_value: 3, reusable: false, disabled: false, created_at: coupon.created_at,
      },
    }]);
    const fixed = await createCoupon({ code: 'TENOFF', discount: { type: 'FIXED', currency: 'EUR', amount: '10' } });
    expect(fixed.json()).toMatchObject({ discount: { type: 'FIXED', currency: 'EUR', amount: '10.00' }, recurring_value: null, redemption_limit: null, reusable: false, expires_at: null, plan_ids: [] });
    const yen = await createCoupon({ code: 'YEN500', discount: { type: 'FIXED', currency: 'JPY', amount: '500' } });
    expect(yen.json().discount.amount).toBe('500');
    const duplicate = await createCoupon({ code: 'welcome20', discount: { type: 'PERCENTAGE', percentage: '5' } });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({ code: 'CONFLICT', message: "code 'welcome20' is already used by another coupon (codes ignore case)" });
  });

  it('refuses invalid coupons with a message naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: 10 } }, 'discount.percentage'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '0' } }, 'discount.percentage must be greater than 0'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '100.5' } }, 'discount.percentage must be greater than 0 and at most 100'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: 'ten' } }, 'discount.percentage must be a decimal string'],
      [{ code: 'A', discount: { type: 'FIXED', amount: '5' } }, 'discount.currency'],
      [{ code: 'A', discount: { type: 'FIXED', currency: 'EUR', amount: 5 } }, 'discount.amount'],
      [{ code: 'A', discount: { type: 'FIXED', currency: 'EUR', amount: '5.001' } }, 'discount.amount has more than 2 decimals for EUR'],
      [{ code: 'A', discount: { type: 'FIXED', currency: 'EUR', amount: '-5' } }, 'discount.amount must be greater than 0'],
      [{ code: 'A', discount: { type: 'FIXED', currency: 'EUR', amount: '1000000000000' } }, 'discount.amount must be below 1000000000000'],
      [{ code: 'A', discount: { type: 'BOGO' } }, 'discount.type'],
      [{ code: 'has space', discount: { type: 'PERCENTAGE', percentage: '5' } }, 'code must be'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '5' }, expires_at: '2020-01-01T00:00:00Z' }, 'expires_at must be in the future'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '5' }, expires_at: 'tomorrow' }, 'expires_at'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '5' }, redemption_limit: 0 }, 'redemption_limit'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '5' }, recurring_value: 1.5 }, 'recurring_value'],
      [{ code: 'A', discount: { type: 'PERCENTAGE', percentage: '5' }, plan_ids: ['prd_x'] }, 'plan_ids[0]'],
    ];
    for (const [body, message] of cases) {
      const res = await createCoupon(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json(), JSON.stringify(body)).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
  });

  it('updates description, discount and plan_ids, and refuses the other terms', async () => {
    const h = harness();
    const coupon = (await createCoupon({ code: 'SPRING', discount: { type: 'PERCENTAGE', percentage: '10' } })).json();
    const planB = await createPlan();
    const res = await h.request('PATCH', `/api/v1/coupons/${coupon.id}`, { body: { description: 'Spring sale', discount: { type: 'FIXED', currency: 'USD', amount: '7.5' }, plan_ids: [planB] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ description: 'Spring sale', discount: { type: 'FIXED', currency: 'USD', amount: '7.50' }, plan_ids: [planB], code: 'SPRING' });
    const foreignPlan = await createPlan(h.other.apiKey);
    const foreign = await h.request('PATCH', `/api/v1/coupons/${coupon.id}`, { body: { plan_ids: [foreignPlan] } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toBe(`plan_ids[0] '${foreignPlan}' is not a plan of this tenant`);
    for (const field of ['code', 'expires_at', 'redemption_limit', 'recurring_value', 'reusable']) {
      const bad = await h.request('PATCH', `/api/v1/coupons/${coupon.id}`, { body: { [field]: null } });
      expect(bad.statusCode, field).toBe(400);
      expect(bad.json()).toEqual({ code: 'BAD_REQUEST', message: `${field} is immutable: only description, discount and plan_ids can be changed` });
    }
    const badDiscount = await h.request('PATCH', `/api/v1/coupons/${coupon.id}`, { body: { discount: { type: 'PERCENTAGE', percentage: '101' } } });
    expect(badDiscount.statusCode).toBe(400);
    expect(await eventTypes(coupon.id)).toEqual(['coupon.created', 'coupon.updated']);
  });

  it('disables, enables, archives and unarchives, with the status filters of the list', async () => {
    const h = harness();
    const coupon = (await createCoupon({ code: 'FLAGS', discount: { type: 'PERCENTAGE', percentage: '15' } })).json();
    const act = async (action: string) => (await h.request('POST', `/api/v1/coupons/${coupon.id}/${action}`)).statusCode;
    const listed = async (filter: string) =>
      (await h.request('GET', `/api/v1/coupons?filter=${filter}&search=FLAGS`)).json().data.map((c: { id: string }) => c.id);
    expect(await listed('ACTIVE')).toEqual([coupon.id]);
    expect(await act('disable')).toBe(204);
    expect(await act('disable')).toBe(204);
    expect((await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json().disabled).toBe(true);
    expect(await listed('ACTIVE')).toEqual([]);
    expect(await listed('INACTIVE')).toEqual([coupon.id]);
    expect(await act('enable')).toBe(204);
    expect(await act('archive')).toBe(204);
    expect((await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json().archived_at).toBe(h.clock.now().toISOString());
    expect(await listed('ARCHIVED')).toEqual([coupon.id]);
    expect(await listed('INACTIVE')).toEqual([]);
    expect(await listed('ALL')).toEqual([coupon.id]);
    expect(await act('unarchive')).toBe(204);
    expect(await listed('ACTIVE')).toEqual([coupon.id]);
    expect(await eventTypes(coupon.id)).toEqual(['coupon.created', 'coupon.updated', 'coupon.updated', 'coupon.archived', 'coupon.updated']);
  });

  it('lists with order, paging, search and validation errors', async () => {
    const h = harness();
    for (const [code, expires] of [['LIST-B', '2027-01-01T00:00:00Z'], ['LIST-A', null], ['LIST-C', '2026-06-01T00:00:00Z']] as const) {
      h.clock.advance(1000);
      await createCoupon({ code, discount: { type: 'PERCENTAGE', percentage: '5' }, expires_at: expires });
    }
    const page0 = (await h.request('GET', '/api/v1/coupons?search=LIST-&per_page=2')).json();
    expect(page0.pagination_meta).toEqual({ page: 0, per_page: 2, total_items: 3, total_pages: 2 });
    expect(page0.data.map((c: { code: string }) => c.code)).toEqual(['LIST-C', 'LIST-A']);
    const byCode = (await h.request('GET', '/api/v1/coupons?search=list-&order_by=code.asc')).json();
    expect(byCode.data.map((c: { code: string }) => c.code)).toEqual(['LIST-A', 'LIST-B', 'LIST-C']);
    const byExpiry = (await h.request('GET', '/api/v1/coupons?search=LIST-&order_by=expires_at.asc')).json();
    expect(byExpiry.data.map((c: { code: string }) => c.code)).toEqual(['LIST-C', 'LIST-B', 'LIST-A']);
    // Once the clock passes LIST-C's expiry it is INACTIVE.
    h.clock.set('2026-07-01T00:00:00Z');
    const inactive = (await h.request('GET', '/api/v1/coupons?search=LIST-&filter=INACTIVE')).json();
    expect(inactive.data.map((c: { code: string }) => c.code)).toEqual(['LIST-C']);
    h.clock.set('2026-03-15T12:00:00Z');
    for (const query of ['filter=EXPIRED', 'order_by=discount.asc', 'per_page=500']) {
      const res = await h.request('GET', `/api/v1/coupons?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toMatch(/filter|order_by|per_page/);
    }
  });

  it('validates and records redemptions for the subscriptions module', async () => {
    const h = harness();
    const pool = h.db.pool;
    const tenantId = h.tenant.id;
    const planOk = await createPlan();
    const coupon = (await createCoupon({
      code: 'ONCE', discount: { type: 'FIXED', currency: 'EUR', amount: '5' }, redemption_limit: 2, expires_at: '2026-04-01T00:00:00Z', plan_ids: [planOk],
    })).json();
    const at = h.clock.now();
    expect((await checkCouponApplicable(pool, tenantId, 'once', { at, currency: 'EUR', planId: planOk })).id).toBe(coupon.id);
    await expect(checkCouponApplicable(pool, tenantId, 'ONCE', { at, currency: 'USD' })).rejects.toThrow("coupon_code: coupon 'ONCE' is in EUR, the subscription in USD");
    await expect(checkCouponApplicable(pool, tenantId, 'ONCE', { at, planId: 'plan_OTHER' })).rejects.toThrow("does not apply to plan 'plan_OTHER'");
    await expect(checkCouponApplicable(pool, tenantId, 'ONCE', { at: new Date('2026-04-01T00:00:00Z') })).rejects.toThrow('expired at 2026-04-01T00:00:00.000Z');
    await expect(checkCouponApplicable(pool, h.other.id, 'ONCE', { at })).rejects.toThrow("coupon_code 'ONCE' is not a coupon of this tenant");

    const redeemed = await withTx(pool, (tx) => redeemCoupon(tx, tenantId, coupon.id, { at, customerId: 'cus_1', subscriptionId: 'sub_1' }));
    expect(redeemed.redemption_count).toBe(1);
    // Not reusable: the same customer cannot redeem it again.
    await expect(withTx(pool, (tx) => redeemCoupon(tx, tenantId, 'ONCE', { at, customerId: 'cus_1' }))).rejects.toThrow('already redeemed by this customer');
    // A redemption rolled back with its caller's transaction leaves no trace.
    await expect(withTx(pool, async (tx) => {
      await redeemCoupon(tx, tenantId, 'ONCE', { at, customerId: 'cus_2' });
      throw new Error('subscription creation failed');
    })).rejects.toThrow('subscription creation failed');
    expect((await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json().redemption_count).toBe(1);
    await withTx(pool, (tx) => redeemCoupon(tx, tenantId, 'ONCE', { at, customerId: 'cus_2' }));
    const exhausted = (await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json();
    expect(exhausted).toMatchObject({ redemption_count: 2, last_redemption_at: at.toISOString() });
    await expect(withTx(pool, (tx) => redeemCoupon(tx, tenantId, 'ONCE', { at, customerId: 'cus_3' }))).rejects.toThrow('reached its redemption limit of 2');
    // Once redeemed, a fixed coupon keeps its currency.
    const change = await h.request('PATCH', `/api/v1/coupons/${coupon.id}`, { body: { discount: { type: 'FIXED', currency: 'USD', amount: '5' } } });
    expect(change.statusCode).toBe(400);
    expect(change.json().message).toContain('discount cannot change type or currency');

    await h.request('POST', `/api/v1/coupons/${(await createCoupon({ code: 'OFF', discount: { type: 'PERCENTAGE', percentage: '5' } })).json().id}/disable`);
    await expect(checkCouponApplicable(pool, tenantId, 'OFF', { at }, 'coupon_codes[0]')).rejects.toThrow("coupon_codes[0]: coupon 'OFF' is disabled");
  });

  it('is invisible to another tenant', async () => {
    const h = harness();
    const coupon = (await createCoupon({ code: 'MINE', discount: { type: 'PERCENTAGE', percentage: '5' } })).json();
    for (const [method, url] of [
      ['GET', `/api/v1/coupons/${coupon.id}`],
      ['PATCH', `/api/v1/coupons/${coupon.id}`],
      ...['archive', 'unarchive', 'disable', 'enable'].map((a) => ['POST', `/api/v1/coupons/${coupon.id}/${a}`]),
    ] as Array<['GET' | 'PATCH' | 'POST', string]>) {
      const res = await h.request(method, url, { key: h.other.apiKey, ...(method === 'PATCH' ? { body: { description: 'x' } } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'coupon not found' });
    }
    expect((await h.request('GET', '/api/v1/coupons?search=MINE', { key: h.other.apiKey })).json().data).toEqual([]);
    expect((await createCoupon({ code: 'MINE', discount: { type: 'PERCENTAGE', percentage: '5' } }, h.other.apiKey)).statusCode).toBe(201);
    expect((await h.request('GET', `/api/v1/coupons/${coupon.id}`)).json()).toEqual(coupon);
  });
});
