import { describe, expect, it } from 'vitest';
import { computeSubscriptionInvoice, invoicesDue, usageQueries, type ComponentUsage, type SnapshotComponent, type SubscriptionSnapshot } from '../../../src/domain/billing/index.js';
import { BillingRuleError } from '../../../src/domain/errors.js';
import type { TaxCustomer } from '../../../src/domain/tax.js';
import { component, FR_CUSTOMER, FR_ENTITY, NO_TAX_CUSTOMER, perUnit, rate, slot, snapshot } from './fixtures.js';

const occasionOn = (snap: SubscriptionSnapshot, date: string) => {
  const occasion = invoicesDue(snap, [], date).find((o) => o.invoiceDate === date);
  if (!occasion) throw new Error(`no occasion on ${date}`);
  return occasion;
};
const compute = (snap: SubscriptionSnapshot, date: string, usage: Record<string, ComponentUsage> = {}, customer: TaxCustomer = NO_TAX_CUSTOMER) =>
  computeSubscriptionInvoice(snap, occasionOn(snap, date), usage, customer, FR_ENTITY);
const lines = (result: ReturnType<typeof compute>) =>
  result.invoice.lines.map((l) => [l.name, l.category, l.periodStart, l.periodEnd, l.amountMinor]);

const tiers = [
  { firstUnit: '0', unitPrice: '1.00', flatFee: '5.00' },
  { firstUnit: '100', unitPrice: '0.50', flatFee: '10.00' },
  { firstUnit: '1000', unitPrice: '0.10' },
];

describe('computeSubscriptionInvoice: renewal with usage in arrears', () => {
  const base = component('plan', rate('20.00'), { name: 'Pro plan' });
  it.each<[string, SnapshotComponent, ComponentUsage, bigint, [string, string, bigint][]]>([
    ['per unit', component('api', perUnit('m1', '0.10'), { name: 'API calls' }), '1234', 12340n, []],
    ['per unit, zero usage: a zero line', component('api', perUnit('m1', '0.10'), { name: 'API calls' }), '0', 0n, []],
    ['tiered graduated with flat fees', component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'TIERED', tiers } }, { name: 'API calls' }), '1500', 61500n,
      [['0 to 100', '100', 10500n], ['100 to 1000', '900', 46000n], ['above 1000', '500', 5000n]]],
    ['tiered, exactly on the first tier edge', component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'TIERED', tiers } }, { name: 'API calls' }), '100', 10500n,
      [['0 to 100', '100', 10500n]]],
    ['volume: all units at the reached tier', component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'VOLUME', tiers: tiers.map((t) => ({ ...t, flatFee: null })) } }, { name: 'API calls' }), '1500', 15000n,
      [['above 1000', '1500', 15000n]]],
    ['package, partial block rounded up', component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'PACKAGE', blockSize: '100', pricePerBlock: '7.00' } }, { name: 'API calls' }), '250', 2100n,
      [['3 × 100 units', '3', 2100n]]],
  ])('%s', (_name, usageComponent, usage, usageMinor, subLines) => {
    const snap = snapshot([base, usageComponent]);
    const occasion = occasionOn(snap, '2024-02-01');
    expect(usageQueries(snap, occasion)).toEqual([{ componentId: 'api', metricId: 'm1', periodStart: '2024-01-01', periodEnd: '2024-02-01', groupBy: [] }]);
    const result = computeSubscriptionInvoice(snap, occasion, { api: usage }, NO_TAX_CUSTOMER, FR_ENTITY);
    expect(lines(result)).toEqual([
      ['Pro plan', 'RECURRING', '2024-02-01', '2024-03-01', 2000n],
      ['API calls', 'USAGE', '2024-01-01', '2024-02-01', usageMinor],
    ]);
    expect(result.lineDetails[1]!.subLines.map((s) => [s.name, s.quantity.toString(), s.totalMinor])).toEqual(subLines);
    expect(result.lineDetails[1]!.metricId).toBe('m1');
    expect(result.invoice.totalMinor).toBe(2000n + usageMinor);
  });

  it('matrix: one sub-line per priced cell, unknown groups reported', () => {
    const matrix = component('api', {
      kind: 'USAGE',
      metricId: 'm1',
      pricing: { model: 'MATRIX', cells: [{ dimensions: { region: 'eu' }, unitPrice: '0.02' }, { dimensions: { region: 'us' }, unitPrice: '0.03' }] },
    }, { name: 'Compute' });
    const snap = snapshot([matrix]);
    const occasion = occasionOn(snap, '2024-02-01');
    expect(usageQueries(snap, occasion)[0]!.groupBy).toEqual(['region']);
    const usage = [{ dimensions: { region: 'eu' }, quantity: '1000' }, { dimensions: { region: 'us' }, quantity: '500' }, { dimensions: { region: 'apac' }, quantity: '10' }];
    const result = computeSubscriptionInvoice(snap, occasion, { api: usage }, NO_TAX_CUSTOMER, FR_ENTITY);
    expect(lines(result)).toEqual([['Compute', 'USAGE', '2024-01-01', '2024-02-01', 3500n]]);
    expect(result.lineDetails[0]!.subLines.map((s) => [s.name, s.totalMinor])).toEqual([['eu', 2000n], ['us', 1500n]]);
    expect(result.unmatchedUsage.map((u) => u.group.dimensions)).toEqual([{ region: 'apac' }]);
  });

  it('missing usage is an error, never silently zero', () => {
    const snap = snapshot([component('api', perUnit('m1', '0.10'))]);
    expect(() => compute(snap, '2024-02-01', {})).toThrow(BillingRuleError);
  });

  it('quarterly usage on a monthly subscription is billed every third month over its quarter', () => {
    const snap = snapshot([component('plan', rate('10.00')), component('api', perUnit('m1', '0.10'), { term: 'QUARTERLY' })]);
    expect(usageQueries(snap, occasionOn(snap, '2024-03-01'))).toEqual([]);
    expect(usageQueries(snap, occasionOn(snap, '2024-04-01'))).toEqual([{ componentId: 'api', metricId: 'm1', periodStart: '2024-01-01', periodEnd: '2024-04-01', groupBy: [] }]);
  });
});

describe('computeSubscriptionInvoice: fixed fees', () => {
  it('capacity: base in advance, overage above the commitment in arrears', () => {
    const cap = component('cap', { kind: 'CAPACITY', metricId: 'm1', includedQuantity: '1000', basePrice: '50.00', overageUnitPrice: '0.05' }, { name: 'Storage' });
    const snap = snapshot([cap]);
    expect(lines(compute(snap, '2024-01-01'))).toEqual([['Storage', 'RECURRING', '2024-01-01', '2024-02-01', 5000n]]);
    expect(lines(compute(snap, '2024-02-01', { cap: '1500' }))).toEqual([
      ['Storage', 'RECURRING', '2024-02-01', '2024-03-01', 5000n],
      ['Storage (overage)', 'USAGE', '2024-01-01', '2024-02-01', 2500n],
    ]);
    expect(lines(compute(snap, '2024-02-01', { cap: '900' }))[1]![4]).toBe(0n);
  });

  it('capacity on a first partial period: base and included units prorated alike', () => {
    const cap = component('cap', { kind: 'CAPACITY', metricId: 'm1', includedQuantity: '3100', basePrice: '50.00', overageUnitPrice: '0.01' }, { name: 'Storage' });
    const snap = snapshot([cap], { startDate: '2024-01-15' });
    // base 50 × 17/31 = 27.419..; included 3100 × 17/31 = 1700, usage 2000 -> 300 × 0.01
    expect(lines(compute(snap, '2024-01-15'))).toEqual([['Storage', 'RECURRING', '2024-01-15', '2024-02-01', 2742n]]);
    expect(lines(compute(snap, '2024-02-01', { cap: '2000' }))[1]).toEqual(['Storage (overage)', 'USAGE', '2024-01-15', '2024-02-01', 300n]);
  });

  it('extra recurring in advance vs in arrears; slots; one-time only on the first invoice', () => {
    const snap = snapshot([
      component('adv', { kind: 'EXTRA_RECURRING', quantity: '2', unitPrice: '5.00', billing: 'ADVANCE' }),
      component('arr', { kind: 'EXTRA_RECURRING', quantity: '3', unitPrice: '4.00', billing: 'ARREARS' }),
      component('seats', slot('10.00', 3)),
      component('setup', { kind: 'ONE_TIME', quantity: '1', unitPrice: '100.00' }),
    ]);
    expect(lines(compute(snap, '2024-01-01'))).toEqual([
      ['adv', 'RECURRING', '2024-01-01', '2024-02-01', 1000n],
      ['seats', 'RECURRING', '2024-01-01', '2024-02-01', 3000n],
      ['setup', 'ONE_TIME', '2024-01-01', '2024-01-01', 10000n],
    ]);
    expect(lines(compute(snap, '2024-02-01'))).toEqual([
      ['adv', 'RECURRING', '2024-02-01', '2024-03-01', 1000n],
      ['seats', 'RECURRING', '2024-02-01', '2024-03-01', 3000n],
      ['arr', 'RECURRING', '2024-01-01', '2024-02-01', 1200n],
    ]);
    const seats = compute(snap, '2024-01-01').invoice.lines[1]!;
    expect([seats.quantity?.toString(), seats.unitPrice?.toString()]).toEqual(['3', '10']);
  });
});

describe('computeSubscriptionInvoice: coupons, commitment, tax', () => {
  const plan = component('plan', rate('100.00'));
  it.each<[string, number | null, bigint, string[]]>([
    ['limited coupon with invoices left', 1, 1000n, ['c10']],
    ['exhausted coupon', 0, 0n, []],
    ['forever coupon', null, 1000n, ['c10']],
  ])('%s', (_name, invoicesRemaining, discount, used) => {
    const snap = snapshot([plan], { coupons: [{ couponId: 'c10', name: 'WELCOME10', kind: 'PERCENTAGE', percent: '10', invoicesRemaining }] });
    const result = compute(snap, '2024-02-01');
    expect([result.invoice.discountMinor, result.invoice.totalMinor, result.couponsUsed]).toEqual([discount, 10000n - discount, used]);
  });

  it('100 % coupon: nothing due, a fixed coupon after it is skipped', () => {
    const snap = snapshot([plan], {
      coupons: [
        { couponId: 'all', kind: 'PERCENTAGE', percent: '100', invoicesRemaining: 3 },
        { couponId: 'five', kind: 'FIXED', amount: '5.00', currency: 'EUR', invoicesRemaining: null },
      ],
    });
    const result = compute(snap, '2024-02-01');
    expect([result.invoice.totalMinor, result.invoice.amountDueMinor, result.couponsUsed]).toEqual([0n, 0n, ['all']]);
  });

  it('minimum commitment: a line fills the shortfall after discounts', () => {
    const snap = snapshot([component('plan', rate('20.00')), component('api', perUnit('m1', '0.10'))], { minimumCommitment: '50.00' });
    const result = compute(snap, '2024-02-01', { api: '100' });
    expect(lines(result).map((l) => [l[0], l[4]])).toEqual([['plan', 2000n], ['api', 1000n], ['Minimum commitment', 2000n]]);
    expect(result.invoice.totalMinor).toBe(5000n);
    expect(result.lineDetails[2]!.componentId).toBeNull();
  });

  it('minimum commitment is prorated on a first partial period', () => {
    const snap = snapshot([component('plan', rate('20.00'))], { startDate: '2024-01-15', minimumCommitment: '50.00' });
    // 50 × 17/31 = 27.42; plan 20 × 17/31 = 10.97
    expect(lines(compute(snap, '2024-01-15')).map((l) => l[4])).toEqual([1097n, 1645n]);
  });

  it('no commitment shortfall when the period lines reach it', () => {
    const snap = snapshot([component('plan', rate('60.00'))], { minimumCommitment: '50.00' });
    expect(compute(snap, '2024-02-01').invoice.lines.map((l) => l.name)).toEqual(['plan']);
  });

  it.each([
    ['exclusive 20 %: 24.00 on top', false, FR_CUSTOMER, 12000n, 2400n, 14400n],
    ['tax-inclusive 20 %: the quoted 120.00 contains 20.00 of tax', true, FR_CUSTOMER, 10000n, 2000n, 12000n],
    ['tax-inclusive, reverse charge 0 %: the customer still pays the quoted price', true, { country: 'DE', vatNumber: 'DE123456789' }, 12000n, 0n, 12000n],
    ['tax-inclusive, exempt 0 %', true, NO_TAX_CUSTOMER, 12000n, 0n, 12000n],
  ])('%s', (_name, taxInclusive, customer, subtotal, tax, total) => {
    const snap = snapshot([component('plan', rate('120.00'))], { taxInclusive });
    const invoice = compute(snap, '2024-02-01', {}, customer).invoice;
    expect([invoice.subtotalMinor, invoice.taxMinor, invoice.totalMinor]).toEqual([subtotal, tax, total]);
  });
});
