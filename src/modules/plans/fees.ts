// The stored fee: what a plan component (price_components.fee) or an add-on price (prices.fee)
// charges, in the reference's wire shapes (RatePlanFee, SlotPlanFee, CapacityPlanFee,
// UsagePlanFee, ExtraRecurringPlanFee, OneTimePlanFee). Parsed once, when written; the rows read
// back are this union, and subscriptions resolve it (subscriptions/fees.ts) without a cast. Pure:
// validation returns a normalised fee or throws a 400 naming the field.
import { badRequest } from '../../kernel/errors.js';
import { TERM_MONTHS, type BillingTerm } from '../../domain/periods.js';
import { FEE_TYPES, USAGE_MODELS, type FeeStructure, type UsageModel } from '../catalog/index.js';

/** The terms a fee can be priced in, shortest first (the domain's BillingTerm). */
export const BILLING_TERMS = Object.keys(TERM_MONTHS) as readonly BillingTerm[];

/** A non-negative decimal in text, e.g. "49.00" or "0.0015"; never a JSON number. */
export type DecimalString = string;

export interface TermRate {
  term: BillingTerm;
  price: DecimalString;
}
export interface TierRow {
  /** First unit of the tier; the tier runs up to the next tier's first_unit (exclusive). */
  first_unit: number;
  rate: DecimalString;
  flat_fee: DecimalString | null;
  flat_cap: DecimalString | null;
}
export interface MatrixDimension {
  key: string;
  value: string;
}
export interface MatrixRow {
  dimension1: MatrixDimension;
  dimension2: MatrixDimension | null;
  per_unit_price: DecimalString;
}
export interface CapacityThreshold {
  included_amount: number;
  price: DecimalString;
  per_unit_overage: DecimalString;
}

/** How usage is priced; a subscription keeps its plan's as is (SubscriptionFee USAGE `model`). */
export type UsagePricing =
  | { type: 'PER_UNIT'; rate: DecimalString }
  | { type: 'TIERED' | 'VOLUME'; tiers: TierRow[]; block_size: number | null }
  | { type: 'PACKAGE'; block_size: number; rate: DecimalString; rounding: 'UP' | 'DOWN' }
  | { type: 'MATRIX'; rates: MatrixRow[] };

export type PlanFee =
  | { type: 'RATE'; rates: TermRate[] }
  | {
      type: 'SLOT';
      rates: TermRate[];
      slot_unit_name: string;
      minimum_count: number | null;
      quota: number | null;
      upgrade_policy: 'PRORATED';
      downgrade_policy: 'REMOVE_AT_END_OF_PERIOD';
    }
  | { type: 'CAPACITY'; metric_id: string; cadence: BillingTerm; thresholds: CapacityThreshold[] }
  | { type: 'USAGE'; metric_id: string; cadence: BillingTerm; pricing: UsagePricing }
  | { type: 'EXTRA_RECURRING'; unit_price: DecimalString; quantity: number; billing_type: 'ADVANCE' | 'ARREARS'; cadence: BillingTerm }
  | { type: 'ONE_TIME'; unit_price: DecimalString; quantity: number };

type Input = Record<string, unknown>;

const DECIMAL = /^\d+(\.\d+)?$/;
/**
 * Up to 12 digits before the point and 12 after. Amounts are settled as bigint minor units, so
 * prices are bounded well inside that range (a trillion per unit is plenty).
 */
const BOUNDED_DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

function object(raw: unknown, path: string): Input {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest(`${path} must be an object`);
  return raw as Input;
}

function onlyFields(input: Input, known: readonly string[], path: string, what: string): void {
  for (const field of Object.keys(input)) {
    if (!known.includes(field)) throw badRequest(`${path}.${field} is not a field of ${what}`);
  }
}

/** Parses a price: a JSON string holding a non-negative plain decimal. */
export function decimalString(raw: unknown, path: string): DecimalString {
  if (typeof raw === 'number') throw badRequest(`${path} must be a decimal string such as "49.00", not a JSON number`);
  if (typeof raw !== 'string') throw badRequest(`${path} must be a decimal string such as "49.00"`);
  if (!DECIMAL.test(raw)) throw badRequest(`${path} must be a non-negative decimal string such as "49.00", got "${raw.slice(0, 40)}"`);
  if (!BOUNDED_DECIMAL.test(raw)) throw badRequest(`${path} must have at most 12 digits before and 12 after the decimal point`);
  return raw;
}

function optionalDecimal(raw: unknown, path: string): DecimalString | null {
  return raw === undefined || raw === null ? null : decimalString(raw, path);
}

function integer(raw: unknown, path: string, min: number): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < min) throw badRequest(`${path} must be an integer >= ${min}`);
  return raw;
}

function optionalInteger(raw: unknown, path: string, min: number): number | null {
  return raw === undefined || raw === null ? null : integer(raw, path, min);
}

function text(raw: unknown, path: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw badRequest(`${path} is required and must be a non-empty string`);
  return raw;
}

function oneOf<T extends string>(raw: unknown, allowed: readonly T[], path: string, fallback?: T): T {
  const value = raw ?? fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw badRequest(`${path} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function array(raw: unknown, path: string, minItems = 1): unknown[] {
  if (!Array.isArray(raw)) throw badRequest(`${path} must be an array`);
  if (raw.length < minItems) throw badRequest(`${path} must have at least ${minItems} item${minItems > 1 ? 's' : ''}`);
  return raw;
}

function termRates(raw: unknown, path: string): TermRate[] {
  const seen = new Set<string>();
  return array(raw, path).map((item, i) => {
    const p = `${path}[${i}]`;
    const input = object(item, p);
    onlyFields(input, ['term', 'price'], p, 'a term rate');
    // The spec's example sends only `price`: a single rate without term is monthly.
    const term = oneOf(input.term, BILLING_TERMS, `${p}.term`, 'MONTHLY');
    if (seen.has(term)) throw badRequest(`${p}.term ${term} is given twice`);
    seen.add(term);
    return { term, price: decimalString(input.price, `${p}.price`) };
  });
}

/** Tiers start at unit 0 and their first units strictly rise. */
export function tierRows(raw: unknown, path: string): TierRow[] {
  const rows = array(raw, path).map((item, i) => {
    const p = `${path}[${i}]`;
    const input = object(item, p);
    onlyFields(input, ['first_unit', 'rate', 'flat_fee', 'flat_cap'], p, 'a tier');
    return {
      first_unit: integer(input.first_unit, `${p}.first_unit`, 0),
      rate: decimalString(input.rate, `${p}.rate`),
      flat_fee: optionalDecimal(input.flat_fee, `${p}.flat_fee`),
      flat_cap: optionalDecimal(input.flat_cap, `${p}.flat_cap`),
    };
  });
  if (rows[0]!.first_unit !== 0) throw badRequest(`${path}[0].first_unit must be 0: the first tier starts at unit 0`);
  rows.forEach((row, i) => {
    if (i > 0 && row.first_unit <= rows[i - 1]!.first_unit) {
      throw badRequest(`${path}[${i}].first_unit must be greater than ${path}[${i - 1}].first_unit (${rows[i - 1]!.first_unit})`);
    }
  });
  return rows;
}

function dimension(raw: unknown, path: string): MatrixDimension {
  const input = object(raw, path);
  onlyFields(input, ['key', 'value'], path, 'a matrix dimension');
  return { key: text(input.key, `${path}.key`), value: text(input.value, `${path}.value`) };
}

function matrixRows(raw: unknown, path: string): MatrixRow[] {
  const cells = new Set<string>();
  const rows = array(raw, path).map((item, i) => {
    const p = `${path}[${i}]`;
    const input = object(item, p);
    onlyFields(input, ['dimension1', 'dimension2', 'per_unit_price'], p, 'a matrix row');
    const row: MatrixRow = {
      dimension1: dimension(input.dimension1, `${p}.dimension1`),
      dimension2: input.dimension2 === undefined || input.dimension2 === null ? null : dimension(input.dimension2, `${p}.dimension2`),
      per_unit_price: decimalString(input.per_unit_price, `${p}.per_unit_price`),
    };
    const cell = JSON.stringify([row.dimension1.value, row.dimension2?.value ?? null]);
    if (cells.has(cell)) throw badRequest(`${p} prices the same cell as an earlier row`);
    cells.add(cell);
    return row;
  });
  // Every row prices the same dimensions, or a usage group could match two rows or none by accident.
  const shape = (row: MatrixRow) => `${row.dimension1.key}|${row.dimension2?.key ?? ''}`;
  rows.forEach((row, i) => {
    if (shape(row) !== shape(rows[0]!)) throw badRequest(`${path}[${i}] must use the same dimension keys as ${path}[0]`);
  });
  return rows;
}

export function usagePricing(raw: unknown, path: string, expected?: UsageModel): UsagePricing {
  const input = object(raw, path);
  const type = oneOf(input.type, USAGE_MODELS, `${path}.type`, expected);
  if (expected && type !== expected) throw badRequest(`${path}.type is ${type} but the product's usage model is ${expected}`);
  switch (type) {
    case 'PER_UNIT':
      onlyFields(input, ['type', 'rate'], path, 'PER_UNIT pricing');
      return { type, rate: decimalString(input.rate, `${path}.rate`) };
    case 'TIERED':
    case 'VOLUME':
      onlyFields(input, ['type', 'tiers', 'block_size'], path, `${type} pricing`);
      return { type, tiers: tierRows(input.tiers, `${path}.tiers`), block_size: optionalInteger(input.block_size, `${path}.block_size`, 1) };
    case 'PACKAGE':
      onlyFields(input, ['type', 'block_size', 'rate', 'rounding'], path, 'PACKAGE pricing');
      return {
        type,
        block_size: integer(input.block_size, `${path}.block_size`, 1),
        rate: decimalString(input.rate, `${path}.rate`),
        rounding: oneOf(input.rounding, ['UP', 'DOWN'] as const, `${path}.rounding`, 'UP'),
      };
    case 'MATRIX':
      onlyFields(input, ['type', 'rates'], path, 'MATRIX pricing');
      return { type, rates: matrixRows(input.rates, `${path}.rates`) };
  }
}

function capacityThresholds(raw: unknown, path: string): CapacityThreshold[] {
  const seen = new Set<number>();
  return array(raw, path).map((item, i) => {
    const p = `${path}[${i}]`;
    const input = object(item, p);
    onlyFields(input, ['included_amount', 'price', 'per_unit_overage'], p, 'a capacity threshold');
    const included = integer(input.included_amount, `${p}.included_amount`, 0);
    if (seen.has(included)) throw badRequest(`${p}.included_amount ${included} is given twice`);
    seen.add(included);
    return { included_amount: included, price: decimalString(input.price, `${p}.price`), per_unit_overage: decimalString(input.per_unit_overage, `${p}.per_unit_overage`) };
  });
}

/**
 * Validates a component's fee. `product` is the fee structure of the component's product: it
 * gives the fee type when the body omits `type` (the spec's example does), and the defaults
 * (slot unit, metric, usage model, billing type) the fee must agree with.
 */
export function parsePlanFee(raw: unknown, path: string, product?: FeeStructure): PlanFee {
  const input = object(raw, path);
  const type = oneOf(input.type, FEE_TYPES, `${path}.type`, product?.type);
  if (product && type !== product.type) throw badRequest(`${path}.type is ${type} but the product's fee type is ${product.type}`);
  const metric = (): string => {
    const fromProduct = product && (product.type === 'USAGE' || product.type === 'CAPACITY') ? product.metric_id : undefined;
    const metricId = text(input.metric_id ?? fromProduct, `${path}.metric_id`);
    if (fromProduct && metricId !== fromProduct) throw badRequest(`${path}.metric_id must be the product's metric ${fromProduct}`);
    return metricId;
  };
  const cadence = () => oneOf(input.cadence, BILLING_TERMS, `${path}.cadence`, 'MONTHLY');
  switch (type) {
    case 'RATE':
      onlyFields(input, ['type', 'rates'], path, 'a RATE fee');
      return { type, rates: termRates(input.rates, `${path}.rates`) };
    case 'SLOT': {
      onlyFields(input, ['type', 'rates', 'slot_unit_name', 'minimum_count', 'quota', 'upgrade_policy', 'downgrade_policy'], path, 'a SLOT fee');
      const minimum = optionalInteger(input.minimum_count, `${path}.minimum_count`, 0);
      const quota = optionalInteger(input.quota, `${path}.quota`, 1);
      if (minimum !== null && quota !== null && quota < minimum) throw badRequest(`${path}.quota must be >= ${path}.minimum_count`);
      return {
        type,
        rates: termRates(input.rates, `${path}.rates`),
        slot_unit_name: text(input.slot_unit_name ?? (product?.type === 'SLOT' ? product.slot_unit_name : undefined), `${path}.slot_unit_name`),
        minimum_count: minimum,
        quota,
        upgrade_policy: oneOf(input.upgrade_policy, ['PRORATED'] as const, `${path}.upgrade_policy`, 'PRORATED'),
        downgrade_policy: oneOf(input.downgrade_policy, ['REMOVE_AT_END_OF_PERIOD'] as const, `${path}.downgrade_policy`, 'REMOVE_AT_END_OF_PERIOD'),
      };
    }
    case 'CAPACITY':
      onlyFields(input, ['type', 'metric_id', 'thresholds', 'cadence'], path, 'a CAPACITY fee');
      return { type, metric_id: metric(), cadence: cadence(), thresholds: capacityThresholds(input.thresholds, `${path}.thresholds`) };
    case 'USAGE': {
      onlyFields(input, ['type', 'metric_id', 'pricing', 'cadence'], path, 'a USAGE fee');
      const model = product?.type === 'USAGE' ? product.model : undefined;
      return { type, metric_id: metric(), cadence: cadence(), pricing: usagePricing(input.pricing, `${path}.pricing`, model) };
    }
    case 'EXTRA_RECURRING': {
      onlyFields(input, ['type', 'unit_price', 'quantity', 'billing_type', 'cadence'], path, 'an EXTRA_RECURRING fee');
      const fromProduct = product?.type === 'EXTRA_RECURRING' ? product.billing_type : undefined;
      const billingType = oneOf(input.billing_type, ['ADVANCE', 'ARREARS'] as const, `${path}.billing_type`, fromProduct);
      if (fromProduct && billingType !== fromProduct) throw badRequest(`${path}.billing_type must be the product's billing type ${fromProduct}`);
      return {
        type,
        unit_price: decimalString(input.unit_price, `${path}.unit_price`),
        quantity: integer(input.quantity ?? 1, `${path}.quantity`, 0),
        billing_type: billingType,
        cadence: cadence(),
      };
    }
    case 'ONE_TIME':
      onlyFields(input, ['type', 'unit_price', 'quantity'], path, 'a ONE_TIME fee');
      return { type, unit_price: decimalString(input.unit_price, `${path}.unit_price`), quantity: integer(input.quantity ?? 1, `${path}.quantity`, 0) };
  }
}

/** The metric a fee is bound to, if any. */
export function feeMetricId(fee: PlanFee): string | null {
  return fee.type === 'CAPACITY' || fee.type === 'USAGE' ? fee.metric_id : null;
}

export interface AvailableParameters {
  /** component id -> the terms a subscription may pick, for components priced in several terms */
  billing_periods: Record<string, BillingTerm[]>;
  /** component id -> the committed capacities offered, for components with several thresholds */
  capacity_thresholds: Record<string, number[]>;
  /** components whose initial slot count a subscription chooses */
  slot_components: string[];
}

/** What a subscription must choose: only the choices that are not already made by the plan. */
export function availableParameters(components: readonly { id: string; fee: PlanFee }[]): AvailableParameters {
  const result: AvailableParameters = { billing_periods: {}, capacity_thresholds: {}, slot_components: [] };
  for (const { id, fee } of components) {
    if ((fee.type === 'RATE' || fee.type === 'SLOT') && fee.rates.length > 1) result.billing_periods[id] = fee.rates.map((r) => r.term);
    if (fee.type === 'CAPACITY' && fee.thresholds.length > 1) result.capacity_thresholds[id] = fee.thresholds.map((t) => t.included_amount);
    if (fee.type === 'SLOT') result.slot_components.push(id);
  }
  return result;
}
