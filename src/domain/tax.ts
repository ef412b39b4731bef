// Tax: which rate applies (a pure decision from the seller's country and the customer), the
// tax of one line (exclusive or carved out of a tax-inclusive price), and the per-rate breakdown.
import type { Decimal } from 'decimal.js';
import { Dec, minorToDecimal, toMinor, type CurrencyCode } from '../kernel/money.js';
import { BillingRuleError } from './errors.js';

export type TaxTreatment =
  | 'STANDARD' // seller's or destination country's rate
  | 'CUSTOM' // rate set on the customer
  | 'EXEMPT' // customer flagged tax exempt
  | 'REVERSE_CHARGE' // EU B2B across borders: the customer self-accounts
  | 'EXPORT' // outside the EU, zero-rated
  | 'NO_TAX'; // no rate configured for the country that would apply

export interface TaxDecision {
  readonly treatment: TaxTreatment;
  /** Fraction: 0.2 = 20 %. */
  readonly rate: Decimal;
  /** Country whose rate applies, when one does. */
  readonly country: string | null;
}

export interface TaxCustomer {
  readonly country: string | null;
  readonly vatNumber?: string | null;
  readonly taxExempt?: boolean;
  readonly customTaxRate?: Decimal | null;
  /** Customer flagged for reverse charge by the merchant (e.g. a B2B buyer self-accounting for VAT). */
  readonly reverseCharge?: boolean;
}

export interface TaxContext {
  readonly entityCountry: string;
  readonly customer: TaxCustomer;
  /** Standard rate per ISO country code, supplied by configuration (rates change over time). */
  readonly standardRates: Readonly<Record<string, Decimal>>;
}

export const EU_MEMBER_STATES: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU',
  'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
]);

const ZERO = new Dec(0);

function validRate(rate: Decimal, what: string): Decimal {
  if (rate.isNegative() || rate.greaterThanOrEqualTo(1) || !rate.isFinite()) {
    throw new BillingRuleError('INVALID_TAX', `${what} must be a fraction in [0, 1), got ${rate.toString()}`);
  }
  return new Dec(rate);
}

function countryRate(context: TaxContext, country: string): TaxDecision {
  const rate = context.standardRates[country];
  return rate === undefined
    ? { treatment: 'NO_TAX', rate: ZERO, country: null }
    : { treatment: 'STANDARD', rate: validRate(rate, `standard rate of ${country}`), country };
}

/**
 * Decides the tax of a customer, first rule that matches wins:
 * 1. exempt customer -> 0 %; 1b. customer flagged reverse charge -> 0 %; 2. custom customer rate; 3. same country as the seller (or customer
 * country unknown) -> seller's rate; 4. both in the EU: with a VAT number -> reverse charge,
 * without -> the customer's country rate (place of supply of electronic services);
 * 5. anything else -> export, 0 %.
 */
export function resolveTax(context: TaxContext): TaxDecision {
  const { customer, entityCountry } = context;
  if (customer.taxExempt === true) return { treatment: 'EXEMPT', rate: ZERO, country: null };
  if (customer.reverseCharge === true) return { treatment: 'REVERSE_CHARGE', rate: ZERO, country: null };
  if (customer.customTaxRate != null) {
    return { treatment: 'CUSTOM', rate: validRate(customer.customTaxRate, 'custom tax rate'), country: customer.country };
  }
  const customerCountry = customer.country ?? entityCountry;
  if (customerCountry === entityCountry) return countryRate(context, entityCountry);
  if (EU_MEMBER_STATES.has(entityCountry) && EU_MEMBER_STATES.has(customerCountry)) {
    const isBusiness = (customer.vatNumber ?? '').trim() !== '';
    return isBusiness ? { treatment: 'REVERSE_CHARGE', rate: ZERO, country: null } : countryRate(context, customerCountry);
  }
  return { treatment: 'EXPORT', rate: ZERO, country: null };
}

export interface LineTax {
  /** Amount the tax is computed on (excludes tax). */
  readonly netMinor: bigint;
  readonly taxMinor: bigint;
}

/**
 * Exclusive: tax = round(amount × rate), added on top.
 * Inclusive: the amount already contains the tax; tax = round(amount × rate / (1 + rate)) and
 * net = amount − tax, so net + tax is exactly the quoted amount for every rate, 0 % included.
 */
export function taxLine(amountMinor: bigint, rate: Decimal, taxInclusive: boolean, currency: CurrencyCode): LineTax {
  const amount = minorToDecimal(amountMinor, currency);
  if (taxInclusive) {
    const taxMinor = toMinor(amount.times(rate).div(new Dec(rate).plus(1)), currency);
    return { netMinor: amountMinor - taxMinor, taxMinor };
  }
  return { netMinor: amountMinor, taxMinor: toMinor(amount.times(rate), currency) };
}

export interface TaxBreakdownRow {
  readonly treatment: TaxTreatment;
  readonly rate: Decimal;
  readonly country: string | null;
  readonly taxableMinor: bigint;
  readonly taxMinor: bigint;
}

/** Groups taxed amounts by (treatment, rate, country); the rows sum exactly to the inputs. */
export function taxBreakdown(items: readonly { readonly tax: TaxDecision; readonly netMinor: bigint; readonly taxMinor: bigint }[]): TaxBreakdownRow[] {
  const rows = new Map<string, TaxBreakdownRow>();
  for (const { tax, netMinor, taxMinor } of items) {
    const key = `${tax.treatment}|${tax.rate.toString()}|${tax.country ?? ''}`;
    const row = rows.get(key);
    rows.set(key, {
      treatment: tax.treatment,
      rate: tax.rate,
      country: tax.country,
      taxableMinor: (row?.taxableMinor ?? 0n) + netMinor,
      taxMinor: (row?.taxMinor ?? 0n) + taxMinor,
    });
  }
  return [...rows.values()];
}
