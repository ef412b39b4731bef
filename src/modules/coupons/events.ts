import type { CouponRow } from './repository.js';

/** `data` of coupon.* events, in the reference's CouponEventData shape (description is a string there). */
export function couponEventData(coupon: CouponRow): Record<string, unknown> {
  return {
    coupon_id: coupon.id,
    code: coupon.code,
    description: coupon.description ?? '',
    discount: coupon.discount,
    expires_at: coupon.expires_at?.toISOString() ?? null,
    redemption_limit: coupon.redemption_limit,
    recurring_value: coupon.recurring_value,
    reusable: coupon.reusable,
    disabled: coupon.disabled,
    created_at: coupon.created_at.toISOString(),
  };
}
