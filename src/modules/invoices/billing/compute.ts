// Turns a subscription snapshot, its usage and the tax context into the invoice for one date.
// Everything here is a function of its inputs (usage is fetched through `usageOf`), so the
// scheduler, the draft refresh and the upcoming-invoice preview all run exactly this code.
import type { Decimal } from 'decimal.js';
import { Dec, toMinorParts } from '../../../kernel/money.js';
import {
  addDays, amountForPeriod, assembleInvoice, chargeSlotsDue, compareDates, invoiceWindows, isPartialPeriod, priceCapacityOverage, priceMatrix,
  priceUsage, type BillingPeriod, type BillingSchedule, type BillingTerm, type Coupon, type FeeTimingSpec, type Invoice, type InvoiceLineInput,
  type InvoiceOccasion, type LocalDate, type PricedUsage, type TaxDecision, type Tier, type UsagePricing,
} from '../../../domain/index.js';
import type { SubscriptionFee, SubscriptionSnapshot } from '../../subscriptions/index.js';
import type { LineDetail } from '../drafts.js';

export interface MetricUsage {
  totalValue: string;
  groups: { dimensions: Record<string, string>; value: string }[];
}
/** Usage of the subscription's customer for a metric over [start, end). */
export type UsageOf = (metricId: string, start: LocalDate, end: LocalDate) => Promise<MetricUsage>;

export interface PlanTerms {
  taxInclusive: boolean;
  /** Per billing period, decimal string in the plan currency. */
  minimumCommitment: string | null;
}

export interface ComputedSubscriptionInvoice {
  computed: Invoice;
  lineDetails: (LineDetail | undefined)[];
}

interface FeeRow {
  name: string;
  fee: SubscriptionFee;
  period: string;
  quantity: number;
  effective_from: string;
  effective_to: string | null;
}

const ONE = new Dec(1);

function timingOf(fee: SubscriptionFee): FeeTimingSpec {
  switch (fee.type) {
    case 'RECURRING':
      return { kind: 'EXTRA_RECURRING', billing: fee.billing_type };
    default:
      return { kind: fee.type };
  }
}

function activeOn(row: FeeRow, date: LocalDate): boolean {
  return compareDates(row.effective_from, date) <= 0 && (row.effective_to === null || compareDates(row.effective_to, date) > 0);
}

/** The catalog's usage pricing in the math's terms (tiers run from first_unit to the next tier's first_unit). */
export function usagePricing(model: Record<string, unknown>): UsagePricing | 'MATRIX' {
  switch (model.type) {
    case 'PER_UNIT':
      return { model: 'PER_UNIT', unitPrice: new Dec(String(model.rate)) };
    case 'TIERED':
    case 'VOLUME': {
      const rows = [...(model.tiers as { first_unit: number; rate: string; flat_fee: string | null; flat_cap: string | null }[])].sort((a, b) => a.first_unit - b.first_unit);
      const tiers: Tier[] = rows.map((row, index) => ({
        upTo: index + 1 < rows.length ? new Dec(rows[index + 1]!.first_unit) : null,
        unitPrice: new Dec(row.rate),
        flatFee: row.flat_fee === null ? null : new Dec(row.flat_fee),
        cap: row.flat_cap === null ? null : new Dec(row.flat_cap),
      }));
      return { model: model.type, tiers };
    }
    case 'PACKAGE':
      return { model: 'PACKAGE', blockSize: new Dec(String(model.block_size)), pricePerBlock: new Dec(String(model.rate)), partialBlock: model.rounding === 'DOWN' ? 'DOWN' : 'UP' };
    default:
      return 'MATRIX';
  }
}

function matrixPrice(model: Record<string, unknown>, usage: MetricUsage): PricedUsage {
  const rates = (model.rates as { dimension1: { key: string; value: string }; dimension2: { key: string; value: string } | null; per_unit_price: string }[]).map((row) => ({
    dimensions: { [row.dimension1.key]: row.dimension1.value, ...(row.dimension2 ? { [row.dimension2.key]: row.dimension2.value } : {}) },
    unitPrice: new Dec(row.per_unit_price),
  }));
  // Usage groups carry every grouping dimension; keep only the ones the matrix prices on.
  const keys = new Set(rates.flatMap((rate) => Object.keys(rate.dimensions)));
  const groups = usage.groups.map((group) => ({
    dimensions: Object.fromEntries(Object.entries(group.dimensions).filter(([key]) => keys.has(key))),
    quantity: new Dec(group.value),
  }));
  return priceMatrix(rates, groups);
}

function subLinesOf(priced: PricedUsage, currency: string): LineDetail['subLines'] {
  const parts = toMinorParts(priced.rows.map((row) => row.amount), currency);
  return priced.rows.map((row, index) => ({ name: row.label, quantity: row.quantity, unitPrice: row.unitPrice, totalMinor: parts[index] ?? 0n }));
}

/**
 * The invoice of `snapshot` dated `invoiceDate` for `occasion`, or null when it has no line
 * (e.g. the first invoice of a usage-only plan).
 */
export async function computeSubscriptionInvoice(input: {
  snapshot: SubscriptionSnapshot;
  invoiceDate: LocalDate;
  occasion: InvoiceOccasion;
  plan: PlanTerms;
  tax: TaxDecision;
  coupons: Coupon[];
  usageOf: UsageOf;
}): Promise<ComputedSubscriptionInvoice | null> {
  const { snapshot, invoiceDate, occasion } = input;
  const { billing, subscription } = snapshot;
  const currency = subscription.currency;
  const rows: FeeRow[] = [
    // Stable line order: plan components in catalog order (their ids sort by creation), then add-ons.
    ...[...snapshot.components].sort((a, b) => ((a.price_component_id ?? a.id) < (b.price_component_id ?? b.id) ? -1 : 1)).map((c) => ({ name: c.name, fee: c.fee, period: c.period, quantity: 1, effective_from: c.effective_from, effective_to: c.effective_to })),
    ...[...snapshot.addOns].sort((x, y) => (x.id < y.id ? -1 : 1)).map((a) => ({ name: a.name, fee: a.fee, period: a.period, quantity: a.quantity, effective_from: a.effective_from, effective_to: a.effective_to })),
  ];
  const lines: InvoiceLineInput[] = [];
  const details: (LineDetail | undefined)[] = [];
  const push = (line: InvoiceLineInput, detail?: LineDetail) => {
    lines.push(line);
    details.push(detail);
  };

  for (const row of rows) {
    const fee = row.fee;
    if (fee.type === 'ONE_TIME') {
      const firstOfRow = occasion === 'FIRST' ? activeOn(row, invoiceDate) : row.effective_from === invoiceDate && occasion === 'RENEWAL';
      if (firstOfRow) {
        const quantity = new Dec(fee.quantity * row.quantity);
        push({ name: row.name, category: 'ONE_TIME', amount: new Dec(fee.rate).times(quantity), quantity, unitPrice: new Dec(fee.rate), periodStart: invoiceDate, periodEnd: invoiceDate });
      }
      continue;
    }
    const schedule: BillingSchedule = { startDate: billing.billingStartDate, anchorDay: billing.anchorDay, term: row.period as BillingTerm, endDate: billing.stopDate };
    const windows = invoiceWindows(schedule, invoiceDate, occasion);
    for (const slot of chargeSlotsDue(timingOf(fee), occasion)) {
      const window: BillingPeriod | null = slot.timing === 'ADVANCE' ? windows.advance : windows.arrears;
      if (window === null) continue;
      const probe = slot.timing === 'ADVANCE' ? window.start : addDays(window.end, -1);
      if (!activeOn(row, probe)) continue;
      const base = { periodStart: window.start, periodEnd: addDays(window.end, -1) };
      const prorated = isPartialPeriod(window);
      const recurring = (name: string, unitPrice: Decimal, quantity: Decimal) =>
        push({ name, category: 'RECURRING', amount: amountForPeriod(unitPrice.times(quantity), window), quantity, unitPrice: prorated ? null : unitPrice, ...base },
          prorated ? { description: `Prorated: ${window.days} of ${window.fullPeriodDays} days` } : undefined);
      switch (slot.part) {
        case 'RATE':
          if (fee.type === 'RATE') recurring(row.name, new Dec(fee.rate), new Dec(row.quantity));
          break;
        case 'SLOT':
          if (fee.type === 'SLOT') recurring(`${row.name} (${fee.unit})`, new Dec(fee.unit_rate), new Dec(fee.initial_slots * row.quantity));
          break;
        case 'CAPACITY_BASE':
          if (fee.type === 'CAPACITY') recurring(row.name, new Dec(fee.rate), ONE);
          break;
        case 'EXTRA_RECURRING':
          if (fee.type === 'RECURRING') recurring(row.name, new Dec(fee.rate), new Dec(fee.quantity * row.quantity));
          break;
        case 'CAPACITY_OVERAGE':
          if (fee.type === 'CAPACITY') {
            const usage = await input.usageOf(fee.metric_id, window.start, window.end);
            const priced = priceCapacityOverage(new Dec(usage.totalValue), new Dec(fee.included), new Dec(fee.overage_rate));
            if (!priced.amount.isZero()) {
              push({ name: `${row.name} overage`, category: 'USAGE', amount: priced.amount, quantity: priced.rows[0]?.quantity ?? null, unitPrice: new Dec(fee.overage_rate), ...base }, { metricId: fee.metric_id });
            }
          }
          break;
        case 'USAGE':
          if (fee.type === 'USAGE') {
            const usage = await input.usageOf(fee.metric_id, window.start, window.end);
            const pricing = usagePricing(fee.model);
            const priced = pricing === 'MATRIX' ? matrixPrice(fee.model, usage) : priceUsage(pricing, new Dec(usage.totalValue));
            const quantity = new Dec(usage.totalValue);
            push(
              { name: row.name, category: 'USAGE', amount: priced.amount, quantity, unitPrice: pricing !== 'MATRIX' && pricing.model === 'PER_UNIT' ? pricing.unitPrice : null, ...base },
              { metricId: fee.metric_id, subLines: pricing !== 'MATRIX' && pricing.model === 'PER_UNIT' ? [] : subLinesOf(priced, currency) },
            );
          }
          break;
        default:
          break;
      }
    }
  }
  if (lines.length === 0) return null;

  let minimumCommitment: Decimal | null = null;
  if (input.plan.minimumCommitment !== null && occasion !== 'FINAL') {
    const subscriptionSchedule: BillingSchedule = { startDate: billing.billingStartDate, anchorDay: billing.anchorDay, term: billing.term, endDate: billing.stopDate };
    const advance = invoiceWindows(subscriptionSchedule, invoiceDate, occasion).advance;
    if (advance !== null) minimumCommitment = amountForPeriod(new Dec(input.plan.minimumCommitment), advance);
  }
  const computed = assembleInvoice({ currency, taxInclusive: input.plan.taxInclusive, lines, coupons: input.coupons, minimumCommitment, tax: input.tax });
  return { computed, lineDetails: details };
}
