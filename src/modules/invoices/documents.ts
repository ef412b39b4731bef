import { createHash } from 'node:crypto';
import { renderPdf, type PdfAttachment, type PdfDocumentModel } from '../../adapters/pdf/render.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { formatMinor } from '../../kernel/money.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { addDays, compareDates, EU_MEMBER_STATES } from '../../domain/index.js';
import { Dec } from '../../kernel/money.js';
import { findEntity, findEntityLogo, type BankDetails } from './entities.js';
import * as repo from './repository.js';
import { eInvoicingOutcome, storeEInvoice } from './einvoices.js';
import { invoiceEInvoice } from './einvoice-document.js';
import type { InvoiceDetail, InvoiceRow } from './repository.js';

interface Party {
  name?: unknown;
  legal_name?: unknown;
  vat_number?: unknown;
  tax_number?: unknown;
  registration_number?: unknown;
  email?: unknown;
  address?: Record<string, unknown> | null;
  billing_address?: Record<string, unknown> | null;
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** "France" for FR; the code itself when it is not a country (CLDR names ZZ "Unknown Region"). */
export function countryName(code: string): string {
  try {
    const name = REGION_NAMES.of(code);
    return name && code !== 'ZZ' ? name : code;
  } catch {
    return code;
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** Name, address lines, country, then VAT, tax and registration numbers of a seller or customer snapshot. */
export function partyLines(party: Party): string[] {
  const address = party.address ?? party.billing_address ?? {};
  const cityLine = [text(address.zip_code), text(address.city)].filter(Boolean).join(' ');
  const country = text(address.country);
  return [
    String(party.legal_name ?? party.name ?? ''),
    ...[text(address.line1), text(address.line2), cityLine, text(address.state), country ? countryName(country) : null].filter((v): v is string => !!v),
    ...(text(party.vat_number) ? [`VAT number: ${String(party.vat_number)}`] : []),
    ...(text(party.tax_number) ? [`Tax number: ${String(party.tax_number)}`] : []),
    ...(text(party.registration_number) ? [`Registration number: ${String(party.registration_number)}`] : []),
  ];
}

/** A billing period as people read it: inclusive end dates ([2026-10-24, 2026-11-24) is "2026-10-24 to 2026-11-23"). */
export function inclusivePeriod(start: string, endExclusive: string): string {
  return compareDates(endExclusive, start) > 0 ? datesText(start, addDays(endExclusive, -1)) : start;
}

/** Two inclusive dates as one text; a single day is just that day. */
export function datesText(start: string, endInclusive: string): string {
  return start === endInclusive ? start : `${start} to ${endInclusive}`;
}

/** "20%" of a "0.2" rate. */
function percent(rate: string): string {
  return `${new Dec(rate).times(100).toString()}%`;
}

/** IBANs are read in groups of four. */
function groupedIban(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The legal mention each tax treatment needs on the invoice (see src/domain/tax.ts for when each applies). */
function taxMentions(detail: InvoiceDetail): string[] {
  const { invoice } = detail;
  const seller = invoice.seller_details as Party;
  const customer = invoice.customer_details as Party;
  const sellerCountry = text(seller.address?.country);
  const customerCountry = text(customer.billing_address?.country);
  const treatments = new Set([...detail.taxBreakdown.map((row) => row.treatment), ...detail.lines.map((line) => line.tax_treatment)]);
  const customerVat = text(customer.vat_number) ? ` Customer VAT number: ${String(customer.vat_number)}.` : '';
  const mentions: string[] = [];
  if (treatments.has('REVERSE_CHARGE')) {
    const eu = sellerCountry !== null && customerCountry !== null && EU_MEMBER_STATES.has(sellerCountry) && EU_MEMBER_STATES.has(customerCountry);
    mentions.push(`Reverse charge: VAT to be accounted for by the recipient${eu ? ' (Article 196 of Council Directive 2006/112/EC)' : ''}.${customerVat}`);
  }
  if (treatments.has('EXEMPT')) mentions.push('VAT exempt: the customer is exempt from VAT, no VAT is charged.');
  if (treatments.has('EXPORT')) mentions.push('Export: the customer is outside the seller\'s tax territory, no VAT is charged (zero-rated).');
  return mentions;
}

/**
 * The hosted pay page of an invoice, built by payments (a later module; passed in by the
 * composition root), in the caller's transaction; null when the invoice is not payable.
 */
export type PayUrlOf = (db: Queryable, tenantId: string, invoice: InvoiceRow) => Promise<string | null>;

/** A custom property printed among the invoice's facts (definitions marked print_on_pdf; docs/custom-properties.md). */
export interface PrintedProperty { name: string; value: string }
/** The printed properties of an invoice's values (custom-properties' port, through the service). */
export type Printable = (db: Queryable, tenantId: string, values: Record<string, unknown> | undefined) => Promise<PrintedProperty[]>;

/** Whether the invoice can be paid online now: finalized with something still due (payments says the same for its page). */
const payableNow = (invoice: InvoiceRow) => invoice.status === 'FINALIZED' && invoice.amount_due_minor > invoice.amount_paid_minor;

function paymentBlock(invoice: InvoiceRow, money: (minor: bigint) => string, payUrl: string | null): PdfDocumentModel['payment'] {
  const seller = invoice.seller_details as Party & { bank_details?: BankDetails | null; payment_instructions?: unknown };
  const lines: string[] = [];
  if (invoice.status === 'DRAFT') lines.push(`Due ${invoice.net_terms} days after the invoice date once issued.`);
  else if (invoice.payment_status === 'PAID') lines.push(`Paid${invoice.paid_at ? ` on ${invoice.paid_at.toISOString().slice(0, 10)}` : ''}. Thank you.`);
  else if (invoice.status === 'FINALIZED') lines.push(`Please pay ${money(invoice.amount_due_minor - invoice.amount_paid_minor)}${invoice.due_date ? ` by ${invoice.due_date}` : ''}.`);
  const bank = seller.bank_details;
  if (bank) {
    lines.push('Bank transfer to:');
    if (bank.account_holder) lines.push(`Account holder: ${bank.account_holder}`);
    if (bank.bank_name) lines.push(`Bank: ${bank.bank_name}`);
    if (bank.iban) lines.push(`IBAN: ${groupedIban(bank.iban)}`);
    if (bank.bic) lines.push(`BIC: ${bank.bic}`);
    if (bank.account_number) lines.push(`Account number: ${bank.account_number}`);
    if (bank.routing_number) lines.push(`Routing number: ${bank.routing_number}`);
  }
  if (invoice.reference) lines.push(`Payment reference: ${invoice.reference}`);
  if (text(seller.payment_instructions)) lines.push(String(seller.payment_instructions));
  const link = payUrl && payableNow(invoice) ? { label: 'Pay online', url: payUrl } : null;
  return lines.length > 0 || link ? { heading: 'Payment', lines, link } : null;
}

/** Everything the invoice PDF prints; the logo comes with it (the entity's, when it is still the one the invoice names). */
export function invoicePdfModel(detail: InvoiceDetail, logo: Buffer | null = null, payUrl: string | null = null, properties: PrintedProperty[] = []): PdfDocumentModel {
  const { invoice } = detail;
  const currency = invoice.currency;
  const money = (minor: bigint) => `${formatMinor(minor, currency)} ${currency}`;
  const totals: [string, string][] = [['Subtotal', money(invoice.subtotal_minor)]];
  if (invoice.discount_minor !== 0n) totals.push(['Discount', money(-invoice.discount_minor)]);
  for (const row of detail.taxBreakdown) totals.push([`${row.name} on ${money(row.taxable_minor)}`, money(row.tax_minor)]);
  totals.push(['Total', money(invoice.total_minor)]);
  // the deduction block: one line per credit grant consumed (after tax, so below the total)
  for (const line of invoice.prepaid_credits) totals.push([`Prepaid credits: ${line.name}`, money(-BigInt(line.amount_minor))]);
  if (invoice.applied_credits_minor !== 0n) totals.push(['Paid from balance', money(-invoice.applied_credits_minor)]);
  if (invoice.amount_paid_minor !== 0n) totals.push(['Paid', money(-invoice.amount_paid_minor)]);
  totals.push(['Amount due', money(invoice.amount_due_minor - invoice.amount_paid_minor)]);
  const seller = invoice.seller_details as Party & { legal_footer?: unknown };
  return {
    title: 'Invoice',
    number: invoice.invoice_number ?? 'DRAFT',
    banner: invoice.status === 'DRAFT' ? 'Draft: not issued yet' : invoice.status === 'VOID' ? 'Void' : null,
    // The finalization instant: the same invoice always renders to the same bytes.
    issuedAt: invoice.finalized_at ?? new Date(`${invoice.invoice_date}T00:00:00.000Z`),
    logo,
    facts: [
      ['Invoice date', invoice.invoice_date],
      ...(invoice.due_date ? [['Due date', invoice.due_date] as [string, string]] : []),
      ...(invoice.period_start && invoice.period_end ? [['Period', inclusivePeriod(invoice.period_start, invoice.period_end)] as [string, string]] : []),
      ...(invoice.purchase_order ? [['Purchase order', invoice.purchase_order] as [string, string]] : []),
      ...(invoice.reference ? [['Payment reference', invoice.reference] as [string, string]] : []),
      ['Currency', currency],
      ...properties.map(({ name, value }) => [name, value] as [string, string]),
    ],
    seller: partyLines(seller),
    buyer: partyLines(invoice.customer_details as Party),
    columns: ['Description', 'Quantity', 'Unit price', 'Tax', 'Amount'],
    columnWidths: [60, 85, 45, 90],
    rows: detail.lines.map((line) => [
      [line.name, datesText(line.start_date, line.end_date), line.description].filter(Boolean).join('\n'),
      line.quantity ?? '',
      line.unit_price === null ? '' : `${line.unit_price} ${currency}`,
      percent(line.tax_rate),
      money(line.amount_minor),
    ]),
    totals,
    notes: [...taxMentions(detail), ...(invoice.memo ? [invoice.memo] : [])],
    payment: paymentBlock(invoice, money, payUrl),
    footer: [[String(seller.legal_name ?? ''), text(seller.legal_footer)].filter(Boolean).join(' - ')],
  };
}

/**
 * Renders an invoice with its entity's logo, when the logo is still the one its seller details
 * name, and its pay link ("Pay online") when it is payable and one is given.
 */
export async function renderInvoicePdf(db: Queryable, tenantId: string, detail: InvoiceDetail, payUrl: string | null = null, properties: PrintedProperty[] = [], attachment?: PdfAttachment): Promise<Buffer> {
  const wanted = (detail.invoice.seller_details as { logo_sha256?: unknown }).logo_sha256;
  const logo = typeof wanted === 'string' ? await findEntityLogo(db, tenantId, detail.invoice.invoicing_entity_id) : undefined;
  return renderPdf(invoicePdfModel(detail, logo && logo.sha256 === wanted ? logo.content : null, payUrl, properties), attachment);
}

export function sha256Hex(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Renders, stores and announces the accounting PDF of a finalized invoice, in the caller's tx.
 * Idempotent: an invoice that already has its PDF is left alone (the job may run twice).
 * E-invoicing: when the entity opted in, the structured document is generated first
 * (docs/einvoicing.md); for the CII formats a valid one is embedded, making the accounting PDF the
 * PDF/A-3 hybrid. The outcome is in the event; a document that fails rules is INVALID and never
 * stops the PDF.
 */
export async function generateAccountingPdf(tx: Queryable, tenantId: string, clock: Clock, invoiceId: string, payUrlOf?: PayUrlOf, printable?: Printable): Promise<string | null> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice || invoice.status === 'DRAFT') return null;
  if (invoice.pdf_document_id) return invoice.pdf_document_id;
  const detail = await repo.loadDetail(tx, tenantId, invoice);
  const entity = await findEntity(tx, tenantId, invoice.invoicing_entity_id);
  const eInvoice = entity?.e_invoicing_format
    ? await storeEInvoice(tx, tenantId, clock, { objectId: invoice.id, kind: 'INVOICE', format: entity.e_invoicing_format, document: invoiceEInvoice(detail) })
    : undefined;
  // the link is issued in this tx: the invoice row is locked here, and a link row references it
  const payUrl = payUrlOf ? await payUrlOf(tx, tenantId, invoice) : null;
  const properties = printable ? await printable(tx, tenantId, invoice.custom_properties) : [];
  const content = await renderInvoicePdf(tx, tenantId, detail, payUrl, properties, eInvoice?.attachment ?? undefined);
  const now = clock.now();
  const document: repo.DocumentRow = {
    id: newId('document', now.getTime()),
    kind: 'INVOICE_PDF',
    object_id: invoice.id,
    content_type: 'application/pdf',
    sha256: sha256Hex(content),
    content,
    created_at: now,
  };
  await repo.insertDocument(tx, tenantId, document);
  await repo.updateInvoice(tx, tenantId, { ...invoice, pdf_document_id: document.id });
  await writeOutboxEvent(scoped(tx, tenantId), clock, {
    type: 'invoice.accounting_pdf_generated',
    objectId: invoice.id,
    data: {
      invoice_id: invoice.id,
      customer_id: invoice.customer_id,
      invoice_number: invoice.invoice_number,
      pdf_id: document.id,
      pdf_sha256: document.sha256,
      pdf_url: `/api/v1/invoices/${invoice.id}/download`,
      e_invoicing: eInvoicingOutcome(eInvoice?.row),
      created_at: now.toISOString(),
    },
  });
  return document.id;
}
