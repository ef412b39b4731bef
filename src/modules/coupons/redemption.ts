import { badRequest } from '../../kernel/errors.js';
import type { Queryable } from '../../db/pool.js';
import * as repo from './repository.js';
import type { CouponRow } from './repository.js';
import { whyNotApplicable } from './rules.js';

/** A coupon as the subscriptions and invoicing modules see it. */
export type Coupon = CouponRow;

export interface ApplyCouponContext {
  /** The business time of the application (clock.now() of the caller). */
  at: Date;
  /** Subscription currency; a FIXED coupon must be in it. */
  currency?: string;
  /** Subscription plan id; checked against the coupon's plan_ids when it has any. */
  planId?: string;
  /** The customer; a non-reusable coupon is refused when this customer already redeemed it. */
  customerId?: string;
}

async function judge(db: Queryable, tenantId: string, coupon: CouponRow | undefined, idOrCode: string, context: ApplyCouponContext, field: string): Promise<CouponRow> {
  if (!coupon) throw badRequest(`${field} '${idOrCode}' is not a coupon of this tenant`);
  const alreadyRedeemedByCustomer =
    !coupon.reusable && context.customerId !== undefined ? await repo.hasCustomerRedeemed(db, tenantId, coupon.id, context.customerId) : false;
  const reason = whyNotApplicable(coupon, { ...context, alreadyRedeemedByCustomer });
  if (reason) throw badRequest(`${field}: ${reason}`);
  return coupon;
}

/**
 * The coupon (by id or code, code ignoring case) if it can be applied now: enabled, not
 * archived, not expired at `context.at`, under its redemption limit, in the subscription's
 * currency, allowed for the plan, and not already used by the customer when not reusable.
 * Otherwise a 400 naming `field` with the reason. Reads only; see `redeemCoupon` to apply.
 */
export async function checkCouponApplicable(
  db: Queryable,
  tenantId: string,
  idOrCode: string,
  context: ApplyCouponContext,
  field = 'coupon_code',
): Promise<Coupon> {
  return judge(db, tenantId, await repo.findCouponByIdOrCode(db, tenantId, idOrCode), idOrCode, context, field);
}

/**
 * Records one redemption inside the caller's transaction (`tx`): locks the coupon row, checks
 * it again (so two concurrent subscriptions cannot both take the last redemption), then counts
 * it and remembers the customer. Rolls back with the caller's transaction.
 */
export async function redeemCoupon(
  tx: Queryable,
  tenantId: string,
  idOrCode: string,
  context: ApplyCouponContext & { customerId: string; subscriptionId?: string | null },
  field = 'coupon_code',
): Promise<Coupon> {
  const coupon = await judge(tx, tenantId, await repo.findCouponByIdOrCode(tx, tenantId, idOrCode, true), idOrCode, context, field);
  const next: CouponRow = {
    ...coupon,
    redemption_count: coupon.redemption_count + 1,
    last_redemption_at: context.at,
    updated_at: context.at,
  };
  await repo.updateCoupon(tx, tenantId, next);
  await repo.insertRedemption(tx, tenantId, {
    couponId: coupon.id,
    customerId: context.customerId,
    subscriptionId: context.subscriptionId ?? null,
    redeemedAt: context.at,
  });
  return next;
}
