export type { CouponsService, PlanExists } from './service.js';
export { createCouponsModule } from './module.js';
export { deleteRedemptionsOfCustomers } from './repository.js';
export { checkCouponApplicable, redeemCoupon } from './redemption.js';
export type { Coupon, ApplyCouponContext } from './redemption.js';
export { whyNotApplicable, couponStatus, isExpired, isExhausted } from './rules.js';
export type { CouponDiscount, CouponTerms } from './rules.js';
