// Invoice assembly: round each line once, apply coupons, top up to the minimum commitment,
// tax each line, then total. Pure: the same input always yields the same invoice.
import type { Decimal } from 'decimal.js';
import { maxMinor, minMinor, minorToDecimal, sumMinor, toMinor, type CurrencyCode } from '../kernel/money.js';
import type { LocalDate } from './dates.js';
import { applyCoupons, type Coupon, type CouponApplication, type SkippedCoupon } from './discounts.js';
import { taxBreakdown, taxLine, type TaxBreakdownRow, type TaxDecision } from './tax.js';

/**
 * RECURRING and USAGE lines belong to the billing period (they count toward the minimum
 * commitment); ONE_TIME and PRORATION (mid-period adjustments) do not.
 */
export type LineCategory = 'RECURRING' | 'USAGE' | 'ONE_TIME' | 'PRORATION' | 'COMMITMENT';

export const MINIMUM_COMMITMENT_LINE_NAME = 'Minimum commitment';

export interface InvoiceLineInput {
  readonly name: string;
  readonly category: LineCategory;
  /** Unrounded major units as priced (quoted, i.e. tax included when the plan is tax-inclusive). */
  readonly amount: Decimal;
  readonly quantity?: Decimal | null;
  readonly unitPrice?: Decimal | null;
  readonly periodStart?: LocalDate | null;
  readonly periodEnd?: LocalDate | null;
  /** Overrides the invoice-level tax decision for this line (e.g. a product-specific rate). */
  readonly tax?: TaxDecision | null;
  /**
   * Billed for an earlier period (late usage): not part of this invoice's billing period, so it
   * does not count toward its minimum commitment.
   */
  readonly earlierPeriod?: boolean;
  /**
   * A line whose net amount and tax are given, not computed: the deduction of what earlier
   * invoices already billed (a period-end invoice deducting its threshold invoices, see
   * billing/thresholds.ts). It takes no coupon discount, is not in the coupon base, does not count
   * toward the minimum commitment, and carries exactly the tax it reverses, so over the period the
   * tax is the one of the whole usage, rounded once.
   */
  readonly settled?: { readonly netMinor: bigint; readonly taxMinor: bigint } | null;
}

export interface InvoiceInput {
  readonly currency: CurrencyCode;
  readonly taxInclusive: boolean;
  readonly lines: readonly InvoiceLineInput[];
  readonly coupons?: readonly Coupon[];
  /** Floor for the billing-period lines after discounts, in quoted terms (already prorated if needed). */
  readonly minimumCommitment?: Decimal | null;
  readonly tax: TaxDecision;
  /** Customer credit balance available (minor units); only a positive balance is applied. */
  readonly customerBalanceMinor?: bigint;
}

export interface InvoiceLine {
  readonly lineNo: number;
  readonly name: string;
  readonly category: LineCategory;
  readonly quantity: Decimal | null;
  readonly unitPrice: Decimal | null;
  readonly periodStart: LocalDate | null;
  readonly periodEnd: LocalDate | null;
  /** Before discount and tax. Inclusive plans: the quoted amount with its tax carved out. */
  readonly amountMinor: bigint;
  readonly discountMinor: bigint;
  /** amountMinor − discountMinor: what the tax is computed on. */
  readonly taxableMinor: bigint;
  readonly tax: TaxDecision;
  readonly taxMinor: bigint;
  /** taxableMinor + taxMinor. */
  readonly totalMinor: bigint;
}

export interface Invoice {
  readonly currency: CurrencyCode;
  readonly taxInclusive: boolean;
  readonly lines: readonly InvoiceLine[];
  /** Per coupon, in quoted terms (tax included on tax-inclusive plans, where `discountMinor` is net of tax). */
  readonly couponApplications: readonly CouponApplication[];
  readonly skippedCoupons: readonly SkippedCoupon[];
  readonly taxBreakdown: readonly TaxBreakdownRow[];
  readonly subtotalMinor: bigint;
  readonly discountMinor: bigint;
  readonly taxMinor: bigint;
  /** subtotal − discount + tax. Negative only when credit lines outweigh charges. */
  readonly totalMinor: bigint;
  /** min(positive total, positive balance). */
  readonly balanceAppliedMinor: bigint;
  /** Positive total − balance applied; never negative. */
  readonly amountDueMinor: bigint;
  /** −total when the total is negative: credit for the customer's balance. */
  readonly creditCarriedForwardMinor: bigint;
}

interface QuotedLine {
  readonly input: InvoiceLineInput;
  readonly quotedMinor: bigint;
  readonly discountQuotedMinor: bigint;
}

function isPeriodLine(line: InvoiceLineInput): boolean {
  return (line.category === 'RECURRING' || line.category === 'USAGE') && line.earlierPeriod !== true && line.settled == null;
}

/** Shortfall line when the billing-period lines after discount are below the commitment. */
export function minimumCommitmentShortfallMinor(periodNetMinor: bigint, commitmentMinor: bigint): bigint {
  return maxMinor(0n, commitmentMinor - periodNetMinor);
}

/**
 * Turns quoted line amounts into settled lines. For tax-inclusive plans the discount is taken
 * from the quoted (tax-included) price, then the tax is carved out of what remains, so the
 * customer pays exactly quoted − discount; amount and discount are reported net of tax so that
 * total = subtotal − discount + tax holds in both modes.
 */
function settleLine(line: QuotedLine, lineNo: number, invoice: InvoiceInput): InvoiceLine {
  const tax = line.input.tax ?? invoice.tax;
  const settled = line.input.settled;
  if (settled != null) {
    return {
      lineNo, name: line.input.name, category: line.input.category, quantity: line.input.quantity ?? null, unitPrice: line.input.unitPrice ?? null,
      periodStart: line.input.periodStart ?? null, periodEnd: line.input.periodEnd ?? null,
      amountMinor: settled.netMinor, discountMinor: 0n, taxableMinor: settled.netMinor, tax, taxMinor: settled.taxMinor, totalMinor: settled.netMinor + settled.taxMinor,
    };
  }
  const payableMinor = line.quotedMinor - line.discountQuotedMinor;
  const payable = taxLine(payableMinor, tax.rate, invoice.taxInclusive, invoice.currency);
  const amountMinor = invoice.taxInclusive
    ? taxLine(line.quotedMinor, tax.rate, true, invoice.currency).netMinor
    : line.quotedMinor;
  return {
    lineNo,
    name: line.input.name,
    category: line.input.category,
    quantity: line.input.quantity ?? null,
    unitPrice: line.input.unitPrice ?? null,
    periodStart: line.input.periodStart ?? null,
    periodEnd: line.input.periodEnd ?? null,
    amountMinor,
    discountMinor: amountMinor - payable.netMinor,
    taxableMinor: payable.netMinor,
    tax,
    taxMinor: payable.taxMinor,
    totalMinor: payable.netMinor + payable.taxMinor,
  };
}

export function assembleInvoice(input: InvoiceInput): Invoice {
  const { currency } = input;
  // The one rounding of each priced line.
  const quotedMinor = input.lines.map((line) => toMinor(line.amount, currency));
  // settled lines (deductions of earlier invoices) stay out of the coupon base and get no discount
  const discounts = applyCoupons(quotedMinor.map((minor, index) => (input.lines[index]?.settled != null ? 0n : minor)), input.coupons ?? [], currency);
  const quoted: QuotedLine[] = input.lines.map((line, index) => ({
    input: line,
    quotedMinor: quotedMinor[index] ?? 0n,
    discountQuotedMinor: discounts.lineDiscountsMinor[index] ?? 0n,
  }));

  if (input.minimumCommitment != null) {
    const periodNetMinor = sumMinor(
      quoted.filter((line) => isPeriodLine(line.input)).map((line) => line.quotedMinor - line.discountQuotedMinor),
    );
    const shortfallMinor = minimumCommitmentShortfallMinor(periodNetMinor, toMinor(input.minimumCommitment, currency));
    if (shortfallMinor > 0n) {
      quoted.push({
        input: { name: MINIMUM_COMMITMENT_LINE_NAME, category: 'COMMITMENT', amount: minorToDecimal(shortfallMinor, currency) },
        quotedMinor: shortfallMinor,
        discountQuotedMinor: 0n,
      });
    }
  }

  const lines = quoted.map((line, index) => settleLine(line, index + 1, input));
  const subtotalMinor = sumMinor(lines.map((line) => line.amountMinor));
  const discountMinor = sumMinor(lines.map((line) => line.discountMinor));
  const taxMinor = sumMinor(lines.map((line) => line.taxMinor));
  const totalMinor = subtotalMinor - discountMinor + taxMinor;
  const payableTotalMinor = maxMinor(0n, totalMinor);
  const balanceAppliedMinor = minMinor(payableTotalMinor, maxMinor(0n, input.customerBalanceMinor ?? 0n));
  return {
    currency,
    taxInclusive: input.taxInclusive,
    lines,
    couponApplications: discounts.applications,
    skippedCoupons: discounts.skipped,
    taxBreakdown: taxBreakdown(lines.map((line) => ({ tax: line.tax, netMinor: line.taxableMinor, taxMinor: line.taxMinor }))),
    subtotalMinor,
    discountMinor,
    taxMinor,
    totalMinor,
    balanceAppliedMinor,
    amountDueMinor: payableTotalMinor - balanceAppliedMinor,
    creditCarriedForwardMinor: maxMinor(0n, -totalMinor),
  };
}
