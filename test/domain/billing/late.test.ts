import { describe, expect, it } from 'vitest';
import {
  computeSubscriptionInvoice, invoicesDue, lateUsageLines, type BilledUsage, type ComponentUsage, type SnapshotComponent, type SubscriptionSnapshot,
} from '../../../src/domain/billing/index.js';
import { BillingRuleError } from '../../../src/domain/errors.js';
import { component, FR_CUSTOMER, FR_ENTITY, NO_TAX_CUSTOMER, perUnit, rate, snapshot } from './fixtures.js';

const occasionOn = (snap: SubscriptionSnapshot, date: string) => {
  const occasion = invoicesDue(snap, [], date).find((o) => o.invoiceDate === date);
  if (!occasion) throw new Error(`no occasion on ${date}`);
  return occasion;
};

const tiers = [
  { firstUnit: '0', unitPrice: '0.10' },
  { firstUnit: '100', unitPrice: '0.05' },
];
const tiered = component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'TIERED', tiers } }, { name: 'API calls' });
const volume = component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'VOLUME', tiers: tiers.map((t) => ({ ...t, flatFee: null })) } }, { name: 'API calls' });

/** What February's invoice (January's usage in arrears) records as billed for `usage`. */
function billedJanuary(snap: SubscriptionSnapshot, usage: ComponentUsage): BilledUsage {
  const result = computeSubscriptionInvoice(snap, occasionOn(snap, '2024-02-01'), { api: usage }, NO_TAX_CUSTOMER, FR_ENTITY);
  expect(result.billedUsage).toHaveLength(1);
  return result.billedUsage[0]!;
}

/** Late lines as [name, amountMinor after assembly, quantity, periodStart, periodEnd], through the invoice math. */
function lateOnMarch(snap: SubscriptionSnapshot, billed: BilledUsage, usageNow: ComponentUsage) {
  const late = lateUsageLines(snap, [{ billed, usage: usageNow }]);
  const march = computeSubscriptionInvoice(snap, occasionOn(snap, '2024-03-01'), { api: '0' }, NO_TAX_CUSTOMER, FR_ENTITY, { extraLines: late.lines });
  const lines = march.invoice.lines.filter((line) => line.name.includes('late usage')).map((l) => [l.name, l.amountMinor, l.quantity?.toString(), l.periodStart, l.periodEnd]);
  return { lines, billed: late.billed, march };
}

describe('late usage: price(all usage now) - what was billed', () => {
  it.each<[string, SnapshotComponent, string, string, bigint, string]>([
    // 80 billed 8.00; 120 in all: 100 x 0.10 + 20 x 0.05 = 11.00, so 3.00 late (40 x 0.10 would be 4.00)
    ['tiered (graduated)', tiered, '80', '120', 300n, '40'],
    // volume: 80 at 0.10 = 8.00; 120 in all at 0.05 = 6.00, so the late line is a credit of 2.00
    ['volume', volume, '80', '120', -200n, '40'],
    // 0.003 a unit: 1 billed 0.00 (0.003 rounded), 2 in all 0.01
    ['per unit', component('api', perUnit('m1', '0.003'), { name: 'API calls' }), '1', '2', 1n, '1'],
    // blocks of 100 rounded up: 150 and 190 are both 2 blocks, so nothing more to bill
    ['package', component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'PACKAGE', blockSize: '100', pricePerBlock: '7.00' } }, { name: 'API calls' }), '150', '190', 0n, ''],
  ])('%s', (_name, fee, billedUsage, usageNow, lateMinor, lateQuantity) => {
    const snap = snapshot([component('plan', rate('20.00')), fee]);
    const billed = billedJanuary(snap, billedUsage);
    const { lines, billed: after } = lateOnMarch(snap, billed, usageNow);
    expect(lines).toEqual(lateMinor === 0n ? [] : [['API calls: late usage of 2024-01-01 to 2024-01-31', lateMinor, lateQuantity, '2024-01-01', '2024-02-01']]);
    // billed once more usage arrives: what was billed plus the late line is the price of all of it
    expect(after).toEqual([{ ...billed, usage: usageNow, billedMinor: billed.billedMinor + lateMinor }]);
    expect(lateUsageLines(snap, [{ billed: after[0]!, usage: usageNow }]).lines).toEqual([]);
  });

  it('rounds once: the late minor units are the whole price rounded, less what was billed', () => {
    // 0.005 a unit: 1 unit billed 0.01 (0.005 rounded half away from zero), 2 in all 0.01: no line
    const snap = snapshot([component('api', perUnit('m1', '0.005'), { name: 'API calls' })]);
    const billed = billedJanuary(snap, '1');
    expect(billed.billedMinor).toBe(1n);
    expect(lateOnMarch(snap, billed, '2').lines).toEqual([]);
    expect(lateOnMarch(snap, billed, '3').lines.map((l) => l[1])).toEqual([1n]); // 0.015 -> 0.02
  });

  it('is taxed with the invoice that carries it, and does not count toward its minimum commitment', () => {
    const snap = snapshot([component('plan', rate('20.00')), tiered], { minimumCommitment: '30.00' });
    const billed = billedJanuary(snap, '80');
    const late = lateUsageLines(snap, [{ billed, usage: '120' }]);
    const march = computeSubscriptionInvoice(snap, occasionOn(snap, '2024-03-01'), { api: '0' }, FR_CUSTOMER, FR_ENTITY, { extraLines: late.lines });
    // March's own lines: 20.00 plan + 0.00 usage; commitment 30.00 tops up 10.00 whatever the late 3.00
    expect(march.invoice.lines.map((l) => [l.name, l.amountMinor, l.taxMinor])).toEqual([
      ['plan', 2000n, 400n],
      ['API calls', 0n, 0n],
      ['API calls: late usage of 2024-01-01 to 2024-01-31', 300n, 60n],
      ['Minimum commitment', 1000n, 200n],
    ]);
    expect(march.billedUsage.map((b) => [b.periodStart, b.billedMinor])).toEqual([['2024-02-01', 0n]]); // late windows are returned by lateUsageLines
  });

  it('prices matrix usage per cell, and capacity overage with the included quantity of its window', () => {
    const matrix = component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'MATRIX', cells: [{ dimensions: { region: 'eu' }, unitPrice: '0.02' }, { dimensions: { region: 'us' }, unitPrice: '0.03' }] } }, { name: 'Compute' });
    const snapM = snapshot([matrix]);
    const billedM = billedJanuary(snapM, [{ dimensions: { region: 'eu' }, quantity: '100' }]);
    const lateM = lateUsageLines(snapM, [{ billed: billedM, usage: [{ dimensions: { region: 'eu' }, quantity: '100' }, { dimensions: { region: 'us' }, quantity: '10' }] }]);
    expect(lateM.lines.map((l) => [l.input.amount.toString(), l.input.quantity?.toString()])).toEqual([['0.3', '10']]);

    const capacity = component('api', { kind: 'CAPACITY', metricId: 'm1', includedQuantity: '1000', basePrice: '50.00', overageUnitPrice: '0.01' }, { name: 'Storage' });
    const snapC = snapshot([capacity], { startDate: '2024-01-16' }); // January is a 16-of-31-day window: 516.129.. included
    const billedC = computeSubscriptionInvoice(snapC, occasionOn(snapC, '2024-02-01'), { api: '500' }, NO_TAX_CUSTOMER, FR_ENTITY).billedUsage[0]!;
    expect(billedC).toMatchObject({ periodStart: '2024-01-16', periodEnd: '2024-02-01', billedMinor: 0n });
    const lateC = lateUsageLines(snapC, [{ billed: billedC, usage: '600' }]);
    // overage (600 - 516.129..) x 0.01 = 0.838.. -> 0.84
    expect(lateC.lines.map((l) => [l.input.name, l.input.amount.toString()])).toEqual([['Storage (overage): late usage of 2024-01-16 to 2024-01-31', '0.84']]);
  });

  it('refuses a window whose fee the subscription no longer has, naming it', () => {
    const snap = snapshot([component('plan', rate('20.00')), tiered]);
    const billed = billedJanuary(snap, '80');
    const without = snapshot([component('plan', rate('20.00'))]);
    expect(() => lateUsageLines(without, [{ billed, usage: '90' }])).toThrow(BillingRuleError);
    expect(() => lateUsageLines(without, [{ billed, usage: '90' }])).toThrow('late usage of component api for [2024-01-01, 2024-02-01) cannot be priced');
  });
});
