import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal } from '../../src/kernel/money.js';
import { applyCoupons, type Coupon } from '../../src/domain/discounts.js';
import { BillingRuleError } from '../../src/domain/errors.js';

const pct = (couponId: string, percent: string): Coupon => ({ couponId, kind: 'PERCENTAGE', percent: decimal(percent) });
const fixed = (couponId: string, amountMinor: bigint, currency = 'EUR'): Coupon => ({ couponId, kind: 'FIXED', amountMinor, currency });

describe('applyCoupons', () => {
  it.each<[string, bigint[], Coupon[], bigint, bigint[], string[]]>([
    ['10 % spread in proportion', [10000n, 5000n], [pct('a', '10')], 1500n, [1000n, 500n], []],
    ['percentage first, then fixed on what is left', [10000n, 5000n], [fixed('b', 2000n), pct('a', '10')], 3500n, [2333n, 1167n], []],
    ['100 % coupon clears every line', [4900n, 1n, 0n], [pct('all', '100')], 4901n, [4900n, 1n, 0n], []],
    ['nothing left after 100 %: fixed is skipped', [4900n], [pct('all', '100'), fixed('f', 500n)], 4900n, [4900n], ['f:NOTHING_LEFT']],
    ['fixed above the invoice stops at zero', [1500n], [fixed('f', 5000n)], 1500n, [1500n], []],
    ['fixed coupon in another currency does not apply', [1500n], [fixed('usd', 500n, 'USD')], 0n, [0n], ['usd:CURRENCY_MISMATCH']],
    ['percentage rounds half away from zero (149.85 -> 150)', [999n], [pct('a', '15')], 150n, [150n], []],
    ['two percentages compound on the remainder', [10000n], [pct('a', '10'), pct('b', '10')], 1900n, [1900n], []],
    ['credit lines shrink the base and receive no discount', [10000n, -3000n], [pct('all', '100')], 7000n, [7000n, 0n], []],
    ['a net credit invoice gets no discount', [1000n, -3000n], [pct('a', '10')], 0n, [0n, 0n], ['a:NOTHING_LEFT']],
    ['no coupons', [1000n], [], 0n, [0n], []],
  ])('%s', (_name, lines, coupons, total, perLine, skipped) => {
    const result = applyCoupons(lines, coupons, 'EUR');
    expect(result.discountMinor).toBe(total);
    expect(result.lineDiscountsMinor).toEqual(perLine);
    expect(result.skipped.map((s) => `${s.couponId}:${s.reason}`)).toEqual(skipped);
  });

  it('reports each coupon in application order', () => {
    const result = applyCoupons([10000n], [fixed('z', 1000n), pct('b', '50'), pct('a', '10')], 'EUR');
    expect(result.applications).toEqual([
      { couponId: 'a', discountMinor: 1000n },
      { couponId: 'b', discountMinor: 4500n },
      { couponId: 'z', discountMinor: 1000n },
    ]);
  });

  it.each([pct('zero', '0'), pct('over', '100.01'), fixed('neg', 0n)])('refuses an invalid coupon %#', (coupon) => {
    expect(() => applyCoupons([100n], [coupon], 'EUR')).toThrow(BillingRuleError);
  });

  it('never discounts below zero and the per-line parts add up', () => {
    const coupon = fc.oneof(
      fc.integer({ min: 1, max: 10000 }).map((bp) => pct(`p${bp}`, decimal(BigInt(bp)).div(100).toString())),
      fc.bigInt({ min: 1n, max: 10n ** 7n }).map((amount) => fixed(`f${amount}`, amount)),
    );
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(10n ** 6n), max: 10n ** 7n }), { minLength: 1, maxLength: 8 }), fc.array(coupon, { maxLength: 4 }), (lines, coupons) => {
        const result = applyCoupons(lines, coupons, 'EUR');
        const net = lines.reduce((a, b) => a + b, 0n);
        expect(result.discountMinor).toBeGreaterThanOrEqual(0n);
        expect(result.discountMinor).toBeLessThanOrEqual(net > 0n ? net : 0n);
        expect(result.lineDiscountsMinor.reduce((a, b) => a + b, 0n)).toBe(result.discountMinor);
        result.lineDiscountsMinor.forEach((discount, i) => {
          const line = lines[i] ?? 0n;
          expect(discount).toBeGreaterThanOrEqual(0n);
          expect(discount).toBeLessThanOrEqual(line > 0n ? line : 0n);
        });
      }),
    );
  });
});
