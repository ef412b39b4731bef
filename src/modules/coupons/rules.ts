import { badRequest } from '../../kernel/errors.js';
import { currencyExponent, parseDecimal, type Dec } from '../../kernel/money.js';

export type CouponDiscount = { type: 'PERCENTAGE'; percentage: string } | { type: 'FIXED'; currency: string; amount: string };

/** The fields of a coupon that decide whether it can be applied. */
export interface CouponTerms {
  code: string;
  discount: CouponDiscount;
  expires_at: Date | null;
  redemption_limit: number | null;
  redemption_count: number;
  reusable: boolean;
  disabled: boolean;
  archived_at: Date | null;
  plan_ids: string[];
}

export const COUPON_FILTERS = ['ALL', 'ACTIVE', 'INACTIVE', 'ARCHIVED'] as const;
export type CouponFilter = (typeof COUPON_FILTERS)[number];

/** Letters, digits, `-` and `_`, 1 to 64 characters: what a customer can type at checkout. */
const COUPON_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** Percentages keep at most 4 decimals (12.3456 %). */
const MAX_PERCENTAGE_DECIMALS = 4;
/** Fixed discounts stay below a trillion major units (amounts settle as bigint minor units). */
const MAX_FIXED_AMOUNT = '1000000000000';

type Input = Record<string, unknown>;

function isObject(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseCouponCode(value: unknown): string {
  if (typeof value !== 'string' || !COUPON_CODE.test(value)) {
    throw badRequest('code must be 1 to 64 letters, digits, - or _, starting with a letter or digit');
  }
  return value;
}

function decimalField(value: unknown, path: string, example: string): Dec {
  if (typeof value !== 'string') throw badRequest(`${path} must be a decimal string such as "${example}"`);
  try {
    return parseDecimal(value);
  } catch {
    throw badRequest(`${path} must be a decimal string such as "${example}"; got "${value}"`);
  }
}

/**
 * PERCENTAGE `{percentage}`: a whole-percent decimal string, 0 < p <= 100 ("10" = 10 %).
 * FIXED `{currency, amount}`: amount > 0 in major units with at most the currency's decimals.
 * Returned normalised: percentages without trailing zeros, amounts at the currency's precision.
 */
export function parseDiscount(raw: unknown, path = 'discount'): CouponDiscount {
  if (!isObject(raw)) throw badRequest(`${path} must be an object {type, percentage} or {type, currency, amount}`);
  if (raw.type === 'PERCENTAGE') {
    for (const field of Object.keys(raw)) if (!['type', 'percentage'].includes(field)) throw badRequest(`${path}.${field} is not a field of a PERCENTAGE discount`);
    const percentage = decimalField(raw.percentage, `${path}.percentage`, '10');
    if (percentage.lte(0) || percentage.gt(100)) throw badRequest(`${path}.percentage must be greater than 0 and at most 100`);
    if (percentage.decimalPlaces() > MAX_PERCENTAGE_DECIMALS) throw badRequest(`${path}.percentage must have at most ${MAX_PERCENTAGE_DECIMALS} decimals`);
    return { type: 'PERCENTAGE', percentage: percentage.toString() };
  }
  if (raw.type === 'FIXED') {
    for (const field of Object.keys(raw)) if (!['type', 'currency', 'amount'].includes(field)) throw badRequest(`${path}.${field} is not a field of a FIXED discount`);
    if (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency)) throw badRequest(`${path}.currency must be an ISO 4217 code such as "EUR"`);
    const exponent = currencyExponent(raw.currency);
    const amount = decimalField(raw.amount, `${path}.amount`, '5.00');
    if (amount.lte(0)) throw badRequest(`${path}.amount must be greater than 0`);
    if (amount.gte(MAX_FIXED_AMOUNT)) throw badRequest(`${path}.amount must be below ${MAX_FIXED_AMOUNT}`);
    if (amount.decimalPlaces() > exponent) throw badRequest(`${path}.amount has more than ${exponent} decimals for ${raw.currency}`);
    return { type: 'FIXED', currency: raw.currency, amount: amount.toFixed(exponent) };
  }
  throw badRequest(`${path}.type must be one of PERCENTAGE, FIXED`);
}

export function isExpired(coupon: Pick<CouponTerms, 'expires_at'>, at: Date): boolean {
  return coupon.expires_at !== null && coupon.expires_at.getTime() <= at.getTime();
}

export function isExhausted(coupon: Pick<CouponTerms, 'redemption_limit' | 'redemption_count'>): boolean {
  return coupon.redemption_limit !== null && coupon.redemption_count >= coupon.redemption_limit;
}

/** ARCHIVED when archived; INACTIVE when disabled, expired or exhausted; else ACTIVE. */
export function couponStatus(coupon: CouponTerms, at: Date): Exclude<CouponFilter, 'ALL'> {
  if (coupon.archived_at !== null) return 'ARCHIVED';
  if (coupon.disabled || isExpired(coupon, at) || isExhausted(coupon)) return 'INACTIVE';
  return 'ACTIVE';
}

export interface ApplyContext {
  /** When the coupon would be applied (the business clock's now, or a subscription's start). */
  at: Date;
  /** The subscription's currency: a FIXED coupon must be in it. */
  currency?: string;
  /** The subscription's plan: must be listed when the coupon is restricted to plans. */
  planId?: string;
  /** True when this customer already redeemed the coupon (matters for non-reusable coupons). */
  alreadyRedeemedByCustomer?: boolean;
}

/** Why the coupon cannot be applied in this context, or null when it can. Pure. */
export function whyNotApplicable(coupon: CouponTerms, context: ApplyContext): string | null {
  if (coupon.archived_at !== null) return `coupon '${coupon.code}' is archived`;
  if (coupon.disabled) return `coupon '${coupon.code}' is disabled`;
  if (isExpired(coupon, context.at)) return `coupon '${coupon.code}' expired at ${coupon.expires_at!.toISOString()}`;
  if (isExhausted(coupon)) return `coupon '${coupon.code}' reached its redemption limit of ${coupon.redemption_limit}`;
  if (coupon.discount.type === 'FIXED' && context.currency !== undefined && context.currency !== coupon.discount.currency) {
    return `coupon '${coupon.code}' is in ${coupon.discount.currency}, the subscription in ${context.currency}`;
  }
  if (coupon.plan_ids.length > 0 && context.planId !== undefined && !coupon.plan_ids.includes(context.planId)) {
    return `coupon '${coupon.code}' does not apply to plan '${context.planId}'`;
  }
  if (!coupon.reusable && context.alreadyRedeemedByCustomer) return `coupon '${coupon.code}' was already redeemed by this customer`;
  return null;
}
