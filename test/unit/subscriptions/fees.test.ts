import { describe, expect, it } from 'vitest';
import { mrrMinor, type FeeTerm, type SubscriptionFee } from '../../../src/modules/subscriptions/fees.js';

type Item = { fee: SubscriptionFee; period: FeeTerm; quantity?: number };

const rate = (price: string, period: FeeTerm, quantity?: number): Item => ({ fee: { type: 'RATE', rate: price }, period, quantity });
const slots = (unitRate: string, count: number, period: FeeTerm): Item => ({
  fee: { type: 'SLOT', unit: 'seat', unit_rate: unitRate, initial_slots: count, min_slots: null, max_slots: null },
  period,
});
const capacity = (price: string, period: FeeTerm): Item => ({
  fee: { type: 'CAPACITY', rate: price, included: 1000, overage_rate: '0.05', metric_id: 'bm_1' },
  period,
});
const recurring = (price: string, quantity: number, period: FeeTerm): Item => ({ fee: { type: 'RECURRING', rate: price, quantity, billing_type: 'ADVANCE' }, period });
const usage = (period: FeeTerm): Item => ({ fee: { type: 'USAGE', metric_id: 'bm_1', model: { type: 'PER_UNIT', rate: '0.10' } }, period });
const oneTime = (price: string): Item => ({ fee: { type: 'ONE_TIME', rate: price, quantity: 1 }, period: 'ONE_TIME' });

describe('MRR (monthly recurring revenue, minor units)', () => {
  it.each<[string, Item[], string, bigint]>([
    ['no fees', [], 'EUR', 0n],
    ['monthly rate', [rate('49.00', 'MONTHLY')], 'EUR', 4900n],
    ['quarterly rate is a third a month', [rate('90.00', 'QUARTERLY')], 'EUR', 3000n],
    ['semiannual rate is a sixth a month, rounded half up', [rate('59.99', 'SEMIANNUAL')], 'EUR', 1000n],
    ['annual rate is a twelfth a month, rounded half up', [rate('100.00', 'ANNUAL')], 'EUR', 833n],
    ['half a cent rounds up', [rate('0.06', 'ANNUAL')], 'EUR', 1n],
    ['slots: unit rate times the initial slots', [slots('10.00', 5, 'MONTHLY')], 'EUR', 5000n],
    ['annual slots', [slots('120.00', 3, 'ANNUAL')], 'EUR', 3000n],
    ['capacity: the committed price, overage excluded', [capacity('50.00', 'MONTHLY')], 'EUR', 5000n],
    ['recurring extra: unit price times its quantity', [recurring('12.50', 3, 'MONTHLY')], 'EUR', 3750n],
    ['quarterly recurring extra', [recurring('12.50', 3, 'QUARTERLY')], 'EUR', 1250n],
    ['usage is excluded: not recurring until measured', [usage('MONTHLY')], 'EUR', 0n],
    ['one-time fees are excluded', [oneTime('99.00')], 'EUR', 0n],
    ['an add-on quantity multiplies its fee', [rate('15.00', 'MONTHLY', 2)], 'EUR', 3000n],
    ['an add-on quantity multiplies slots too', [{ ...slots('4.00', 5, 'MONTHLY'), quantity: 2 }], 'EUR', 4000n],
    // per fee 8.333…; rounding each would give 24.99
    ['rounded once on the sum, not per fee', [rate('100.00', 'ANNUAL'), rate('100.00', 'ANNUAL'), rate('100.00', 'ANNUAL')], 'EUR', 2500n],
    [
      'mixed terms: monthly, quarterly, annual slots, usage and one-time',
      [rate('49.00', 'MONTHLY'), rate('30.00', 'QUARTERLY'), slots('24.00', 2, 'ANNUAL'), usage('MONTHLY'), oneTime('99.00')],
      'EUR',
      6300n,
    ],
    ['JPY has no minor digits', [rate('1000', 'ANNUAL')], 'JPY', 83n],
    ['JPY half up', [rate('1002', 'ANNUAL')], 'JPY', 84n],
    ['KWD has three minor digits', [rate('100.000', 'ANNUAL')], 'KWD', 8333n],
    ['USD, two digits like EUR', [rate('10.00', 'QUARTERLY')], 'USD', 333n],
  ])('%s', (_name, items, currency, expected) => {
    expect(mrrMinor(items, currency)).toBe(expected);
  });
});
