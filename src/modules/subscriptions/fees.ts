// Resolving a plan's stored fee (PlanFee) into the fee a subscription is sold with, the
// subscription's billing term and its MRR. Pure.
import { badRequest } from '../../kernel/errors.js';
import { Dec, parseDecimal, toMinor } from '../../kernel/money.js';
import { TERM_MONTHS, type BillingTerm } from '../../domain/periods.js';
import type { PlanFee, TermRate, UsagePricing } from '../plans/index.js';

/** The term a subscription fee is billed in, or ONE_TIME (stored in the rows' `period` column). */
export type FeeTerm = BillingTerm | 'ONE_TIME';

/**
 * A plan fee with the subscriber's choices made: one price (term, capacity), the slot count. It
 * is stored in subscription_components.fee and subscription_add_ons.fee and answered as is, in
 * the reference's SubscriptionFee shape, which names an extra recurring fee RECURRING and its
 * price `rate`. So it cannot be the PlanFee union itself: rows and checkout price fingerprints
 * already hold this shape. Usage pricing is the plan's, unchanged.
 */
export type SubscriptionFee =
  | { type: 'RATE'; rate: string }
  | { type: 'SLOT'; unit: string; unit_rate: string; initial_slots: number; min_slots: number | null; max_slots: number | null }
  | { type: 'CAPACITY'; rate: string; included: number; overage_rate: string; metric_id: string }
  | { type: 'USAGE'; metric_id: string; model: UsagePricing }
  | { type: 'RECURRING'; rate: string; quantity: number; billing_type: 'ADVANCE' | 'ARREARS' }
  | { type: 'ONE_TIME'; rate: string; quantity: number };

export interface ResolvedFee {
  fee: SubscriptionFee;
  period: FeeTerm;
}

/** The choices `available_parameters` asks for, per component. */
export interface FeeParameters {
  billing_period?: BillingTerm | null;
  committed_capacity?: number | null;
  initial_slot_count?: number | null;
}

function pickTerm(rates: TermRate[], chosen: BillingTerm | null | undefined, path: string): TermRate {
  if (chosen) {
    const rate = rates.find((r) => r.term === chosen);
    if (!rate) throw badRequest(`${path}.billing_period ${chosen} is not offered; choose one of ${rates.map((r) => r.term).join(', ')}`);
    return rate;
  }
  if (rates.length === 1) return rates[0]!;
  throw badRequest(`${path}.billing_period is required: the component is priced in ${rates.map((r) => r.term).join(', ')}`);
}

/** Resolves one catalog fee with the subscription's choices; `path` names the choice in errors. */
export function resolveFee(fee: PlanFee, params: FeeParameters, path: string): ResolvedFee {
  switch (fee.type) {
    case 'RATE': {
      const rate = pickTerm(fee.rates, params.billing_period, path);
      return { fee: { type: 'RATE', rate: rate.price }, period: rate.term };
    }
    case 'SLOT': {
      const rate = pickTerm(fee.rates, params.billing_period, path);
      const slots = params.initial_slot_count ?? fee.minimum_count ?? 1;
      checkSlots(slots, fee.minimum_count, fee.quota, `${path}.initial_slot_count`);
      return {
        fee: { type: 'SLOT', unit: fee.slot_unit_name, unit_rate: rate.price, initial_slots: slots, min_slots: fee.minimum_count, max_slots: fee.quota },
        period: rate.term,
      };
    }
    case 'CAPACITY': {
      const chosen = params.committed_capacity;
      const threshold = chosen === undefined || chosen === null
        ? fee.thresholds.length === 1 ? fee.thresholds[0] : undefined
        : fee.thresholds.find((t) => t.included_amount === chosen);
      if (!threshold) {
        throw badRequest(`${path}.committed_capacity must be one of ${fee.thresholds.map((t) => t.included_amount).join(', ')}`);
      }
      return {
        fee: { type: 'CAPACITY', rate: threshold.price, included: threshold.included_amount, overage_rate: threshold.per_unit_overage, metric_id: fee.metric_id },
        period: fee.cadence,
      };
    }
    case 'USAGE':
      return { fee: { type: 'USAGE', metric_id: fee.metric_id, model: fee.pricing }, period: fee.cadence };
    case 'EXTRA_RECURRING':
      return { fee: { type: 'RECURRING', rate: fee.unit_price, quantity: fee.quantity, billing_type: fee.billing_type }, period: fee.cadence };
    case 'ONE_TIME':
      return { fee: { type: 'ONE_TIME', rate: fee.unit_price, quantity: fee.quantity }, period: 'ONE_TIME' };
  }
}

export function checkSlots(slots: number, min: number | null, max: number | null, path: string): void {
  if (!Number.isInteger(slots) || slots < 0) throw badRequest(`${path} must be a whole number >= 0`);
  if (min !== null && slots < min) throw badRequest(`${path} must be at least ${min}`);
  if (max !== null && slots > max) throw badRequest(`${path} must be at most ${max}`);
}

/** Replaces the price(s) of a resolved fee with an override of the same type; prices are decimal strings. */
export function overrideFee(current: SubscriptionFee, raw: Record<string, unknown>, path: string): SubscriptionFee {
  if (raw.type !== current.type) throw badRequest(`${path}.type must be ${current.type}, the component's fee type`);
  const price = (field: string): string => {
    const value = raw[field];
    if (value === undefined) return (current as Record<string, unknown>)[field] as string;
    if (typeof value !== 'string') throw badRequest(`${path}.${field} must be a decimal string such as "49.00"`);
    try {
      if (parseDecimal(value).isNegative()) throw new Error('negative');
    } catch {
      throw badRequest(`${path}.${field} must be a non-negative decimal string such as "49.00"`);
    }
    return value;
  };
  switch (current.type) {
    case 'RATE':
      return { ...current, rate: price('rate') };
    case 'SLOT':
      return { ...current, unit_rate: price('unit_rate') };
    case 'CAPACITY':
      return { ...current, rate: price('rate'), overage_rate: price('overage_rate') };
    case 'RECURRING':
    case 'ONE_TIME':
      return { ...current, rate: price('rate') };
    case 'USAGE':
      throw badRequest(`${path}: usage pricing cannot be overridden on a subscription`);
  }
}

/** Monthly value of one fee (usage excluded: it is not recurring revenue until measured). */
export function monthlyAmount(fee: SubscriptionFee, period: FeeTerm, quantity = 1): Dec {
  if (period === 'ONE_TIME') return new Dec(0);
  const months = TERM_MONTHS[period];
  let amount: Dec;
  switch (fee.type) {
    case 'RATE':
    case 'CAPACITY':
      amount = parseDecimal(fee.rate);
      break;
    case 'SLOT':
      amount = parseDecimal(fee.unit_rate).times(fee.initial_slots);
      break;
    case 'RECURRING':
      amount = parseDecimal(fee.rate).times(fee.quantity);
      break;
    default:
      return new Dec(0);
  }
  return amount.times(quantity).div(months);
}

/** MRR in minor units, rounded once. */
export function mrrMinor(items: { fee: SubscriptionFee; period: FeeTerm; quantity?: number }[], currency: string): bigint {
  const total = items.reduce((sum, item) => sum.plus(monthlyAmount(item.fee, item.period, item.quantity ?? 1)), new Dec(0));
  return toMinor(total, currency);
}
