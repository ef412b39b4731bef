// Step 2: EXECUTE the plan of an occasion with the fetched usage: price each charge, then hand
// the lines to `assembleInvoice` (rounding once per line, coupons, commitment, tax, totals).
import type { Decimal } from 'decimal.js';
import { Dec, minorToDecimal, toMinor, toMinorParts, type CurrencyCode } from '../../kernel/money.js';
import { BillingRuleError } from '../errors.js';
import { assembleInvoice, type Invoice, type InvoiceLineInput } from '../invoice.js';
import { periodAt, periodStartingOn, prorateByDays } from '../periods.js';
import { priceCapacityOverage, priceMatrix, priceUsage, type PricedUsage, type Tier, type UsageGroup, type UsagePricing } from '../pricing.js';
import { resolveTax, type TaxCustomer } from '../tax.js';
import type { Coupon } from '../discounts.js';
import type { LocalDate } from '../dates.js';
import type { BillingOccasion } from './occasion.js';
import { planCharges, type PlannedCharge } from './plan.js';
import { thresholdWindowKey, type ThresholdBilledWindows } from './threshold-lines.js';
import { advanceSchedule, snapshotDecimal, subscriptionTermOf, validateSnapshot, type SnapshotUsagePricing, type SubscriptionSnapshot } from './snapshot.js';

/** Aggregated usage of one component for its window: a total, or one quantity per dimension group (matrix). */
export type ComponentUsage = string | readonly { readonly dimensions: Readonly<Record<string, string>>; readonly quantity: string }[];

export interface InvoicingEntityTax {
  /** ISO country of the seller. */
  readonly country: string;
  /** Standard VAT/GST rate per country, fractions ("0.2" = 20 %). */
  readonly standardRates: Readonly<Record<string, string>>;
}

export interface SubLineDetail {
  readonly name: string;
  readonly quantity: Decimal;
  readonly unitPrice: Decimal;
  readonly totalMinor: bigint;
  readonly attributes: Readonly<Record<string, unknown>> | null;
}

/** What the invoice math does not carry: ids and display sub-lines (shape of the invoices module's LineDetail). */
export interface LineDetail {
  readonly componentId: string | null;
  readonly productId: string | null;
  readonly metricId: string | null;
  readonly description: string | null;
  readonly subLines: readonly SubLineDetail[];
}

/**
 * One usage window an invoice bills (a USAGE charge, or a CAPACITY overage): what was priced, so
 * usage of the window found after the invoice is finalized is billed as the difference (late.ts).
 */
export interface BilledUsage {
  readonly componentId: string;
  readonly metricId: string;
  /** Half-open window of the charge. */
  readonly periodStart: LocalDate;
  readonly periodEnd: LocalDate;
  /** The occasion whose plan holds the window's charge: the same charge is priced again from it. */
  readonly occasion: BillingOccasion;
  /** The usage priced: a total, or the dimension groups of matrix pricing. */
  readonly usage: ComponentUsage;
  /** What was billed for the window over all invoices so far: quoted minor units (before discount and tax). */
  readonly billedMinor: bigint;
}

export interface ComputedSubscriptionInvoice {
  readonly occasion: BillingOccasion;
  readonly invoice: Invoice;
  /** Same order as `invoice.lines`; the minimum-commitment line gets a detail with null ids. */
  readonly lineDetails: readonly LineDetail[];
  /** couponId → display name, for the coupon lines. */
  readonly couponNames: Readonly<Record<string, string>>;
  /** Coupons that discounted this invoice: their `invoicesRemaining` drops by one when it is finalized. */
  readonly couponsUsed: readonly string[];
  /** Matrix usage groups with no price cell: not billed, reported so the caller can warn. */
  readonly unmatchedUsage: readonly { readonly componentId: string; readonly group: UsageGroup }[];
  /** The usage windows this occasion's charges bill (late usage lines passed in are not among them). */
  readonly billedUsage: readonly BilledUsage[];
  /** Same order as `billedUsage`: the index in `invoice.lines` of the line that bills each window. */
  readonly billedLineIndexes: readonly number[];
}

/** A priced line and what the invoice math does not carry about it. */
export interface PricedLine {
  readonly input: InvoiceLineInput;
  readonly detail: LineDetail;
}

function toUsagePricing(pricing: Exclude<SnapshotUsagePricing, { model: 'MATRIX' }>, path: string): UsagePricing {
  switch (pricing.model) {
    case 'PER_UNIT':
      return { model: 'PER_UNIT', unitPrice: snapshotDecimal(pricing.unitPrice, `${path}.unitPrice`) };
    case 'TIERED':
    case 'VOLUME': {
      // Catalog tiers give each tier's first unit; the math wants each tier's inclusive upper bound,
      // which is the next tier's first unit (a tier [0, 100) holds 100 units: upTo 100).
      const tiers: Tier[] = pricing.tiers.map((tier, index) => {
        const next = pricing.tiers[index + 1];
        return {
          upTo: next === undefined ? null : snapshotDecimal(next.firstUnit, `${path}.tiers[${index + 1}].firstUnit`),
          unitPrice: snapshotDecimal(tier.unitPrice, `${path}.tiers[${index}].unitPrice`),
          flatFee: tier.flatFee == null ? null : snapshotDecimal(tier.flatFee, `${path}.tiers[${index}].flatFee`),
          cap: tier.flatCap == null ? null : snapshotDecimal(tier.flatCap, `${path}.tiers[${index}].flatCap`),
        };
      });
      return { model: pricing.model, tiers };
    }
    case 'PACKAGE':
      return {
        model: 'PACKAGE',
        blockSize: snapshotDecimal(pricing.blockSize, `${path}.blockSize`),
        pricePerBlock: snapshotDecimal(pricing.pricePerBlock, `${path}.pricePerBlock`),
        partialBlock: pricing.partialBlock ?? 'UP',
      };
  }
}

function usageTotal(usage: ComponentUsage | undefined, charge: PlannedCharge): Decimal {
  if (usage === undefined) {
    throw new BillingRuleError('INVALID_QUANTITY', `usage of component ${charge.component.id} for [${charge.periodStart}, ${charge.periodEnd}) is missing`);
  }
  if (typeof usage === 'string') return snapshotDecimal(usage, `usage of component ${charge.component.id}`, true);
  return usage.reduce((sum, group) => sum.plus(snapshotDecimal(group.quantity, `usage of component ${charge.component.id}`, true)), new Dec(0));
}

function subLines(priced: PricedUsage, currency: CurrencyCode, attributes: (index: number) => Record<string, unknown> | null): SubLineDetail[] {
  if (priced.rows.length === 0) return [];
  const totals = toMinorParts(priced.rows.map((row) => row.amount), currency);
  return priced.rows.map((row, index) => ({
    name: row.label,
    quantity: row.quantity,
    unitPrice: row.unitPrice,
    totalMinor: totals[index] ?? 0n,
    attributes: attributes(index),
  }));
}

function describeProration(charge: PlannedCharge): string | null {
  return charge.days < charge.fullPeriodDays ? `Prorated: ${charge.days} of ${charge.fullPeriodDays} days` : null;
}

/** One planned charge priced, with the usage of its component (`usage` by component id). */
export function priceCharge(charge: PlannedCharge, usage: Readonly<Record<string, ComponentUsage>>, currency: CurrencyCode, unmatched: { componentId: string; group: UsageGroup }[]): PricedLine {
  const { component } = charge;
  const fee = component.fee;
  const path = `components[${component.id}].fee`;
  const base = { componentId: component.id, productId: component.productId ?? null };
  const period = { periodStart: charge.periodStart, periodEnd: charge.periodEnd };
  const fixed = (name: string, quantity: Decimal, unitPrice: Decimal, category: InvoiceLineInput['category'] = 'RECURRING'): PricedLine => ({
    input: { name, category, amount: prorateByDays(quantity.times(unitPrice), charge.days, charge.fullPeriodDays), quantity, unitPrice, ...period },
    detail: { ...base, metricId: null, description: describeProration(charge), subLines: [] },
  });
  if (charge.proration !== undefined) {
    const category = charge.timing === 'ONCE' ? 'ONE_TIME' : 'PRORATION';
    const quantity = fee.kind === 'ONE_TIME' || fee.kind === 'EXTRA_RECURRING' ? snapshotDecimal(fee.quantity, `${path}.quantity`) : fee.kind === 'SLOT' ? new Dec(fee.quantity) : null;
    const description = category === 'PRORATION' ? `${charge.days} of ${charge.fullPeriodDays} days` : null;
    return { input: { name: charge.proration.name, category, amount: charge.proration.amount, quantity, unitPrice: null, ...period }, detail: { ...base, metricId: null, description, subLines: [] } };
  }
  switch (fee.kind) {
    case 'RATE':
      return fixed(component.name, new Dec(1), snapshotDecimal(fee.price, `${path}.price`));
    case 'SLOT':
      return fixed(component.name, new Dec(fee.quantity), snapshotDecimal(fee.unitPrice, `${path}.unitPrice`));
    case 'EXTRA_RECURRING':
      return fixed(component.name, snapshotDecimal(fee.quantity, `${path}.quantity`), snapshotDecimal(fee.unitPrice, `${path}.unitPrice`));
    case 'ONE_TIME':
      return { input: { name: component.name, category: 'ONE_TIME', amount: snapshotDecimal(fee.quantity, `${path}.quantity`).times(snapshotDecimal(fee.unitPrice, `${path}.unitPrice`)), quantity: snapshotDecimal(fee.quantity, `${path}.quantity`), unitPrice: snapshotDecimal(fee.unitPrice, `${path}.unitPrice`), ...period }, detail: { ...base, metricId: null, description: null, subLines: [] } };
    case 'CAPACITY': {
      if (charge.part === 'CAPACITY_BASE') return fixed(component.name, new Dec(1), snapshotDecimal(fee.basePrice, `${path}.basePrice`));
      // The commitment shrinks with the window, like the base price billed for it.
      const included = prorateByDays(snapshotDecimal(fee.includedQuantity, `${path}.includedQuantity`), charge.days, charge.fullPeriodDays);
      const used = usageTotal(usage[component.id], charge);
      const overageUnitPrice = snapshotDecimal(fee.overageUnitPrice, `${path}.overageUnitPrice`);
      const priced = priceCapacityOverage(used, included, overageUnitPrice);
      const quantity = priced.rows[0]?.quantity ?? new Dec(0);
      return {
        input: { name: `${component.name} (overage)`, category: 'USAGE', amount: priced.amount, quantity, unitPrice: overageUnitPrice, ...period },
        detail: { ...base, metricId: fee.metricId, description: `${used.toString()} used, ${included.toString()} included`, subLines: [] },
      };
    }
    case 'USAGE': {
      const componentUsage = usage[component.id];
      if (fee.pricing.model === 'MATRIX') {
        if (typeof componentUsage !== 'object') {
          usageTotal(componentUsage, charge); // throws when missing
          throw new BillingRuleError('INVALID_QUANTITY', `usage of matrix component ${component.id} must be a list of dimension groups`);
        }
        const groups: UsageGroup[] = componentUsage.map((group) => ({ dimensions: group.dimensions, quantity: snapshotDecimal(group.quantity, `usage of component ${component.id}`, true) }));
        const rates = fee.pricing.cells.map((cell, index) => ({ dimensions: cell.dimensions, unitPrice: snapshotDecimal(cell.unitPrice, `${path}.pricing.cells[${index}].unitPrice`) }));
        const priced = priceMatrix(rates, groups);
        priced.unmatched.forEach((group) => unmatched.push({ componentId: component.id, group }));
        const quantity = priced.rows.reduce((sum, row) => sum.plus(row.quantity), new Dec(0));
        return {
          input: { name: component.name, category: 'USAGE', amount: priced.amount, quantity, unitPrice: null, ...period },
          detail: { ...base, metricId: fee.metricId, description: null, subLines: subLines(priced, currency, () => null) },
        };
      }
      const quantity = usageTotal(componentUsage, charge);
      const pricing = toUsagePricing(fee.pricing, `${path}.pricing`);
      const priced = priceUsage(pricing, quantity);
      const perUnit = pricing.model === 'PER_UNIT';
      return {
        input: { name: component.name, category: 'USAGE', amount: priced.amount, quantity, unitPrice: perUnit ? pricing.unitPrice : null, ...period },
        detail: {
          ...base,
          metricId: fee.metricId,
          description: null,
          subLines: perUnit ? [] : subLines(priced, currency, (i) => ({ flatFee: priced.rows[i]!.flatFee.toString() })),
        },
      };
    }
  }
}

function activeCoupons(snapshot: SubscriptionSnapshot): Coupon[] {
  return (snapshot.coupons ?? [])
    .filter((coupon) => coupon.invoicesRemaining === null || coupon.invoicesRemaining > 0)
    .map((coupon, index): Coupon =>
      coupon.kind === 'PERCENTAGE'
        ? { couponId: coupon.couponId, kind: 'PERCENTAGE', percent: snapshotDecimal(coupon.percent, `coupons[${index}].percent`) }
        : { couponId: coupon.couponId, kind: 'FIXED', amountMinor: toMinor(snapshotDecimal(coupon.amount, `coupons[${index}].amount`), coupon.currency), currency: coupon.currency },
    );
}

/** The commitment for the advance period of a FIRST or RENEWAL invoice, prorated when it is partial. */
function commitmentFor(snapshot: SubscriptionSnapshot, occasion: BillingOccasion): Decimal | null {
  if (snapshot.minimumCommitment == null || (occasion.kind !== 'FIRST' && occasion.kind !== 'RENEWAL')) return null;
  const schedule = advanceSchedule(snapshot, subscriptionTermOf(snapshot));
  const period = occasion.kind === 'FIRST' ? periodAt(schedule, 0) : periodStartingOn(schedule, occasion.invoiceDate);
  if (period === null) return null;
  return prorateByDays(snapshotDecimal(snapshot.minimumCommitment, 'minimumCommitment'), period.days, period.fullPeriodDays);
}

/** True for a charge whose price depends on usage: its window is recorded as billed. */
export function isUsageCharge(charge: PlannedCharge): boolean {
  return charge.timing === 'ARREARS' && charge.proration === undefined && (charge.component.fee.kind === 'USAGE' || charge.part === 'CAPACITY_OVERAGE');
}

/**
 * One negative line per window billed by threshold invoices, right for the period-end invoice:
 * its net and tax are those the threshold invoices billed (`settled`), so it takes no coupon,
 * does not lower the minimum commitment base, and reverses exactly the tax it was charged.
 * `lines[i]` is the line that bills `billed[i]`.
 */
function thresholdDeductionLines(
  currency: CurrencyCode, billed: readonly BilledUsage[], lines: readonly PricedLine[], windows: ThresholdBilledWindows | undefined,
): PricedLine[] {
  if (windows === undefined || windows.size === 0) return [];
  const out: PricedLine[] = [];
  billed.forEach((window, index) => {
    const before = windows.get(thresholdWindowKey(window.componentId, window.periodStart));
    const line = lines[index];
    if (before === undefined || line === undefined || (before.netMinor === 0n && before.taxMinor === 0n)) return;
    out.push({
      input: {
        name: `${line.input.name}: billed on threshold invoices`,
        category: 'USAGE',
        amount: minorToDecimal(-before.quotedMinor, currency),
        quantity: new Dec(before.quantity).negated(),
        unitPrice: null,
        periodStart: line.input.periodStart ?? null,
        periodEnd: line.input.periodEnd ?? null,
        settled: { netMinor: -before.netMinor, taxMinor: -before.taxMinor },
      },
      detail: { ...line.detail, description: 'Usage of this period already invoiced on its threshold invoices', subLines: [] },
    });
  });
  return out;
}

/**
 * Prices an occasion (from `invoicesDue`) with the usage fetched for `usageQueries` and assembles
 * the invoice. Usage: decimal strings per component id (a list of groups for matrix pricing).
 * Coupons apply to recurring invoices only, never to ADJUSTMENT invoices. `extraLines` (late
 * usage of earlier periods, from `lateUsageLines`) go after the occasion's own lines.
 */
/**
 * The standard rates as decimals, parsed once per rate table (the invoices module passes one
 * constant table for every invoice; parsing its ~30 rates per invoice was a tenth of the engine's
 * time in a bill run). Decimals are immutable, so sharing them is safe; a table with a rate that
 * is not a decimal is not kept and throws every time.
 */
const parsedRateTables = new WeakMap<Readonly<Record<string, string>>, Record<string, Decimal>>();
function parsedStandardRates(rates: Readonly<Record<string, string>>): Record<string, Decimal> {
  let parsed = parsedRateTables.get(rates);
  if (!parsed) {
    parsed = Object.fromEntries(Object.entries(rates).map(([country, rate]) => [country, snapshotDecimal(rate, `standardRates.${country}`)]));
    parsedRateTables.set(rates, parsed);
  }
  return parsed;
}

export function computeSubscriptionInvoice(
  snapshot: SubscriptionSnapshot,
  occasion: BillingOccasion,
  usageByComponent: Readonly<Record<string, ComponentUsage>>,
  customerTax: TaxCustomer,
  entity: InvoicingEntityTax,
  options: {
    readonly customerBalanceMinor?: bigint;
    readonly extraLines?: readonly PricedLine[];
    /** What the period's threshold invoices billed, per usage window (thresholds.ts): deducted line by line. */
    readonly thresholdBilled?: ThresholdBilledWindows;
  } = {},
): ComputedSubscriptionInvoice {
  validateSnapshot(snapshot);
  const { currency } = snapshot;
  const unmatched: { componentId: string; group: UsageGroup }[] = [];
  const billedUsage: BilledUsage[] = [];
  const billedLineIndexes: number[] = [];
  const priced = planCharges(snapshot, occasion).map((charge, index) => {
    const line = priceCharge(charge, usageByComponent, currency, unmatched);
    const fee = charge.component.fee;
    if (isUsageCharge(charge) && (fee.kind === 'USAGE' || fee.kind === 'CAPACITY')) {
      billedUsage.push({
        componentId: charge.component.id, metricId: fee.metricId, periodStart: charge.periodStart, periodEnd: charge.periodEnd, occasion,
        usage: usageByComponent[charge.component.id] ?? '0', billedMinor: toMinor(line.input.amount, currency),
      });
      billedLineIndexes.push(index);
    }
    return line;
  });
  // after the occasion's own lines, so `billedLineIndexes` stay right
  priced.push(...thresholdDeductionLines(currency, billedUsage, billedLineIndexes.map((i) => priced[i]!), options.thresholdBilled));
  priced.push(...(options.extraLines ?? []));
  const tax = resolveTax({ entityCountry: entity.country, customer: customerTax, standardRates: parsedStandardRates(entity.standardRates) });
  const coupons = occasion.invoiceType === 'RECURRING' ? activeCoupons(snapshot) : [];
  const invoice = assembleInvoice({
    currency,
    taxInclusive: snapshot.taxInclusive === true,
    lines: priced.map((line) => line.input),
    coupons,
    minimumCommitment: commitmentFor(snapshot, occasion),
    tax,
    customerBalanceMinor: options.customerBalanceMinor ?? 0n,
  });
  const lineDetails: LineDetail[] = invoice.lines.map(
    (_line, index) => priced[index]?.detail ?? { componentId: null, productId: null, metricId: null, description: null, subLines: [] },
  );
  const couponNames = Object.fromEntries((snapshot.coupons ?? []).map((coupon) => [coupon.couponId, coupon.name ?? coupon.couponId]));
  return {
    occasion,
    invoice,
    lineDetails,
    couponNames,
    couponsUsed: invoice.couponApplications.filter((application) => application.discountMinor > 0n).map((application) => application.couponId),
    unmatchedUsage: unmatched,
    billedUsage,
    billedLineIndexes,
  };
}

