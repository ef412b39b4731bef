import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { CouponRow } from './repository.js';

/** Tagged by `type`; checked in rules.ts with messages naming the field. */
export const CouponDiscountSchema = Type.Object(
  {
    type: Type.Enum(['PERCENTAGE', 'FIXED']),
    percentage: Type.Optional(Type.String({ description: 'PERCENTAGE: whole percent as a decimal string, "10" = 10 %' })),
    currency: Type.Optional(Type.String({ description: 'FIXED: ISO 4217 currency' })),
    amount: Type.Optional(Type.String({ description: 'FIXED: amount off in major units, decimal string' })),
  },
  { description: 'PERCENTAGE {percentage} or FIXED {currency, amount}' },
);

const NullableCount = (description: string) => Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647, description })));

export const Coupon = Type.Object({
  id: Type.String(),
  code: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  discount: CouponDiscountSchema,
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  redemption_limit: NullableCount('how many subscriptions may redeem it; null = unlimited'),
  recurring_value: NullableCount('how many invoices of a subscription it applies to; null = forever'),
  reusable: Type.Boolean(),
  disabled: Type.Boolean(),
  archived_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  redemption_count: Type.Integer(),
  last_redemption_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  plan_ids: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreateCouponRequest = Type.Object({
  code: Type.String({ description: '1 to 64 letters, digits, - or _; unique per tenant ignoring case' }),
  description: Type.Optional(Nullable(Type.String())),
  discount: CouponDiscountSchema,
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  plan_ids: Type.Optional(Type.Array(Type.String(), { description: 'empty = any plan' })),
  recurring_value: NullableCount('how many invoices of a subscription it applies to; null = forever'),
  redemption_limit: NullableCount('how many subscriptions may redeem it; null = unlimited'),
  reusable: Type.Optional(Type.Boolean({ description: 'may one customer redeem it on several subscriptions (default false)' })),
});

/** Other fields are refused as immutable in the service. */
export const UpdateCouponRequest = Type.Object({
  description: Type.Optional(Nullable(Type.String())),
  discount: Type.Optional(Nullable(CouponDiscountSchema)),
  plan_ids: Type.Optional(Nullable(Type.Array(Type.String()))),
});

export function couponToWire(row: CouponRow) {
  return {
    id: row.id,
    code: row.code,
    description: row.description,
    discount: row.discount,
    expires_at: isoOrNull(row.expires_at),
    redemption_limit: row.redemption_limit,
    recurring_value: row.recurring_value,
    reusable: row.reusable,
    disabled: row.disabled,
    archived_at: isoOrNull(row.archived_at),
    redemption_count: row.redemption_count,
    last_redemption_at: isoOrNull(row.last_redemption_at),
    plan_ids: row.plan_ids,
    created_at: iso(row.created_at),
  };
}
