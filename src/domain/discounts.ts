// Coupons: percentages first, then fixed amounts, each taken from what is left, never below
// zero; the total discount is then spread over the positive lines so tax can be computed per line.
import type { Decimal } from 'decimal.js';
import { allocateMinor, maxMinor, minMinor, minorToDecimal, sumMinor, toMinor, type CurrencyCode } from '../kernel/money.js';
import { BillingRuleError } from './errors.js';

export type Coupon =
  | { readonly couponId: string; readonly kind: 'PERCENTAGE'; /** 0 < percent ≤ 100 */ readonly percent: Decimal }
  | { readonly couponId: string; readonly kind: 'FIXED'; readonly amountMinor: bigint; readonly currency: CurrencyCode };

export interface CouponApplication {
  readonly couponId: string;
  readonly discountMinor: bigint;
}

export interface SkippedCoupon {
  readonly couponId: string;
  /** CURRENCY_MISMATCH: fixed coupon in another currency (no conversion). NOTHING_LEFT: base already 0. */
  readonly reason: 'CURRENCY_MISMATCH' | 'NOTHING_LEFT';
}

export interface DiscountResult {
  readonly discountMinor: bigint;
  readonly applications: readonly CouponApplication[];
  readonly skipped: readonly SkippedCoupon[];
  /** Discount taken from each input line, same order; Σ = discountMinor, 0 on non-positive lines. */
  readonly lineDiscountsMinor: readonly bigint[];
}

function validateCoupon(coupon: Coupon): void {
  if (coupon.kind === 'PERCENTAGE') {
    if (!coupon.percent.greaterThan(0) || coupon.percent.greaterThan(100)) {
      throw new BillingRuleError('INVALID_PRICING', `coupon ${coupon.couponId}: percent must be in (0, 100]`);
    }
  } else if (coupon.amountMinor <= 0n) {
    throw new BillingRuleError('INVALID_PRICING', `coupon ${coupon.couponId}: fixed amount must be above zero`);
  }
}

// Percentages before fixed amounts; ties by coupon id so the result never depends on input order.
function applicationOrder(a: Coupon, b: Coupon): number {
  if (a.kind !== b.kind) return a.kind === 'PERCENTAGE' ? -1 : 1;
  return a.couponId < b.couponId ? -1 : a.couponId > b.couponId ? 1 : 0;
}

/**
 * Applies coupons to an invoice whose lines are already rounded (`lineAmountsMinor`).
 * The base is the net of all lines, floored at zero (credit lines reduce what can be discounted).
 * A percentage discount is rounded half away from zero, like every other amount.
 */
export function applyCoupons(lineAmountsMinor: readonly bigint[], coupons: readonly Coupon[], currency: CurrencyCode): DiscountResult {
  coupons.forEach(validateCoupon);
  let remainingMinor = maxMinor(0n, sumMinor(lineAmountsMinor));
  const applications: CouponApplication[] = [];
  const skipped: SkippedCoupon[] = [];
  for (const coupon of [...coupons].sort(applicationOrder)) {
    if (coupon.kind === 'FIXED' && coupon.currency !== currency) {
      skipped.push({ couponId: coupon.couponId, reason: 'CURRENCY_MISMATCH' });
      continue;
    }
    if (remainingMinor === 0n) {
      skipped.push({ couponId: coupon.couponId, reason: 'NOTHING_LEFT' });
      continue;
    }
    const wantedMinor =
      coupon.kind === 'PERCENTAGE'
        ? toMinor(minorToDecimal(remainingMinor, currency).times(coupon.percent).div(100), currency)
        : coupon.amountMinor;
    const discountMinor = minMinor(wantedMinor, remainingMinor);
    remainingMinor -= discountMinor;
    applications.push({ couponId: coupon.couponId, discountMinor });
  }
  const discountMinor = sumMinor(applications.map((application) => application.discountMinor));
  // Spread over positive lines by amount; since discount ≤ Σ positive lines, no line goes below 0.
  const weights = lineAmountsMinor.map((amount) => maxMinor(0n, amount));
  const lineDiscountsMinor = discountMinor === 0n ? weights.map(() => 0n) : allocateMinor(discountMinor, weights);
  return { discountMinor, applications, skipped, lineDiscountsMinor };
}
