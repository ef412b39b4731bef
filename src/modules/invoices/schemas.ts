import { Type, type Static } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import { formatMinor } from '../../kernel/money.js';
import { CustomPropertiesOutput } from '../custom-properties/index.js';
import type { InvoiceDetail, InvoiceRow, TaxBreakdownDbRow } from './repository.js';
import { eInvoicingOutcome } from './einvoices.js';

const Amount = (description?: string) => Type.String({ description: description ?? 'Decimal string with the currency\'s minor-unit digits', examples: ['49.00'] });
const DateOnly = Type.String({ format: 'date' });
const DateTime = Type.String({ format: 'date-time' });

export const InvoiceStatusSchema = Type.Union([Type.Literal('DRAFT'), Type.Literal('FINALIZED'), Type.Literal('UNCOLLECTIBLE'), Type.Literal('VOID')]);
export const PaymentStatusSchema = Type.Union([Type.Literal('UNPAID'), Type.Literal('PARTIALLY_PAID'), Type.Literal('PAID')]);

const Address = Type.Object({
  line1: Type.Optional(Nullable(Type.String())),
  line2: Type.Optional(Nullable(Type.String())),
  city: Type.Optional(Nullable(Type.String())),
  zip_code: Type.Optional(Nullable(Type.String())),
  state: Type.Optional(Nullable(Type.String())),
  country: Type.Optional(Nullable(Type.String())),
});

const CustomerDetails = Type.Object({
  id: Type.String(),
  name: Type.String(),
  alias: Type.Optional(Nullable(Type.String())),
  email: Type.Optional(Nullable(Type.String())),
  vat_number: Type.Optional(Nullable(Type.String())),
  billing_address: Type.Optional(Nullable(Address)),
  snapshot_at: DateTime,
});

export const BankDetailsSchema = Type.Object({
  account_holder: Nullable(Type.String({ maxLength: 200 })),
  bank_name: Nullable(Type.String({ maxLength: 200 })),
  iban: Nullable(Type.String({ maxLength: 50, description: 'Checked with its mod-97 checksum; stored without spaces' })),
  bic: Nullable(Type.String({ maxLength: 20, description: '8 or 11 letters and digits' })),
  account_number: Nullable(Type.String({ maxLength: 50, description: 'For accounts without an IBAN' })),
  routing_number: Nullable(Type.String({ maxLength: 50, description: 'ABA routing number, sort code...' })),
});

/** The seller as the invoice shows it: the entity as it is now while a draft, as it was at finalization after. */
const SellerDetails = Type.Object({
  id: Type.String({ description: 'The invoicing entity' }),
  legal_name: Type.String(),
  vat_number: Nullable(Type.String()),
  tax_number: Nullable(Type.String()),
  registration_number: Nullable(Type.String()),
  address: Address,
  legal_footer: Nullable(Type.String()),
  payment_instructions: Nullable(Type.String()),
  bank_details: Nullable(BankDetailsSchema),
});

const SubLineItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  total: Amount(),
  quantity: Type.String(),
  unit_price: Type.String(),
});

const InvoiceLineItem = Type.Object({
  id: Type.String({ description: 'Line id, used to credit a single line' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  start_date: DateOnly,
  end_date: DateOnly,
  quantity: Type.Optional(Type.String()),
  unit_price: Type.Optional(Type.String()),
  amount_subtotal: Amount('Before discount and tax'),
  discount: Amount(),
  taxable_amount: Amount(),
  tax_rate: Type.String({ description: 'Fraction: 0.2 = 20 %' }),
  tax_amount: Amount(),
  amount_total: Amount('taxable_amount + tax_amount'),
  sub_line_items: Type.Array(SubLineItem),
});

export const TaxBreakdownItem = Type.Object({
  name: Type.String(),
  tax_rate: Type.String(),
  taxable_amount: Amount(),
  tax_amount: Amount(),
  exemption_type: Nullable(Type.Union([Type.Literal('REVERSE_CHARGE'), Type.Literal('TAX_EXEMPT'), Type.Literal('NOT_REGISTERED')])),
});

const CouponLineItem = Type.Object({ coupon_id: Type.String(), name: Type.String(), total: Amount() });

/** A payment recorded against the invoice (manual payments are SETTLED PAYMENT rows). */
const Transaction = Type.Object({
  id: Type.String(),
  amount: Amount(),
  currency: Type.String(),
  status: Type.Enum(['READY', 'PENDING', 'SETTLED', 'CANCELLED', 'FAILED', 'REFUNDED']),
  payment_type: Type.Enum(['PAYMENT', 'REFUND']),
  payment_method_id: Nullable(Type.String()),
  payment_method_info: Nullable(Type.Object({
    payment_method_type: Type.String(),
    account_number_hint: Nullable(Type.String()),
    card_brand: Nullable(Type.String()),
    card_last4: Nullable(Type.String()),
  })),
  provider_transaction_id: Nullable(Type.String({ description: 'For manual payments, the reference given when marking paid' })),
  processed_at: Nullable(DateTime),
  error: Nullable(Type.String()),
});

/** The e-invoicing outcome of an invoice or credit note (docs/einvoicing.md); also in `invoice.accounting_pdf_generated`. */
export const EInvoicingOutcomeSchema = Type.Object({
  format: Nullable(Type.Union([Type.Literal('FACTURX'), Type.Literal('XRECHNUNG_UBL'), Type.Literal('XRECHNUNG_CII'), Type.Literal('PEPPOL_BIS')], {
    description: 'The format the structured document was written in; null when there is none',
  })),
  status: Type.Union([Type.Literal('VALID'), Type.Literal('INVALID'), Type.Literal('NOT_APPLICABLE')], {
    description: 'VALID: passed every EN 16931 rule we check; INVALID: generated, but failed the rules in `errors` (finalization is never blocked); ' +
      'NOT_APPLICABLE: no structured document (the entity had not opted in when the PDF was rendered, a draft, or not rendered yet)',
  }),
  errors: Type.Array(Type.Object({
    rule: Type.String({ description: 'Official rule id, e.g. BR-CO-10, BR-AE-02' }),
    message: Type.String(),
  }), { description: 'The failed rules; empty unless INVALID' }),
  download_url: Nullable(Type.String({ description: 'Where the XML downloads (GET, API key); null when there is none' })),
}, { description: 'Structured e-invoice (EN 16931) of this document' });

export const Invoice = Type.Object({
  id: Type.String(),
  invoice_number: Type.String({ description: '"draft" until finalized' }),
  status: InvoiceStatusSchema,
  payment_status: PaymentStatusSchema,
  invoice_type: Type.Union([Type.Literal('RECURRING'), Type.Literal('ONE_OFF'), Type.Literal('ADJUSTMENT'), Type.Literal('USAGE_THRESHOLD')], {
    description: 'USAGE_THRESHOLD: a spend threshold of the subscription was reached; it bills the usage accrued so far in the period (see `usage_threshold`)',
  }),
  usage_threshold: Type.Optional(Nullable(Type.Object({
    crossing: Type.Integer({ minimum: 1, description: '1 for the first level reached in the period, 2 for the second...' }),
    level: Amount(),
    amount: Amount(),
    recurring: Type.Boolean(),
    threshold_display_name: Nullable(Type.String()),
  }, { description: 'USAGE_THRESHOLD invoices: the threshold crossed; null on other invoices' }))),
  customer_id: Type.String(),
  subscription_id: Nullable(Type.String()),
  invoicing_entity_id: Type.String(),
  currency: Type.String(),
  invoice_date: DateOnly,
  period_start: Nullable(DateOnly),
  period_end: Nullable(DateOnly),
  due_date: Nullable(DateOnly),
  net_terms: Type.Integer(),
  subtotal: Amount(),
  subtotal_recurring: Amount(),
  discount: Amount(),
  tax_amount: Amount(),
  total: Amount(),
  applied_credits: Amount(),
  prepaid_credits: Type.String({ description: 'Paid from prepaid credit grants at finalization, after tax, before `applied_credits` (the cash balance); decimal string' }),
  prepaid_credit_lines: Type.Array(Type.Object({
    grant_id: Type.String(),
    name: Type.String({ description: 'The grant\'s name' }),
    amount: Type.String({ description: 'What this grant paid; decimal string' }),
  }), { description: 'One line per credit grant consumed, in consumption order' }),
  amount_due: Amount(),
  amount_paid: Amount(),
  payment_url: Type.Optional(Nullable(Type.String({ description: 'The hosted page where the customer pays this invoice (unguessable link); null unless FINALIZED with an amount still due' }))),
  auto_charge: Type.Optional(Nullable(Type.Boolean({
    description: 'Whether finalization charges the customer\'s default payment method: null follows the customer\'s `auto_charge` (payment settings); false for the invoices of a subscription with `charge_automatically: false`',
  }))),
  e_invoicing: Type.Optional(EInvoicingOutcomeSchema),
  line_items: Type.Array(InvoiceLineItem),
  tax_breakdown: Type.Array(TaxBreakdownItem),
  coupons: Type.Array(CouponLineItem),
  transactions: Type.Array(Transaction),
  customer_details: CustomerDetails,
  seller_details: SellerDetails,
  memo: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  purchase_order: Nullable(Type.String()),
  custom_properties: CustomPropertiesOutput,
  created_at: DateTime,
  updated_at: Nullable(DateTime),
  finalized_at: Nullable(DateTime),
  paid_at: Nullable(DateTime),
  voided_at: Nullable(DateTime),
  marked_as_uncollectible_at: Nullable(DateTime),
});

export function exemptionType(treatment: string): 'REVERSE_CHARGE' | 'TAX_EXEMPT' | 'NOT_REGISTERED' | null {
  if (treatment === 'REVERSE_CHARGE') return 'REVERSE_CHARGE';
  if (treatment === 'EXEMPT') return 'TAX_EXEMPT';
  if (treatment === 'NO_TAX') return 'NOT_REGISTERED';
  return null;
}

export function taxBreakdownToWire(row: Pick<TaxBreakdownDbRow, 'name' | 'tax_rate' | 'treatment' | 'taxable_minor' | 'tax_minor'>, currency: string) {
  return {
    name: row.name,
    tax_rate: row.tax_rate,
    taxable_amount: formatMinor(row.taxable_minor, currency),
    tax_amount: formatMinor(row.tax_minor, currency),
    exemption_type: exemptionType(row.treatment),
  };
}

/** Seller details as stored (invoices finalized before issue 15 lack the newer keys: null). */
export function sellerToWire(seller: Record<string, unknown>) {
  const text = (key: string) => (typeof seller[key] === 'string' ? (seller[key] as string) : null);
  const address = (seller.address ?? {}) as Record<string, string | null>;
  return {
    id: String(seller.id ?? ''),
    legal_name: String(seller.legal_name ?? ''),
    vat_number: text('vat_number'),
    tax_number: text('tax_number'),
    registration_number: text('registration_number'),
    address: {
      line1: address.line1 ?? null, line2: address.line2 ?? null, city: address.city ?? null,
      zip_code: address.zip_code ?? null, state: address.state ?? null, country: address.country ?? null,
    },
    legal_footer: text('legal_footer'),
    payment_instructions: text('payment_instructions'),
    bank_details: (seller.bank_details ?? null) as Static<typeof BankDetailsSchema> | null,
  };
}

/** The list shows the same invoice object as the detail, as the reference does. */
export function invoiceToWire(detail: InvoiceDetail) {
  const { invoice } = detail;
  const money = (minor: bigint) => formatMinor(minor, invoice.currency);
  return {
    id: invoice.id,
    invoice_number: invoice.invoice_number ?? 'draft',
    status: invoice.status,
    payment_status: invoice.payment_status,
    invoice_type: invoice.invoice_type,
    usage_threshold: invoice.usage_threshold ?? null,
    customer_id: invoice.customer_id,
    subscription_id: invoice.subscription_id,
    invoicing_entity_id: invoice.invoicing_entity_id,
    currency: invoice.currency,
    invoice_date: invoice.invoice_date,
    period_start: invoice.period_start,
    period_end: invoice.period_end,
    due_date: invoice.due_date,
    net_terms: invoice.net_terms,
    subtotal: money(invoice.subtotal_minor),
    subtotal_recurring: money(invoice.subtotal_recurring_minor),
    discount: money(invoice.discount_minor),
    tax_amount: money(invoice.tax_minor),
    total: money(invoice.total_minor),
    applied_credits: money(invoice.applied_credits_minor),
    prepaid_credits: money(invoice.prepaid_credits_minor),
    prepaid_credit_lines: invoice.prepaid_credits.map((line) => ({ grant_id: line.grant_id, name: line.name, amount: money(BigInt(line.amount_minor)) })),
    amount_due: money(invoice.amount_due_minor),
    amount_paid: money(invoice.amount_paid_minor),
    e_invoicing: eInvoicingOutcome(detail.eInvoice),
    line_items: detail.lines.map((line) => ({
      id: line.id,
      name: line.name,
      description: line.description,
      start_date: line.start_date,
      end_date: line.end_date,
      ...(line.quantity !== null ? { quantity: line.quantity } : {}),
      ...(line.unit_price !== null ? { unit_price: line.unit_price } : {}),
      amount_subtotal: money(line.amount_minor),
      discount: money(line.discount_minor),
      taxable_amount: money(line.taxable_minor),
      tax_rate: line.tax_rate,
      tax_amount: money(line.tax_minor),
      amount_total: money(line.total_minor),
      sub_line_items: line.sub_lines.map((sub) => ({
        id: sub.id,
        name: sub.name,
        total: money(sub.total_minor),
        quantity: sub.quantity,
        unit_price: sub.unit_price,
      })),
    })),
    tax_breakdown: detail.taxBreakdown.map((row) => taxBreakdownToWire(row, invoice.currency)),
    coupons: invoice.coupons.map((c) => ({ coupon_id: c.coupon_id, name: c.name, total: money(BigInt(c.total_minor)) })),
    transactions: detail.transactions.map((t) => ({
      id: t.id,
      amount: formatMinor(t.amount_minor, t.currency),
      currency: t.currency,
      status: t.status,
      payment_type: t.payment_type,
      payment_method_id: null,
      payment_method_info: null,
      provider_transaction_id: t.provider_transaction_id,
      processed_at: isoOrNull(t.processed_at),
      error: t.error,
    })),
    customer_details: invoice.customer_details as never,
    seller_details: sellerToWire(invoice.seller_details),
    memo: invoice.memo,
    reference: invoice.reference,
    purchase_order: invoice.purchase_order,
    auto_charge: invoice.auto_charge,
    custom_properties: invoice.custom_properties ?? {},
    created_at: iso(invoice.created_at),
    updated_at: isoOrNull(invoice.updated_at),
    finalized_at: isoOrNull(invoice.finalized_at),
    paid_at: isoOrNull(invoice.paid_at),
    voided_at: isoOrNull(invoice.voided_at),
    marked_as_uncollectible_at: isoOrNull(invoice.marked_as_uncollectible_at),
  };
}

export type InvoiceSummaryRow = InvoiceRow;
