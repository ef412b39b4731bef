import { describe, expect, it } from 'vitest';
import { componentUsageOf, convertUsage } from '../../src/modules/invoices/billing/context.js';
import { feeOf, toEngineSnapshot, usagePricingOf } from '../../src/modules/invoices/billing/mapping.js';
import type { SubscriptionRecord } from '../../src/modules/subscriptions/index.js';

type Sub = SubscriptionRecord['subscription'];

function source(overrides: Partial<Sub> = {}, rest: Partial<Omit<SubscriptionRecord, 'subscription'>> = {}): SubscriptionRecord {
  const subscription = {
    id: 'sub_1', customer_id: 'cus_1', plan_version_id: 'plv_1', plan_name: 'Pro', currency: 'EUR', status: 'ACTIVE',
    start_date: '2026-01-10', end_date: null, billing_start_date: '2026-01-10', billing_day_anchor: 1,
    period: 'MONTHLY', net_terms: 15, trial_end_date: null, trial_is_free: false, skip_past_invoices: false, cancel_effective_date: null,
    created_at: new Date('2026-03-05T23:30:00Z'), invoice_memo: null, purchase_order: null, auto_advance_invoices: true,
    customer_name: 'C', customer_alias: null,
    ...overrides,
  } as Sub;
  return { subscription, components: [], addOns: [], coupons: [], ...rest };
}

const component = (id: string, fee: SubscriptionRecord['components'][number]['fee'], extra: Partial<SubscriptionRecord['components'][number]> = {}) => ({
  id, subscription_id: 'sub_1', price_component_id: `price_${id}`, product_id: `prd_${id}`, name: id.toUpperCase(), fee,
  period: 'MONTHLY' as const, position: 0, effective_from: '2026-01-10', effective_to: null, created_at: new Date(0), ...extra,
});

describe('subscription snapshot -> engine snapshot', () => {
  it('maps dates, trial, cancellation, terms and the import day (creation day, UTC)', () => {
    const { snapshot, dueOptions } = toEngineSnapshot(
      source({ trial_end_date: '2026-01-24', trial_is_free: true, billing_start_date: '2026-01-24', end_date: '2027-01-10', cancel_effective_date: '2026-06-15', skip_past_invoices: true }),
      { taxInclusive: true, minimumCommitment: '100.00' },
    );
    expect(snapshot).toMatchObject({
      subscriptionId: 'sub_1', currency: 'EUR', startDate: '2026-01-10', billingStartDate: '2026-01-24', billingDayAnchor: 1, netTerms: 15,
      trial: { endDate: '2026-01-24', isFree: true }, endDate: '2027-01-10', cancellation: { effectiveDate: '2026-06-15' },
      minimumCommitment: '100.00', taxInclusive: true, components: [], coupons: [],
    });
    expect(dueOptions).toEqual({ skipPastInvoices: true, importedOn: '2026-03-05' });
  });

  it('orders plan components by plan position (not id), then rows by date, then add-ons; multiplies add-on quantities', () => {
    const { snapshot } = toEngineSnapshot(
      source({}, {
        components: [
          component('b2', { type: 'SLOT', unit: 'seat', unit_rate: '10.00', initial_slots: 5, min_slots: 1, max_slots: null }, { price_component_id: 'price_b', position: 1, effective_from: '2026-02-15' }),
          component('c', { type: 'RATE', rate: '49.00' }, { position: 0 }),
          component('b1', { type: 'SLOT', unit: 'seat', unit_rate: '10.00', initial_slots: 3, min_slots: 1, max_slots: null }, { price_component_id: 'price_b', position: 1, effective_to: '2026-02-15' }),
        ],
        addOns: [
          { ...component('add', { type: 'RATE', rate: '5.50' }), add_on_id: 'add_1', price_id: null, quantity: 3 },
          { ...component('add0', { type: 'ONE_TIME', rate: '20', quantity: 2 }), add_on_id: 'add_0', price_id: null, quantity: 2, period: 'ONE_TIME' as const },
        ],
      }),
      { taxInclusive: false, minimumCommitment: null },
    );
    expect(snapshot.components.map((c) => [c.id, c.name, c.effectiveFrom, c.effectiveTo ?? null, c.fee])).toEqual([
      ['c', 'C', '2026-01-10', null, { kind: 'RATE', price: '49.00' }],
      ['b1', 'B1 (seat)', '2026-01-10', '2026-02-15', { kind: 'SLOT', unitPrice: '10.00', quantity: 3 }],
      ['b2', 'B2 (seat)', '2026-02-15', null, { kind: 'SLOT', unitPrice: '10.00', quantity: 5 }],
      ['add', 'ADD', '2026-01-10', null, { kind: 'EXTRA_RECURRING', quantity: '3', unitPrice: '5.50', billing: 'ADVANCE' }],
      ['add0', 'ADD0', '2026-01-10', null, { kind: 'ONE_TIME', quantity: '4', unitPrice: '20' }],
    ]);
  });

  it.each([
    ['capacity x2 add-on', { type: 'CAPACITY', rate: '12.25', included: 1000, overage_rate: '0.01', metric_id: 'bm_1' }, 2,
      { kind: 'CAPACITY', metricId: 'bm_1', includedQuantity: '2000', basePrice: '24.50', overageUnitPrice: '0.01' }],
    ['extra recurring in arrears', { type: 'RECURRING', rate: '3.00', quantity: 2, billing_type: 'ARREARS' }, 1,
      { kind: 'EXTRA_RECURRING', quantity: '2', unitPrice: '3.00', billing: 'ARREARS' }],
    ['per-unit usage', { type: 'USAGE', metric_id: 'bm_2', model: { type: 'PER_UNIT', rate: '0.002' } }, 1,
      { kind: 'USAGE', metricId: 'bm_2', pricing: { model: 'PER_UNIT', unitPrice: '0.002' } }],
  ] as const)('fee: %s', (_name, fee, quantity, expected) => {
    expect(feeOf(fee as never, quantity)).toEqual(expected);
  });

  it('maps every usage pricing model (tiers sorted by first unit, package rounding, matrix cells)', () => {
    expect(usagePricingOf({ type: 'TIERED', block_size: null, tiers: [{ first_unit: 100, rate: '0.05', flat_fee: null, flat_cap: null }, { first_unit: 0, rate: '0.10', flat_fee: '1', flat_cap: '9' }] })).toEqual({
      model: 'TIERED', tiers: [{ firstUnit: '0', unitPrice: '0.10', flatFee: '1', flatCap: '9' }, { firstUnit: '100', unitPrice: '0.05', flatFee: null, flatCap: null }],
    });
    expect(usagePricingOf({ type: 'PACKAGE', block_size: 1000, rate: '2.00', rounding: 'DOWN' })).toEqual({ model: 'PACKAGE', blockSize: '1000', pricePerBlock: '2.00', partialBlock: 'DOWN' });
    expect(usagePricingOf({ type: 'MATRIX', rates: [
      { dimension1: { key: 'region', value: 'eu' }, dimension2: { key: 'cpu', value: 'gpu' }, per_unit_price: '0.5' },
      { dimension1: { key: 'region', value: 'us' }, dimension2: null, per_unit_price: '0.4' },
    ] })).toEqual({ model: 'MATRIX', cells: [{ dimensions: { region: 'eu', cpu: 'gpu' }, unitPrice: '0.5' }, { dimensions: { region: 'us' }, unitPrice: '0.4' }] });
  });

  it('coupons: invoices remaining = recurring limit - uses, never below 0; inactive ones left out', () => {
    const coupon = (id: string, recurring: number | null, discount: Record<string, string>, active = true) => ({
      id: `sc_${id}`, subscription_id: 'sub_1', coupon_id: id, coupon: { id, code: id.toUpperCase(), recurring_value: recurring, discount }, is_active: active,
      applied_count: 0, applied_amount: null, last_applied_at: null, created_at: new Date(0),
    });
    const { snapshot } = toEngineSnapshot(
      source({}, { coupons: [
        coupon('c1', 2, { type: 'PERCENTAGE', percentage: '10' }),
        coupon('c2', 1, { type: 'FIXED', amount: '5.00', currency: 'EUR' }),
        coupon('c3', null, { type: 'PERCENTAGE', percentage: '50' }),
        coupon('c4', null, { type: 'PERCENTAGE', percentage: '50' }, false),
      ] }),
      { taxInclusive: false, minimumCommitment: null },
      { c1: 1, c2: 3 },
    );
    expect(snapshot.coupons).toEqual([
      { couponId: 'c1', name: 'Coupon (C1)', invoicesRemaining: 1, kind: 'PERCENTAGE', percent: '10' },
      { couponId: 'c2', name: 'Coupon (C2)', invoicesRemaining: 0, kind: 'FIXED', amount: '5.00', currency: 'EUR' },
      { couponId: 'c3', name: 'Coupon (C3)', invoicesRemaining: null, kind: 'PERCENTAGE', percent: '50' },
    ]);
  });
});

describe('usage for the engine', () => {
  it.each([
    ['no conversion', '1234.5', null, '1234.5'],
    ['bytes to GB rounded up', '1500000001', { factor: 1_000_000_000, rounding: 'UP' }, '2'],
    ['down', '1999', { factor: 1000, rounding: 'DOWN' }, '1'],
    ['nearest: half goes up', '2500', { factor: 1000, rounding: 'NEAREST' }, '3'],
    ['nearest half', '1240', { factor: 1000, rounding: 'NEAREST_HALF' }, '1'],
    ['nearest half up', '1250', { factor: 1000, rounding: 'NEAREST_HALF' }, '1.5'],
    ['nearest decile', '1249', { factor: 1000, rounding: 'NEAREST_DECILE' }, '1.2'],
    ['none keeps the quotient', '1', { factor: 8, rounding: 'NONE' }, '0.125'],
    ['zero usage', '0', { factor: 1000, rounding: 'UP' }, '0'],
  ] as const)('unit conversion: %s', (_name, value, conversion, expected) => {
    expect(convertUsage(value, conversion as never)).toBe(expected);
  });

  it('projects usage groups on the matrix dimensions, summing the rest, then converts each group', () => {
    const query = { componentId: 'c', metricId: 'bm', periodStart: '2026-01-01', periodEnd: '2026-02-01', groupBy: ['region'] };
    const figures = { totalValue: '3500', groups: [
      { dimensions: { region: 'eu', project: 'a' }, value: '1000' },
      { dimensions: { region: 'eu', project: 'b' }, value: '1500' },
      { dimensions: { region: 'us', project: 'a' }, value: '1000' },
    ] };
    expect(componentUsageOf(query, figures, { factor: 1000, rounding: 'UP' })).toEqual([
      { dimensions: { region: 'eu' }, quantity: '3' },
      { dimensions: { region: 'us' }, quantity: '1' },
    ]);
    expect(componentUsageOf({ ...query, groupBy: [] }, figures, null)).toBe('3500');
  });
});
