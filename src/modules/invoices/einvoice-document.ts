// An invoice or a credit note as an EN 16931 document (src/adapters/einvoice): pure mapping of
// what we stored. VAT categories come from the tax treatment our tax decision recorded on each
// line (src/domain/tax.ts); amounts are the stored ones, never recomputed, so the rules check our
// invoice and not a copy of it.
import type { EInvoiceDocument, EInvoiceLine, EInvoiceParty, EInvoiceVat, VatCategory } from '../../adapters/einvoice/index.js';
import { Dec, formatMinor, toMinor } from '../../kernel/money.js';
import { addDays } from '../../domain/index.js';
import type { BankDetails } from './entities.js';
import type { InvoiceDetail } from './repository.js';

interface Snapshot {
  name?: unknown;
  legal_name?: unknown;
  alias?: unknown;
  id?: unknown;
  email?: unknown;
  vat_number?: unknown;
  tax_number?: unknown;
  registration_number?: unknown;
  address?: Record<string, unknown> | null;
  billing_address?: Record<string, unknown> | null;
  bank_details?: BankDetails | null;
  /** Seller only (sellerDetails): the entity's contact (BG-6) and Peppol endpoint (BT-34). */
  contact?: { name?: unknown; phone?: unknown; email?: unknown } | null;
  peppol_endpoint?: { scheme?: unknown; id?: unknown } | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** Where a treatment puts a line: category, percent rate, and the exemption the category needs. */
export interface VatCategoryOf {
  category: VatCategory;
  /** Percent (BT-152): "20" for 0.2; null for O. */
  rate: string | null;
  exemptionReason: string | null;
  exemptionCode: string | null;
}

/**
 * Our tax treatments (src/domain/tax.ts) as VAT categories: a charged rate is S (a 0 % rate Z),
 * an exempt customer E, reverse charge AE, an export G when the seller is VAT-registered (else
 * the sale is outside the scope of VAT: O), and no rate configured O.
 */
export function vatCategoryOf(treatment: string, rateFraction: string, sellerHasVat: boolean): VatCategoryOf {
  const percent = new Dec(rateFraction).times(100).toString();
  switch (treatment) {
    case 'STANDARD':
    case 'CUSTOM':
      return { category: new Dec(rateFraction).isZero() ? 'Z' : 'S', rate: percent, exemptionReason: null, exemptionCode: null };
    case 'EXEMPT':
      return { category: 'E', rate: '0', exemptionReason: 'Exempt from VAT: the customer is VAT exempt', exemptionCode: null };
    case 'REVERSE_CHARGE':
      return { category: 'AE', rate: '0', exemptionReason: 'Reverse charge: VAT to be accounted for by the recipient', exemptionCode: 'VATEX-EU-AE' };
    case 'EXPORT':
      return sellerHasVat
        ? { category: 'G', rate: '0', exemptionReason: 'Export outside the EU', exemptionCode: 'VATEX-EU-G' }
        : { category: 'O', rate: null, exemptionReason: 'Not subject to VAT', exemptionCode: 'VATEX-EU-O' };
    default:
      return { category: 'O', rate: null, exemptionReason: 'Not subject to VAT', exemptionCode: 'VATEX-EU-O' };
  }
}

function party(snapshot: Snapshot, dropVat: boolean): EInvoiceParty {
  const address = snapshot.address ?? snapshot.billing_address ?? null;
  const email = text(snapshot.email);
  const endpointId = text(snapshot.peppol_endpoint?.id);
  const endpointScheme = text(snapshot.peppol_endpoint?.scheme);
  const contact = { name: text(snapshot.contact?.name), phone: text(snapshot.contact?.phone), email: text(snapshot.contact?.email) };
  return {
    name: text(snapshot.legal_name) ?? text(snapshot.name),
    vatId: dropVat ? null : text(snapshot.vat_number),
    taxRegistrationId: text(snapshot.tax_number),
    legalRegistrationId: text(snapshot.registration_number),
    address: address
      ? {
          line1: text(address.line1), line2: text(address.line2), city: text(address.city), postcode: text(address.zip_code),
          subdivision: text(address.state), country: text(address.country),
        }
      : null,
    // a seller's Peppol participant id when it has one; a buyer is reached at its billing e-mail
    electronicAddress: endpointId && endpointScheme ? { scheme: endpointScheme, value: endpointId } : email ? { scheme: 'EM', value: email } : null,
    contact: contact.name || contact.phone || contact.email ? contact : null,
  };
}

/** One VAT breakdown row per (category, rate), summing the stored line amounts. */
function breakdown(lines: { category: VatCategoryOf; taxableMinor: bigint; taxMinor: bigint }[], currency: string): EInvoiceVat[] {
  const rows = new Map<string, { category: VatCategoryOf; taxableMinor: bigint; taxMinor: bigint }>();
  for (const line of lines) {
    const key = `${line.category.category}|${line.category.rate ?? ''}`;
    const row = rows.get(key);
    rows.set(key, { category: line.category, taxableMinor: (row?.taxableMinor ?? 0n) + line.taxableMinor, taxMinor: (row?.taxMinor ?? 0n) + line.taxMinor });
  }
  return [...rows.values()].map((row) => ({
    category: row.category.category,
    rate: row.category.rate,
    taxableAmount: formatMinor(row.taxableMinor, currency),
    taxAmount: formatMinor(row.taxMinor, currency),
    exemptionReason: row.category.exemptionReason,
    exemptionCode: row.category.exemptionCode,
  }));
}

/**
 * Quantity and price of a line: ours when they give exactly the line amount, else one unit at the
 * amount (a credit line: minus one unit at the positive price, since a price is never negative).
 */
function quantityAndPrice(quantity: string | null, unitPrice: string | null, amountMinor: bigint, currency: string): { quantity: string; price: string } {
  if (quantity !== null && unitPrice !== null && amountMinor >= 0n) {
    const q = new Dec(quantity);
    const p = new Dec(unitPrice);
    if (!q.isZero() && !p.isNegative() && q.isPositive() && toMinor(q.times(p), currency) === amountMinor) return { quantity: q.toString(), price: p.toString() };
  }
  const absolute = amountMinor < 0n ? -amountMinor : amountMinor;
  return { quantity: amountMinor < 0n ? '-1' : '1', price: formatMinor(absolute, currency) };
}

/** Every category on the document is O: the VAT identifiers must not appear (BR-O-02). */
const outOfScope = (categories: VatCategoryOf[]) => categories.length > 0 && categories.every((c) => c.category === 'O');

function paymentOf(seller: Snapshot, remittance: string | null): EInvoiceDocument['payment'] {
  const bank = seller.bank_details;
  if (!bank) return null;
  return {
    // 58: SEPA credit transfer (an IBAN); 30: credit transfer to another account
    meansCode: bank.iban ? '58' : '30',
    iban: bank.iban,
    accountNumber: bank.iban ? null : bank.account_number,
    accountName: bank.account_holder,
    bic: bank.bic,
    remittance,
  };
}

/** A finalized invoice (type 380). */
export function invoiceEInvoice(detail: InvoiceDetail): EInvoiceDocument {
  const { invoice } = detail;
  const currency = invoice.currency;
  const money = (minor: bigint) => formatMinor(minor, currency);
  const seller = invoice.seller_details as Snapshot;
  const customer = invoice.customer_details as Snapshot;
  const sellerHasVat = text(seller.vat_number) !== null;
  const categories = detail.lines.map((line) => vatCategoryOf(line.tax_treatment, line.tax_rate, sellerHasVat));
  const dropVat = outOfScope(categories);
  const lines: EInvoiceLine[] = detail.lines.map((line, index) => {
    const { quantity, price } = quantityAndPrice(line.quantity, line.unit_price, line.amount_minor, currency);
    const category = categories[index]!;
    return {
      id: String(line.line_no),
      name: line.name,
      quantity,
      unitCode: 'C62',
      netPrice: price,
      allowance: line.discount_minor > 0n ? money(line.discount_minor) : null,
      netAmount: money(line.taxable_minor),
      category: category.category,
      rate: category.rate,
      periodStart: line.start_date,
      periodEnd: line.end_date,
    };
  });
  const prepaidMinor = invoice.applied_credits_minor + invoice.prepaid_credits_minor;
  // a negative total is credited to the customer's balance: nothing is due, and the document says so with a negative amount
  const payableMinor = invoice.total_minor < 0n ? invoice.total_minor - prepaidMinor : invoice.amount_due_minor;
  return {
    customizationId: null,
    profileId: null,
    typeCode: '380',
    number: invoice.invoice_number,
    issueDate: invoice.invoice_date,
    dueDate: invoice.due_date,
    currency,
    buyerReference: invoice.purchase_order ?? text(customer.alias) ?? text(customer.id),
    purchaseOrder: invoice.purchase_order,
    precedingInvoice: null,
    notes: invoice.memo ? [invoice.memo] : [],
    periodStart: invoice.period_start,
    // our period end is exclusive; EN 16931 periods are inclusive
    periodEnd: invoice.period_end && invoice.period_start && invoice.period_end > invoice.period_start ? addDays(invoice.period_end, -1) : invoice.period_end,
    seller: party(seller, dropVat),
    buyer: party(customer, dropVat),
    payment: paymentOf(seller, invoice.reference),
    paymentTerms: invoice.due_date ? `Net ${invoice.net_terms} days, due ${invoice.due_date}` : null,
    lines,
    vat: breakdown(detail.lines.map((line, index) => ({ category: categories[index]!, taxableMinor: line.taxable_minor, taxMinor: line.tax_minor })), currency),
    totals: {
      lineNet: money(invoice.subtotal_minor - invoice.discount_minor),
      allowances: money(0n),
      charges: money(0n),
      taxExclusive: money(invoice.subtotal_minor - invoice.discount_minor),
      tax: money(invoice.tax_minor),
      taxInclusive: money(invoice.total_minor),
      prepaid: money(prepaidMinor),
      rounding: money(0n),
      payable: money(payableMinor),
    },
  };
}

/** What a credit note needs of itself; the credit-notes module passes it in (its rows are its own). */
export interface CreditNoteForEInvoice {
  number: string;
  issueDate: string;
  currency: string;
  reason: string;
  memo: string | null;
  subtotalMinor: bigint;
  taxMinor: bigint;
  totalMinor: bigint;
  /** How the total was settled, printed as the payment terms (BT-20). */
  settlement: string;
  lines: { position: number; name: string; taxableMinor: bigint; taxMinor: bigint; taxRate: string; taxTreatment: string }[];
}

/** A finalized credit note (type 381) correcting `invoice`: positive amounts, the invoice as the preceding invoice (BG-3). */
export function creditNoteEInvoice(note: CreditNoteForEInvoice, invoice: InvoiceDetail['invoice']): EInvoiceDocument {
  const money = (minor: bigint) => formatMinor(minor, note.currency);
  const seller = invoice.seller_details as Snapshot;
  const customer = invoice.customer_details as Snapshot;
  const sellerHasVat = text(seller.vat_number) !== null;
  const categories = note.lines.map((line) => vatCategoryOf(line.taxTreatment, line.taxRate, sellerHasVat));
  const dropVat = outOfScope(categories);
  return {
    customizationId: null,
    profileId: null,
    typeCode: '381',
    number: note.number,
    issueDate: note.issueDate,
    dueDate: null,
    currency: note.currency,
    buyerReference: invoice.purchase_order ?? text(customer.alias) ?? text(customer.id),
    purchaseOrder: invoice.purchase_order,
    precedingInvoice: { number: invoice.invoice_number ?? invoice.id, issueDate: invoice.invoice_date },
    // one note: Peppol allows one (PEPPOL-EN16931-R002)
    notes: [note.memo ? `${note.reason}\n${note.memo}` : note.reason],
    periodStart: null,
    periodEnd: null,
    seller: party(seller, dropVat),
    buyer: party(customer, dropVat),
    // XRechnung asks every document for payment instructions (BR-DE-1); nothing is paid to the
    // seller here, so the means is 1 ("instrument not defined") and the settlement is the terms
    payment: { meansCode: '1', iban: null, accountNumber: null, accountName: null, bic: null, remittance: null },
    paymentTerms: note.settlement,
    lines: note.lines.map((line, index) => ({
      id: String(line.position),
      name: line.name,
      quantity: line.taxableMinor < 0n ? '-1' : '1',
      unitCode: 'C62',
      netPrice: money(line.taxableMinor < 0n ? -line.taxableMinor : line.taxableMinor),
      allowance: null,
      netAmount: money(line.taxableMinor),
      category: categories[index]!.category,
      rate: categories[index]!.rate,
      periodStart: null,
      periodEnd: null,
    })),
    vat: breakdown(note.lines.map((line, index) => ({ category: categories[index]!, taxableMinor: line.taxableMinor, taxMinor: line.taxMinor })), note.currency),
    totals: {
      lineNet: money(note.subtotalMinor),
      allowances: money(0n),
      charges: money(0n),
      taxExclusive: money(note.subtotalMinor),
      tax: money(note.taxMinor),
      taxInclusive: money(note.totalMinor),
      prepaid: money(0n),
      rounding: money(0n),
      payable: money(note.totalMinor),
    },
  };
}
