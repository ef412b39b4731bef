// Usage pricing models. Every function returns an unrounded major-unit amount; the invoice
// assembler turns it into minor units once (`toMinor`). Breakdown rows are for display.
import type { Decimal } from 'decimal.js';
import { Dec } from '../kernel/money.js';
import { BillingRuleError } from './errors.js';

/**
 * One price tier. `upTo` is INCLUSIVE of its last unit (as Stripe's `up_to`): with tiers
 * up to 100 then up to null, unit 100 is in the first tier and unit 100.5 in the second.
 * Tier k covers the quantity range (previous upTo, upTo]; the first starts at 0 and the last
 * has `upTo: null` (unbounded).
 */
export interface Tier {
  readonly upTo: Decimal | null;
  readonly unitPrice: Decimal;
  /** Charged once when the tier is entered (quantity strictly above its lower bound). */
  readonly flatFee?: Decimal | null;
  /** Ceiling on this tier's amount (units × unitPrice + flatFee). */
  readonly cap?: Decimal | null;
}

export type PartialBlockRounding = 'UP' | 'DOWN';

export type UsagePricing =
  | { readonly model: 'PER_UNIT'; readonly unitPrice: Decimal }
  /** Graduated: each tier prices only the units that fall inside it. */
  | { readonly model: 'TIERED'; readonly tiers: readonly Tier[] }
  /** Volume: the whole quantity at the price of the tier it falls in. */
  | { readonly model: 'VOLUME'; readonly tiers: readonly Tier[] }
  | {
      readonly model: 'PACKAGE';
      readonly blockSize: Decimal;
      readonly pricePerBlock: Decimal;
      readonly partialBlock: PartialBlockRounding;
    };

export interface PriceBreakdownRow {
  readonly label: string;
  readonly quantity: Decimal;
  readonly unitPrice: Decimal;
  readonly flatFee: Decimal;
  /** Unrounded major units. */
  readonly amount: Decimal;
}

export interface PricedUsage {
  /** Unrounded major units; Σ rows. */
  readonly amount: Decimal;
  readonly rows: readonly PriceBreakdownRow[];
}

const ZERO = new Dec(0);

function nonNegative(value: Decimal, what: string): Decimal {
  if (value.isNegative() || value.isNaN() || !value.isFinite()) {
    throw new BillingRuleError('INVALID_PRICING', `${what} must be a non-negative decimal, got ${value.toString()}`);
  }
  return new Dec(value);
}

/** Negative or zero usage bills nothing (corrections net out before pricing). */
function billableQuantity(quantity: Decimal): Decimal {
  return quantity.isPositive() && !quantity.isZero() ? new Dec(quantity) : ZERO;
}

function validateTiers(tiers: readonly Tier[]): void {
  if (tiers.length === 0) throw new BillingRuleError('INVALID_PRICING', 'at least one tier is required');
  let previous: Decimal = ZERO;
  tiers.forEach((tier, index) => {
    const isLast = index === tiers.length - 1;
    nonNegative(tier.unitPrice, `tier ${index + 1} unit price`);
    if (tier.flatFee != null) nonNegative(tier.flatFee, `tier ${index + 1} flat fee`);
    if (tier.cap != null) nonNegative(tier.cap, `tier ${index + 1} cap`);
    if (isLast !== (tier.upTo === null)) {
      throw new BillingRuleError('INVALID_PRICING', 'only the last tier is unbounded (up_to null), and it must be');
    }
    if (tier.upTo !== null) {
      if (!tier.upTo.greaterThan(previous)) {
        throw new BillingRuleError('INVALID_PRICING', `tier ${index + 1} up_to must be above ${previous.toString()}`);
      }
      previous = tier.upTo;
    }
  });
}

function tierLabel(lower: Decimal, upTo: Decimal | null): string {
  return upTo === null ? `above ${lower.toString()}` : `${lower.toString()} to ${upTo.toString()}`;
}

function tierAmount(tier: Tier, units: Decimal): { flatFee: Decimal; amount: Decimal } {
  const flatFee = tier.flatFee == null ? ZERO : new Dec(tier.flatFee);
  const uncapped = units.times(tier.unitPrice).plus(flatFee);
  return { flatFee, amount: tier.cap != null && uncapped.greaterThan(tier.cap) ? new Dec(tier.cap) : uncapped };
}

function sumRows(rows: readonly PriceBreakdownRow[]): Decimal {
  return rows.reduce((sum, row) => sum.plus(row.amount), ZERO);
}

function priceGraduated(tiers: readonly Tier[], quantity: Decimal): PricedUsage {
  const rows: PriceBreakdownRow[] = [];
  let lower: Decimal = ZERO;
  for (const tier of tiers) {
    if (!quantity.greaterThan(lower)) break; // tier never entered: no units, no flat fee
    const upper = tier.upTo === null || quantity.lessThan(tier.upTo) ? quantity : tier.upTo;
    const units = upper.minus(lower);
    const { flatFee, amount } = tierAmount(tier, units);
    rows.push({ label: tierLabel(lower, tier.upTo), quantity: units, unitPrice: tier.unitPrice, flatFee, amount });
    if (tier.upTo === null) break;
    lower = tier.upTo;
  }
  return { amount: sumRows(rows), rows };
}

function priceVolume(tiers: readonly Tier[], quantity: Decimal): PricedUsage {
  if (quantity.isZero()) return { amount: ZERO, rows: [] };
  let lower: Decimal = ZERO;
  for (const tier of tiers) {
    if (tier.upTo === null || !quantity.greaterThan(tier.upTo)) {
      const { flatFee, amount } = tierAmount(tier, quantity);
      const row = { label: tierLabel(lower, tier.upTo), quantity, unitPrice: tier.unitPrice, flatFee, amount };
      return { amount, rows: [row] };
    }
    lower = tier.upTo;
  }
  throw new BillingRuleError('INVALID_PRICING', 'no tier matched'); // unreachable after validation
}

function pricePackage(blockSize: Decimal, pricePerBlock: Decimal, rounding: PartialBlockRounding, quantity: Decimal): PricedUsage {
  if (!blockSize.isPositive() || blockSize.isZero()) {
    throw new BillingRuleError('INVALID_PRICING', 'package block size must be above zero');
  }
  nonNegative(pricePerBlock, 'price per block');
  const blocks = new Dec(quantity).div(blockSize).toDecimalPlaces(0, rounding === 'UP' ? Dec.ROUND_CEIL : Dec.ROUND_FLOOR);
  if (blocks.isZero()) return { amount: ZERO, rows: [] };
  const amount = blocks.times(pricePerBlock);
  const label = `${blocks.toString()} × ${blockSize.toString()} units`;
  return { amount, rows: [{ label, quantity: blocks, unitPrice: new Dec(pricePerBlock), flatFee: ZERO, amount }] };
}

/** Prices one usage quantity (already aggregated over the period) with a usage model. */
export function priceUsage(pricing: UsagePricing, usageQuantity: Decimal): PricedUsage {
  const quantity = billableQuantity(usageQuantity);
  switch (pricing.model) {
    case 'PER_UNIT': {
      nonNegative(pricing.unitPrice, 'unit price');
      if (quantity.isZero()) return { amount: ZERO, rows: [] };
      const amount = quantity.times(pricing.unitPrice);
      return { amount, rows: [{ label: 'per unit', quantity, unitPrice: pricing.unitPrice, flatFee: ZERO, amount }] };
    }
    case 'TIERED':
      validateTiers(pricing.tiers);
      return priceGraduated(pricing.tiers, quantity);
    case 'VOLUME':
      validateTiers(pricing.tiers);
      return priceVolume(pricing.tiers, quantity);
    case 'PACKAGE':
      return pricePackage(pricing.blockSize, pricing.pricePerBlock, pricing.partialBlock, quantity);
  }
}

/** Capacity overage, billed in arrears: units above the committed capacity × overage rate. */
export function priceCapacityOverage(usageQuantity: Decimal, includedQuantity: Decimal, overageUnitPrice: Decimal): PricedUsage {
  nonNegative(includedQuantity, 'included capacity');
  const overage = billableQuantity(new Dec(usageQuantity).minus(includedQuantity));
  return priceUsage({ model: 'PER_UNIT', unitPrice: overageUnitPrice }, overage);
}

/** Dimension values of a usage group or matrix cell, e.g. { region: 'eu', tier: 'gpu' }. */
export type DimensionValues = Readonly<Record<string, string>>;

export interface MatrixRate {
  readonly dimensions: DimensionValues;
  readonly unitPrice: Decimal;
}

export interface UsageGroup {
  readonly dimensions: DimensionValues;
  readonly quantity: Decimal;
}

export interface PricedMatrix extends PricedUsage {
  /** Groups whose dimension values have no price cell: not billed, reported so the caller can warn. */
  readonly unmatched: readonly UsageGroup[];
}

/** Stable key of a dimension map, independent of key order. */
export function dimensionKey(dimensions: DimensionValues): string {
  return JSON.stringify(Object.keys(dimensions).sort().map((name) => [name, dimensions[name]]));
}

function dimensionLabel(dimensions: DimensionValues): string {
  return Object.keys(dimensions).sort().map((name) => dimensions[name]).join(', ');
}

/**
 * Matrix pricing: each usage group is priced at the cell whose dimension values equal the
 * group's exactly. Groups with zero or negative usage produce no row.
 */
export function priceMatrix(rates: readonly MatrixRate[], usageGroups: readonly UsageGroup[]): PricedMatrix {
  const cells = new Map<string, MatrixRate>();
  for (const rate of rates) {
    nonNegative(rate.unitPrice, 'matrix unit price');
    const key = dimensionKey(rate.dimensions);
    if (cells.has(key)) throw new BillingRuleError('INVALID_PRICING', `duplicate matrix cell ${dimensionLabel(rate.dimensions)}`);
    cells.set(key, rate);
  }
  const rows: PriceBreakdownRow[] = [];
  const unmatched: UsageGroup[] = [];
  for (const group of usageGroups) {
    const cell = cells.get(dimensionKey(group.dimensions));
    if (cell === undefined) {
      unmatched.push(group);
      continue;
    }
    const quantity = billableQuantity(group.quantity);
    if (quantity.isZero()) continue;
    const amount = quantity.times(cell.unitPrice);
    rows.push({ label: dimensionLabel(group.dimensions), quantity, unitPrice: cell.unitPrice, flatFee: ZERO, amount });
  }
  return { amount: sumRows(rows), rows, unmatched };
}
