import { describe, expect, it } from 'vitest';
import {
  accruedUsageMinor, computeSubscriptionInvoice, computeThresholdInvoice, crossingAt, invoicesDue, thresholdLevelMinor, thresholdWindowKey, validateThresholds,
  type ComputedSubscriptionInvoice, type SpendThreshold, type SubscriptionSnapshot, type ThresholdBilled,
} from '../../../src/domain/billing/index.js';
import { BillingRuleError } from '../../../src/domain/errors.js';
import { component, FR_CUSTOMER, FR_ENTITY, perUnit, rate, snapshot } from './fixtures.js';

const fixed = (amountMinor: bigint): SpendThreshold => ({ amountMinor, recurring: false, displayName: null });
const every = (amountMinor: bigint): SpendThreshold => ({ amountMinor, recurring: true, displayName: null });

describe('crossingAt: which crossing an accrued amount has reached', () => {
  const hundredThenEvery500 = [every(50000n), fixed(10000n)];
  it.each<[string, SpendThreshold[], bigint, [number, bigint] | null]>([
    ['nothing accrued', hundredThenEvery500, 0n, null],
    ['one cent below the first', hundredThenEvery500, 9999n, null],
    ['exactly the first: reached', hundredThenEvery500, 10000n, [1, 10000n]],
    ['between the first and the first step', hundredThenEvery500, 59999n, [1, 10000n]],
    ['first recurring step (100 + 500)', hundredThenEvery500, 60000n, [2, 60000n]],
    ['several steps at once: the highest reached', hundredThenEvery500, 250000n, [5, 210000n]],
    ['recurring only: from zero', [every(50000n)], 100000n, [2, 100000n]],
    ['fixed only, past the last: stays on the last', [fixed(30000n), fixed(10000n)], 100000n, [2, 30000n]],
    ['fixed only, between', [fixed(10000n), fixed(30000n)], 20000n, [1, 10000n]],
    ['no thresholds', [], 100000n, null],
  ])('%s', (_name, thresholds, accrued, expected) => {
    const crossing = crossingAt(thresholds, accrued);
    expect(crossing === null ? null : [crossing.index, crossing.levelMinor]).toEqual(expected);
    if (crossing) expect(thresholdLevelMinor(thresholds, crossing.index)).toBe(crossing.levelMinor);
  });

  it('levels: fixed ascending, then the highest fixed plus steps; none past fixed-only lists', () => {
    const list = [fixed(30000n), every(50000n), fixed(10000n)];
    expect([1, 2, 3, 4].map((i) => thresholdLevelMinor(list, i))).toEqual([10000n, 30000n, 80000n, 130000n]);
    expect(thresholdLevelMinor([fixed(10000n)], 2)).toBeNull();
  });

  it.each<[string, SpendThreshold[]]>([
    ['zero amount', [fixed(0n)]],
    ['two recurring', [every(100n), every(200n)]],
    ['fixed amounts repeated', [fixed(100n), fixed(100n)]],
  ])('refuses %s', (_name, list) => {
    expect(() => validateThresholds(list)).toThrow(BillingRuleError);
  });
});

// The period [2024-01-01, 2024-02-01) of a monthly plan: 20.00 in advance and a graduated metric
// (first 100 units at 1.00 with a 5.00 flat fee, up to 1000 at 0.50 with 10.00, then 0.10).
const tiers = [
  { firstUnit: '0', unitPrice: '1.00', flatFee: '5.00' },
  { firstUnit: '100', unitPrice: '0.50', flatFee: '10.00' },
  { firstUnit: '1000', unitPrice: '0.10' },
];
const graduated = component('api', { kind: 'USAGE', metricId: 'm1', pricing: { model: 'TIERED', tiers } }, { name: 'API calls' });
const calls = component('calls', perUnit('m2', '0.0333'), { name: 'Calls' });

function occasionOf(snap: SubscriptionSnapshot, date: string) {
  return invoicesDue(snap, [], date).find((o) => o.invoiceDate === date)!;
}

/** What a threshold invoice adds to the windows' sums (as the invoices module reads them back from its lines). */
function addBilled(before: Map<string, ThresholdBilled>, invoice: ComputedSubscriptionInvoice): Map<string, ThresholdBilled> {
  const next = new Map(before);
  invoice.invoice.lines.forEach((line, i) => {
    const key = thresholdWindowKey(invoice.lineDetails[i]!.componentId!, line.periodStart!);
    const prior = next.get(key) ?? { quotedMinor: 0n, netMinor: 0n, taxMinor: 0n, quantity: '0' };
    next.set(key, {
      quotedMinor: prior.quotedMinor + (invoice.invoice.taxInclusive ? line.totalMinor : line.amountMinor),
      netMinor: prior.netMinor + line.taxableMinor,
      taxMinor: prior.taxMinor + line.taxMinor,
      quantity: (Number(prior.quantity) + Number(line.quantity ?? 0)).toString(),
    });
  });
  return next;
}

describe('threshold invoices netted at period end: the period bills what it would without thresholds, to the cent', () => {
  // usage seen at each threshold check, then at the period end
  const cases: [string, Partial<SubscriptionSnapshot>, [string, string][]][] = [
    ['tax exclusive, graduated crossing tiers between invoices', {}, [['80', '10'], ['950', '333'], ['1507', '1001']]],
    ['tax inclusive', { taxInclusive: true }, [['99', '7'], ['1001', '15'], ['1003', '16']]],
    ['a 15 % coupon and a minimum commitment stay on the period-end invoice', {
      coupons: [{ couponId: 'c1', kind: 'PERCENTAGE', percent: '15', invoicesRemaining: null }], minimumCommitment: '900.00',
    }, [['120', '31'], ['640', '333'], ['777', '334']]],
    ['no usage after the last threshold invoice', {}, [['500', '10'], ['500', '10']]],
  ];
  it.each(cases)('%s', (_name, extra, steps) => {
    const snap = snapshot([component('plan', rate('20.00'), { name: 'Pro plan' }), graduated, calls], { startDate: '2024-01-01', ...extra });
    const renewal = occasionOf(snap, '2024-02-01');
    const usage = ([api, c]: [string, string]) => ({ api, calls: c });
    let before = new Map<string, ThresholdBilled>();
    let thresholdTotal = 0n;
    let thresholdTax = 0n;
    for (const step of steps.slice(0, -1)) {
      const upcoming = computeSubscriptionInvoice(snap, renewal, usage(step), FR_CUSTOMER, FR_ENTITY);
      expect(accruedUsageMinor(upcoming)).toBe(upcoming.billedUsage.reduce((s, w) => s + w.billedMinor, 0n));
      const threshold = computeThresholdInvoice(snap, upcoming, before, FR_CUSTOMER, FR_ENTITY, '2024-01-20');
      expect(threshold.invoice.discountMinor).toBe(0n);
      thresholdTotal += threshold.invoice.totalMinor;
      thresholdTax += threshold.invoice.taxMinor;
      before = addBilled(before, threshold);
    }
    const final = steps.at(-1)!;
    const netted = computeSubscriptionInvoice(snap, renewal, usage(final), FR_CUSTOMER, FR_ENTITY, { thresholdBilled: before });
    const plain = computeSubscriptionInvoice(snap, renewal, usage(final), FR_CUSTOMER, FR_ENTITY);
    expect(thresholdTotal + netted.invoice.totalMinor).toBe(plain.invoice.totalMinor);
    expect(thresholdTax + netted.invoice.taxMinor).toBe(plain.invoice.taxMinor);
    expect(netted.invoice.discountMinor).toBe(plain.invoice.discountMinor);
    // the same usage lines as without thresholds, then one deduction per window already invoiced
    expect(netted.invoice.lines.slice(0, plain.invoice.lines.length - (plain.invoice.lines.at(-1)?.category === 'COMMITMENT' ? 1 : 0)).map((l) => l.amountMinor))
      .toEqual(plain.invoice.lines.filter((l) => l.category !== 'COMMITMENT').map((l) => l.amountMinor));
    const deductions = netted.invoice.lines.filter((l) => l.name.endsWith('billed on threshold invoices'));
    expect(deductions.map((l) => l.amountMinor)).toEqual([...before.values()].filter((b) => b.netMinor !== 0n).map((b) => -b.netMinor));
    expect(netted.billedUsage).toEqual(plain.billedUsage);
  });

  it('a second threshold invoice bills only what the first did not, line by line', () => {
    const snap = snapshot([graduated], { startDate: '2024-01-01' });
    const renewal = occasionOf(snap, '2024-02-01');
    const first = computeThresholdInvoice(snap, computeSubscriptionInvoice(snap, renewal, { api: '100' }, FR_CUSTOMER, FR_ENTITY), new Map(), FR_CUSTOMER, FR_ENTITY, '2024-01-10');
    // 100 units: 5.00 + 100 × 1.00
    expect(first.invoice.lines.map((l) => [l.name, l.amountMinor, l.taxMinor, l.quantity?.toString()])).toEqual([['API calls', 10500n, 2100n, '100']]);
    const second = computeThresholdInvoice(snap, computeSubscriptionInvoice(snap, renewal, { api: '300' }, FR_CUSTOMER, FR_ENTITY), addBilled(new Map(), first), FR_CUSTOMER, FR_ENTITY, '2024-01-20');
    // 300 units: 105.00 + 10.00 + 200 × 0.50 = 215.00, less 105.00
    expect(second.invoice.lines.map((l) => [l.amountMinor, l.quantity?.toString()])).toEqual([[11000n, '200']]);
    expect(second.lineDetails[0]!.description).toBe('Usage of 2024-01-01 to 2024-01-20: 300 in all, 100 on earlier threshold invoices');
    // nothing new: no line
    const none = computeThresholdInvoice(snap, computeSubscriptionInvoice(snap, renewal, { api: '300' }, FR_CUSTOMER, FR_ENTITY), addBilled(addBilled(new Map(), first), second), FR_CUSTOMER, FR_ENTITY, '2024-01-21');
    expect(none.invoice.lines).toEqual([]);
  });
});
