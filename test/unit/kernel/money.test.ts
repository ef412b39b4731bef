import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  timesCount,
  allocateMinor,
  currencyExponent,
  decimal,
  formatMinor,
  MoneyError,
  parseAmountMinor,
  parseDecimal,
  sumMinor,
  toMinor,
  toMinorParts,
} from '../../../src/kernel/money.js';

describe('currencyExponent', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['JPY', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['CHF', 2], // not in the table: default
  ])('%s has %i minor digits', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it.each(['eur', 'EU', 'EURO', ''])('rejects malformed code %j', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(MoneyError);
  });
});

describe('toMinor rounds half away from zero with the currency exponent', () => {
  it.each([
    ['exact cents', '49.00', 'EUR', 4900n],
    ['half cent up', '0.005', 'EUR', 1n],
    ['negative half cent away from zero', '-0.005', 'EUR', -1n],
    ['just below half', '0.0049999', 'EUR', 0n],
    ['JPY half yen', '2.5', 'JPY', 3n],
    ['JPY negative half yen', '-2.5', 'JPY', -3n],
    ['KWD three digits', '1.2345', 'KWD', 1235n],
    ['tiny rate times big quantity', '12345678901234.56789', 'USD', 1234567890123457n],
    ['zero', '0', 'EUR', 0n],
  ])('%s: %s %s -> %s', (_name, value, currency, expected) => {
    expect(toMinor(decimal(value), currency)).toBe(expected);
  });

  it('refuses an amount beyond what PostgreSQL bigint minor units hold, alone or as a sum', () => {
    expect(toMinor(decimal('92233720368547758.07'), 'EUR')).toBe(9_223_372_036_854_775_807n);
    expect(() => toMinor(decimal('92233720368547758.08'), 'EUR')).toThrow(MoneyError);
    expect(() => toMinor(decimal('-1000000000000000000000000000000'), 'EUR')).toThrow(/exceeds the largest amount/);
    expect(() => sumMinor([9_000_000_000_000_000_000n, 9_000_000_000_000_000_000n])).toThrow(MoneyError);
  });

  it('keeps precision beyond 20 significant digits before rounding', () => {
    // 5000000000000000.005 has 22 significant digits; at 20 the half cent would be lost.
    const amount = decimal('1000000000000000001').times(decimal('0.005'));
    expect(toMinor(amount, 'EUR')).toBe(500000000000000001n);
  });
});

describe('formatMinor', () => {
  it.each([
    [4900n, 'EUR', '49.00'],
    [-350n, 'EUR', '-3.50'],
    [5n, 'EUR', '0.05'],
    [-5n, 'EUR', '-0.05'],
    [0n, 'EUR', '0.00'],
    [100n, 'JPY', '100'],
    [-100n, 'JPY', '-100'],
    [1250n, 'KWD', '1.250'],
    [7n, 'KWD', '0.007'],
  ])('%s %s -> %s', (amountMinor, currency, expected) => {
    expect(formatMinor(amountMinor, currency)).toBe(expected);
  });
});

describe('parseDecimal is strict', () => {
  it.each(['0', '49.00', '-3.5', '0.0015', '007'])('accepts %j', (text) => {
    expect(parseDecimal(text).toString()).toBe(decimal(text).toString());
  });

  it.each([
    ['a number', 1.5],
    ['an exponent', '1e3'],
    ['a blank', ''],
    ['spaces', ' 1.00'],
    ['a plus sign', '+1'],
    ['no integer part', '.5'],
    ['a trailing point', '5.'],
    ['a comma', '1,50'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['null', null],
  ])('rejects %s', (_name, value) => {
    expect(() => parseDecimal(value)).toThrow(MoneyError);
  });
});

describe('parseAmountMinor', () => {
  it('reads an amount with at most the currency digits', () => {
    expect(parseAmountMinor('49.9', 'EUR')).toBe(4990n);
    expect(parseAmountMinor('100', 'JPY')).toBe(100n);
    expect(parseAmountMinor('-1.005', 'KWD')).toBe(-1005n);
  });

  it('refuses more digits than the currency has', () => {
    expect(() => parseAmountMinor('1.001', 'EUR')).toThrow(MoneyError);
    expect(() => parseAmountMinor('1.5', 'JPY')).toThrow(MoneyError);
  });
});

describe('allocateMinor (largest remainder)', () => {
  it.each([
    ['even split with leftover to first', 100n, [1n, 1n, 1n], [34n, 33n, 33n]],
    ['proportional', 1000n, [5000n, 3000n, 2000n], [500n, 300n, 200n]],
    ['largest remainder wins', 10n, [1n, 2n, 4n], [1n, 3n, 6n]],
    ['negative total', -100n, [1n, 1n, 1n], [-34n, -33n, -33n]],
    ['zero weight gets nothing', 7n, [0n, 1n, 0n], [0n, 7n, 0n]],
    ['zero total', 0n, [0n, 0n], [0n, 0n]],
  ])('%s', (_name, total, weights, expected) => {
    expect(allocateMinor(total, weights)).toEqual(expected);
  });

  it('refuses negative weights and non-zero totals over zero weights', () => {
    expect(() => allocateMinor(10n, [1n, -1n])).toThrow(MoneyError);
    expect(() => allocateMinor(10n, [0n, 0n])).toThrow(MoneyError);
  });

  it('parts always sum to the total and stay within one unit of the exact share', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 9n }), { minLength: 1, maxLength: 12 }).filter((w) => w.some((x) => x > 0n)),
        (total, weights) => {
          const parts = allocateMinor(total, weights);
          const weightSum = weights.reduce((a, b) => a + b, 0n);
          expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
          parts.forEach((part, i) => {
            const exactTimesW = total * (weights[i] ?? 0n);
            const diff = part * weightSum - exactTimesW;
            expect(diff < 0n ? -diff : diff).toBeLessThan(weightSum);
          });
        },
      ),
    );
  });
});

describe('toMinorParts', () => {
  it('rounds parts so they add up to the rounded whole', () => {
    const parts = ['0.333', '0.333', '0.334'].map(decimal);
    expect(toMinorParts(parts, 'EUR')).toEqual([33n, 34n, 33n]);
  });

  it('sums to toMinor of the sum for any parts', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000_000, max: 10_000_000 }), { maxLength: 10 }), (thousandths) => {
        const parts = thousandths.map((value) => decimal(BigInt(value)).div(1000));
        const sum = parts.reduce((a, b) => a.plus(b), decimal('0'));
        expect(toMinorParts(parts, 'EUR').reduce((a, b) => a + b, 0n)).toBe(toMinor(sum, 'EUR'));
      }),
    );
  });
});

describe('timesCount', () => {
  it.each([
    ['12.25', 2, '24.50'],
    ['12.50', 3, '37.50'],
    ['0.001', 7, '0.007'],
    ['49', 4, '196'],
    ['19.99', 1, '19.99'],
    ['19.99', 0, '0.00'],
  ])('%s x %i = %s, with the written decimals', (text, count, expected) => {
    expect(timesCount(text, count)).toBe(expected);
  });

  it('refuses a count that is not a whole number, and a decimal that is not plain', () => {
    expect(() => timesCount('1.00', 1.5)).toThrow(/whole number/);
    expect(() => timesCount('1e3', 2)).toThrow(/plain decimal/);
  });
});
