import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal, toMinor, toMinorParts } from '../../src/kernel/money.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import { priceCapacityOverage, priceMatrix, priceUsage, type Tier, type UsagePricing } from '../../src/domain/pricing.js';

const d = decimal;
const tier = (upTo: string | null, unitPrice: string, extra: { flatFee?: string; cap?: string } = {}): Tier => ({
  upTo: upTo === null ? null : d(upTo),
  unitPrice: d(unitPrice),
  flatFee: extra.flatFee === undefined ? null : d(extra.flatFee),
  cap: extra.cap === undefined ? null : d(extra.cap),
});
const priceMinor = (pricing: UsagePricing, quantity: string) => toMinor(priceUsage(pricing, d(quantity)).amount, 'EUR');

const graduated: UsagePricing = {
  model: 'TIERED',
  tiers: [tier('100', '0.10', { flatFee: '5' }), tier('1000', '0.05'), tier(null, '0.01')],
};
const volume: UsagePricing = {
  model: 'VOLUME',
  tiers: [tier('100', '0.10', { flatFee: '5' }), tier('1000', '0.05', { flatFee: '10' }), tier(null, '0.01')],
};

describe('per unit', () => {
  it.each([
    ['1000 units at 0.0015', '1000', 150n],
    ['a third of a cent rounds to nothing', '3', 0n],
    ['half a cent rounds up', '10', 2n], // 10 × 0.0015 = 0.015
    ['zero usage', '0', 0n],
    ['negative usage bills nothing', '-5', 0n],
  ])('%s', (_name, quantity, expected) => {
    expect(priceMinor({ model: 'PER_UNIT', unitPrice: d('0.0015') }, quantity)).toBe(expected);
  });
});

describe('tiered (graduated), up_to inclusive', () => {
  it.each([
    ['zero usage: no tier entered, no flat fee', '0', 0n],
    ['first unit enters tier 1 with its flat fee', '1', 510n],
    ['unit 100 is still in tier 1', '100', 1500n],
    ['unit 101 is the first of tier 2', '101', 1505n],
    ['fraction above the edge goes to tier 2 (15.025 -> 15.03)', '100.5', 1503n],
    ['top of tier 2', '1000', 6000n],
    ['first unit of the unbounded tier', '1001', 6001n],
    ['deep in the last tier', '2500', 7500n],
  ])('%s', (_name, quantity, expected) => {
    expect(priceMinor(graduated, quantity)).toBe(expected);
  });

  it('caps a tier amount', () => {
    const capped: UsagePricing = { model: 'TIERED', tiers: [tier('10', '1', { cap: '5' }), tier(null, '0.5')] };
    expect([priceMinor(capped, '3'), priceMinor(capped, '8'), priceMinor(capped, '12')]).toEqual([300n, 500n, 600n]);
  });

  it('breaks the amount down per tier, and rounded rows add up to the line', () => {
    const priced = priceUsage(graduated, d('1001'));
    expect(priced.rows.map((row) => [row.label, row.quantity.toString(), row.amount.toString()])).toEqual([
      ['0 to 100', '100', '15'],
      ['100 to 1000', '900', '45'],
      ['above 1000', '1', '0.01'],
    ]);
  });

  it('is monotone in quantity and its rounded rows always sum to the rounded line', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 1000 }), (thousandths, step) => {
        const q = d(BigInt(thousandths)).div(1000);
        const priced = priceUsage(graduated, q);
        const lineMinor = toMinor(priced.amount, 'EUR');
        expect(toMinorParts(priced.rows.map((row) => row.amount), 'EUR').reduce((a, b) => a + b, 0n)).toBe(lineMinor);
        expect(priceUsage(graduated, q.plus(step)).amount.greaterThanOrEqualTo(priced.amount)).toBe(true);
      }),
    );
  });
});

describe('volume: the whole quantity at the tier it falls in', () => {
  it.each([
    ['zero usage', '0', 0n],
    ['edge 100 in tier 1', '100', 1500n],
    ['101 moves everything to tier 2 with its flat fee', '101', 1505n],
    ['fraction just above the edge (15.025 -> 15.03)', '100.5', 1503n],
    ['top of tier 2', '1000', 6000n],
    ['1001 drops to the cheap tier', '1001', 1001n],
  ])('%s', (_name, quantity, expected) => {
    expect(priceMinor(volume, quantity)).toBe(expected);
  });
});

describe('package', () => {
  const up: UsagePricing = { model: 'PACKAGE', blockSize: d('100'), pricePerBlock: d('2.00'), partialBlock: 'UP' };
  const down: UsagePricing = { ...up, partialBlock: 'DOWN' };
  it.each([
    ['zero usage', up, '0', 0n],
    ['one unit rounds up to a block', up, '1', 200n],
    ['exact block', up, '100', 200n],
    ['one over starts a block', up, '101', 400n],
    ['rounding down drops the partial block', down, '99', 0n],
    ['rounding down keeps whole blocks', down, '250', 400n],
  ])('%s', (_name, pricing, quantity, expected) => {
    expect(priceMinor(pricing, quantity)).toBe(expected);
  });
});

describe('matrix', () => {
  const rates = [
    { dimensions: { region: 'eu', size: 'small' }, unitPrice: d('0.01') },
    { dimensions: { region: 'eu', size: 'large' }, unitPrice: d('0.05') },
    { dimensions: { size: 'small', region: 'us' }, unitPrice: d('0.02') },
  ];
  it('prices each usage group at its cell and reports groups without a cell', () => {
    const priced = priceMatrix(rates, [
      { dimensions: { size: 'small', region: 'eu' }, quantity: d('1000') },
      { dimensions: { region: 'eu', size: 'large' }, quantity: d('10') },
      { dimensions: { region: 'us', size: 'small' }, quantity: d('0') },
      { dimensions: { region: 'ap', size: 'small' }, quantity: d('5') },
    ]);
    expect(toMinor(priced.amount, 'EUR')).toBe(1050n);
    expect(priced.rows.map((row) => row.label)).toEqual(['eu, small', 'eu, large']);
    expect(priced.unmatched.map((group) => group.dimensions.region)).toEqual(['ap']);
  });

  it('rejects duplicate cells', () => {
    expect(() => priceMatrix([rates[0]!, { ...rates[0]!, unitPrice: d('1') }], [])).toThrow(BillingRuleError);
  });
});

describe('capacity overage', () => {
  it.each([
    ['above the commitment', '1200', 400n],
    ['at the commitment', '1000', 0n],
    ['below the commitment', '900', 0n],
  ])('%s', (_name, usage, expected) => {
    expect(toMinor(priceCapacityOverage(d(usage), d('1000'), d('0.02')).amount, 'EUR')).toBe(expected);
  });
});

describe('invalid pricing is refused', () => {
  it.each<[string, UsagePricing]>([
    ['no tiers', { model: 'TIERED', tiers: [] }],
    ['bounded last tier', { model: 'TIERED', tiers: [tier('10', '1')] }],
    ['unbounded middle tier', { model: 'VOLUME', tiers: [tier(null, '1'), tier(null, '1')] }],
    ['bounds not rising', { model: 'TIERED', tiers: [tier('10', '1'), tier('10', '1'), tier(null, '1')] }],
    ['zero first bound', { model: 'TIERED', tiers: [tier('0', '1'), tier(null, '1')] }],
    ['negative unit price', { model: 'TIERED', tiers: [tier(null, '-1')] }],
    ['zero block size', { model: 'PACKAGE', blockSize: d('0'), pricePerBlock: d('1'), partialBlock: 'UP' }],
  ])('%s', (_name, pricing) => {
    expect(() => priceUsage(pricing, d('5'))).toThrow(BillingRuleError);
  });
});
