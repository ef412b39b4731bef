// The inputs of a subscription invoice that live in other modules: plan terms, tax, coupons, usage.
import { Dec, parseAmountMinor } from '../../../kernel/money.js';
import type { Pool, Queryable } from '../../../db/pool.js';
import { scoped } from '../../../db/tenant-scope.js';
import { resolveTax, type Coupon, type TaxDecision } from '../../../domain/index.js';
import { findCustomer } from '../../customers/index.js';
import { loadPlanVersionSnapshot } from '../../plans/index.js';
import type { SubscriptionSnapshot } from '../../subscriptions/index.js';
import { customerMetricUsage } from '../../usage/index.js';
import type { InvoicingEntityRow } from '../entities.js';
import type { PlanTerms, UsageOf } from './compute.js';

/**
 * Standard VAT rates (fractions) by seller/destination country. Rates change by law, so they are
 * data: this is the table as of 2026-01; an entity in a country not listed charges no tax.
 */
export const STANDARD_VAT_RATES: Readonly<Record<string, string>> = {
  AT: '0.2', BE: '0.21', BG: '0.2', CY: '0.19', CZ: '0.21', DE: '0.19', DK: '0.25', EE: '0.24', ES: '0.21', FI: '0.255',
  FR: '0.2', GR: '0.24', HR: '0.25', HU: '0.27', IE: '0.23', IT: '0.22', LT: '0.21', LU: '0.17', LV: '0.21', MT: '0.18',
  NL: '0.21', PL: '0.23', PT: '0.23', RO: '0.21', SE: '0.25', SI: '0.22', SK: '0.23', GB: '0.2', CH: '0.081', NO: '0.25',
};
const STANDARD_RATES = Object.fromEntries(Object.entries(STANDARD_VAT_RATES).map(([country, rate]) => [country, new Dec(rate)]));

export async function planTermsOf(db: Queryable, tenantId: string, snapshot: SubscriptionSnapshot): Promise<PlanTerms> {
  const version = await loadPlanVersionSnapshot(db, tenantId, snapshot.subscription.plan_version_id);
  return { taxInclusive: version?.tax_inclusive ?? false, minimumCommitment: version?.minimum_commitment?.amount ?? null };
}

/** The customer's tax on this entity's invoices (see domain resolveTax for the rules). */
export async function taxOf(db: Queryable, tenantId: string, customerId: string, entity: InvoicingEntityRow): Promise<TaxDecision> {
  const customer = await findCustomer(db, tenantId, customerId);
  if (customer?.reverse_charge) return { treatment: 'REVERSE_CHARGE', rate: new Dec(0), country: null };
  const customRate = customer && customer.custom_taxes.length > 0
    ? customer.custom_taxes.reduce((sum, tax) => sum.plus(tax.rate), new Dec(0))
    : null;
  return resolveTax({
    entityCountry: entity.country,
    customer: {
      country: customer?.billing_address?.country ?? null,
      vatNumber: customer?.vat_number ?? null,
      taxExempt: customer?.is_tax_exempt ?? false,
      customTaxRate: customRate,
    },
    standardRates: STANDARD_RATES,
  });
}

/**
 * Coupons that still apply: active, and used on fewer finalized invoices of this subscription
 * than their `recurring_value` (null = every invoice). Counting finalized invoices (not drafts)
 * makes a refreshed draft never use a coupon twice.
 */
export async function couponsOf(db: Queryable, tenantId: string, snapshot: SubscriptionSnapshot, excludeInvoiceId: string | null): Promise<{ coupons: Coupon[]; names: Record<string, string> }> {
  const coupons: Coupon[] = [];
  const names: Record<string, string> = {};
  for (const applied of snapshot.coupons) {
    if (!applied.is_active) continue;
    const coupon = applied.coupon as { id?: string; code?: string; recurring_value?: number | null; discount?: { type: string; percentage?: string; amount?: string; currency?: string } };
    const couponId = coupon.id ?? applied.coupon_id;
    if (coupon.recurring_value != null) {
      const used = await scoped(db, tenantId).one<{ n: bigint }>(
        `SELECT count(*) AS n FROM invoices WHERE tenant_id = $1 AND subscription_id = $2 AND status IN ('FINALIZED', 'UNCOLLECTIBLE')
           AND id <> coalesce($3, '') AND coupons @> jsonb_build_array(jsonb_build_object('coupon_id', $4::text))`,
        [snapshot.subscription.id, excludeInvoiceId, couponId],
      );
      if ((used?.n ?? 0n) >= BigInt(coupon.recurring_value)) continue;
    }
    const discount = coupon.discount;
    if (discount?.type === 'PERCENTAGE' && discount.percentage) {
      coupons.push({ couponId, kind: 'PERCENTAGE', percent: new Dec(discount.percentage) });
    } else if (discount?.type === 'FIXED' && discount.amount && discount.currency) {
      coupons.push({ couponId, kind: 'FIXED', amountMinor: parseAmountMinor(discount.amount, discount.currency), currency: discount.currency });
    } else continue;
    names[couponId] = `Coupon (${coupon.code ?? couponId})`;
  }
  return { coupons, names };
}

/** Usage of the subscription's customer, through the usage API's own aggregation. */
export function usageFor(pool: Pool, tenantId: string, customerId: string): UsageOf {
  return async (metricId, start, end) => {
    const result = await customerMetricUsage(pool, tenantId, {
      customerId,
      metricId,
      periodStart: new Date(`${start}T00:00:00.000Z`),
      periodEnd: new Date(`${end}T00:00:00.000Z`),
    });
    return result ?? { totalValue: '0', groups: [] };
  };
}
