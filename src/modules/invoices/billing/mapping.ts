// A subscription's stored record (subscriptions module) mapped onto the billing engine's
// `SubscriptionSnapshot` (src/domain/billing). Pure: the run, the draft refresh and the preview
// all go through this one mapping, so they cannot disagree about what a subscription bills.
import type {
  InvoicesDueOptions, SnapshotComponent, SnapshotCoupon, SnapshotFee, SnapshotUsagePricing, SubscriptionSnapshot,
} from '../../../domain/index.js';
import { timesCount } from '../../../kernel/money.js';
import type { UsagePricing } from '../../plans/index.js';
import type { SubscriptionRecord, SubscriptionFee, SubscriptionComponentRow, SubscriptionAddOnRow, SubscriptionCouponRow } from '../../subscriptions/index.js';

/** What the plan version adds to the subscription's own rows. */
export interface PlanTerms {
  taxInclusive: boolean;
  /** Per full billing period, decimal string in the plan currency; null = none. */
  minimumCommitment: string | null;
}

/** couponId -> invoices of this subscription (not void) that it already discounted. */
export type CouponUses = Readonly<Record<string, number>>;

export interface MappedSubscription {
  snapshot: SubscriptionSnapshot;
  dueOptions: InvoicesDueOptions;
}


/** The plan's usage pricing (kept as is on the subscription) in the engine's terms. */
export function usagePricingOf(pricing: UsagePricing): SnapshotUsagePricing {
  switch (pricing.type) {
    case 'PER_UNIT':
      return { model: 'PER_UNIT', unitPrice: pricing.rate };
    case 'TIERED':
    case 'VOLUME':
      return {
        model: pricing.type,
        tiers: [...pricing.tiers]
          .sort((a, b) => a.first_unit - b.first_unit)
          .map((tier) => ({ firstUnit: String(tier.first_unit), unitPrice: tier.rate, flatFee: tier.flat_fee ?? null, flatCap: tier.flat_cap ?? null })),
      };
    case 'PACKAGE':
      return { model: 'PACKAGE', blockSize: String(pricing.block_size), pricePerBlock: pricing.rate, partialBlock: pricing.rounding === 'DOWN' ? 'DOWN' : 'UP' };
    case 'MATRIX':
      return {
        model: 'MATRIX',
        cells: pricing.rates.map((rate) => ({
          dimensions: { [rate.dimension1.key]: rate.dimension1.value, ...(rate.dimension2 ? { [rate.dimension2.key]: rate.dimension2.value } : {}) },
          unitPrice: rate.per_unit_price,
        })),
      };
    default:
      throw new Error(`unknown usage pricing type ${String((pricing as { type?: unknown }).type)}`);
  }
}

/** One fee; `quantity` is the add-on's instance count (1 for plan components), multiplied into the fee. */
export function feeOf(fee: SubscriptionFee, quantity: number): SnapshotFee {
  switch (fee.type) {
    case 'RATE':
      // several instances of a flat-rate add-on: one line, quantity x price
      return quantity === 1 ? { kind: 'RATE', price: fee.rate } : { kind: 'EXTRA_RECURRING', quantity: String(quantity), unitPrice: fee.rate, billing: 'ADVANCE' };
    case 'SLOT':
      return { kind: 'SLOT', unitPrice: fee.unit_rate, quantity: fee.initial_slots * quantity };
    case 'CAPACITY':
      return { kind: 'CAPACITY', metricId: fee.metric_id, includedQuantity: timesCount(String(fee.included), quantity), basePrice: timesCount(fee.rate, quantity), overageUnitPrice: fee.overage_rate };
    case 'USAGE':
      return { kind: 'USAGE', metricId: fee.metric_id, pricing: usagePricingOf(fee.model) };
    case 'RECURRING':
      return { kind: 'EXTRA_RECURRING', quantity: String(fee.quantity * quantity), unitPrice: fee.rate, billing: fee.billing_type };
    case 'ONE_TIME':
      return { kind: 'ONE_TIME', quantity: String(fee.quantity * quantity), unitPrice: fee.rate };
  }
}

function componentOf(row: SubscriptionComponentRow | SubscriptionAddOnRow, quantity: number): SnapshotComponent {
  const name = row.fee.type === 'SLOT' ? `${row.name} (${row.fee.unit})` : row.name;
  return {
    id: row.id,
    name,
    productId: row.product_id,
    fee: feeOf(row.fee, quantity),
    term: row.period === 'ONE_TIME' ? 'MONTHLY' : row.period, // the term of a one-time fee is ignored
    effectiveFrom: row.effective_from,
    effectiveTo: row.effective_to,
  };
}

interface StoredCoupon {
  id?: string;
  code?: string;
  recurring_value?: number | null;
  discount?: { type?: string; percentage?: string; amount?: string; currency?: string };
}

function couponOf(row: SubscriptionCouponRow, uses: CouponUses): SnapshotCoupon | null {
  if (!row.is_active) return null;
  const coupon = row.coupon as StoredCoupon;
  const couponId = row.coupon_id;
  const invoicesRemaining = coupon.recurring_value == null ? null : Math.max(0, coupon.recurring_value - (uses[couponId] ?? 0));
  const base = { couponId, name: `Coupon (${coupon.code ?? couponId})`, invoicesRemaining };
  const discount = coupon.discount;
  if (discount?.type === 'PERCENTAGE' && discount.percentage) return { ...base, kind: 'PERCENTAGE', percent: discount.percentage };
  if (discount?.type === 'FIXED' && discount.amount && discount.currency) return { ...base, kind: 'FIXED', amount: discount.amount, currency: discount.currency };
  return null;
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The engine's snapshot of a subscription. Plan components come in the plan's order (their
 * position), each component's rows by date, then add-ons: the order of the invoice lines.
 * `couponUses` counts the invoices that already used each coupon (before the one computed).
 * skip_past_invoices: the import day is the subscription's creation day (UTC), so rerunning
 * later never skips more.
 */
export function toEngineSnapshot(source: SubscriptionRecord, plan: PlanTerms, couponUses: CouponUses = {}): MappedSubscription {
  const sub = source.subscription;
  const components = [
    ...[...source.components].sort((a, b) => a.position - b.position || compareText(a.effective_from, b.effective_from) || compareText(a.id, b.id)).map((row) => componentOf(row, 1)),
    ...[...source.addOns].sort((x, y) => compareText(x.id, y.id)).map((row) => componentOf(row, row.quantity)),
  ];
  const snapshot: SubscriptionSnapshot = {
    subscriptionId: sub.id,
    currency: sub.currency,
    startDate: sub.start_date,
    billingStartDate: sub.billing_start_date,
    billingDayAnchor: sub.billing_day_anchor,
    netTerms: sub.net_terms,
    trial: sub.trial_end_date ? { endDate: sub.trial_end_date, isFree: sub.trial_is_free } : null,
    endDate: sub.end_date,
    // the mode is informational for the engine: the effective date decides what is credited
    cancellation: sub.cancel_effective_date ? { mode: 'IMMEDIATE', effectiveDate: sub.cancel_effective_date } : null,
    components,
    coupons: source.coupons.map((row) => couponOf(row, couponUses)).filter((c): c is SnapshotCoupon => c !== null),
    minimumCommitment: plan.minimumCommitment,
    taxInclusive: plan.taxInclusive,
  };
  return { snapshot, dueOptions: { skipPastInvoices: sub.skip_past_invoices, importedOn: sub.created_at.toISOString().slice(0, 10) } };
}
