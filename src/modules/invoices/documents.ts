import { createHash } from 'node:crypto';
import { renderPdf, type PdfDocumentModel } from '../../adapters/pdf/render.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { formatMinor } from '../../kernel/money.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { findEntity } from './entities.js';
import * as repo from './repository.js';
import type { InvoiceDetail } from './repository.js';

interface Party {
  name?: unknown;
  legal_name?: unknown;
  vat_number?: unknown;
  address?: Record<string, unknown> | null;
  billing_address?: Record<string, unknown> | null;
}

/** Name, address lines and VAT number of a seller or customer snapshot. */
export function partyLines(party: Party): string[] {
  const address = party.address ?? party.billing_address ?? {};
  const cityLine = [address.zip_code, address.city].filter(Boolean).join(' ');
  return [
    String(party.legal_name ?? party.name ?? ''),
    ...[address.line1, address.line2, cityLine, address.state, address.country].filter((v) => typeof v === 'string' && v !== '').map(String),
    ...(party.vat_number ? [`VAT ${String(party.vat_number)}`] : []),
  ];
}

export function invoicePdfModel(detail: InvoiceDetail): PdfDocumentModel {
  const { invoice } = detail;
  const money = (minor: bigint) => `${formatMinor(minor, invoice.currency)} ${invoice.currency}`;
  const totals: [string, string][] = [['Subtotal', money(invoice.subtotal_minor)]];
  if (invoice.discount_minor !== 0n) totals.push(['Discount', money(-invoice.discount_minor)]);
  for (const row of detail.taxBreakdown) totals.push([`${row.name} on ${formatMinor(row.taxable_minor, invoice.currency)}`, money(row.tax_minor)]);
  totals.push(['Total', money(invoice.total_minor)]);
  if (invoice.applied_credits_minor !== 0n) totals.push(['Paid from balance', money(-invoice.applied_credits_minor)]);
  totals.push(['Amount due', money(invoice.amount_due_minor)]);
  const notes: string[] = [];
  if (detail.taxBreakdown.some((row) => row.treatment === 'REVERSE_CHARGE')) notes.push('Reverse charge: VAT to be accounted for by the recipient.');
  if (invoice.memo) notes.push(invoice.memo);
  return {
    title: 'Invoice',
    number: invoice.invoice_number ?? 'DRAFT',
    // The finalization instant: the same invoice always renders to the same bytes.
    issuedAt: invoice.finalized_at ?? new Date(`${invoice.invoice_date}T00:00:00.000Z`),
    facts: [
      ['Invoice date', invoice.invoice_date],
      ...(invoice.due_date ? [['Due date', invoice.due_date] as [string, string]] : []),
      ...(invoice.period_start && invoice.period_end ? [['Period', `${invoice.period_start} to ${invoice.period_end}`] as [string, string]] : []),
      ...(invoice.reference ? [['Payment reference', invoice.reference] as [string, string]] : []),
    ],
    seller: partyLines(invoice.seller_details as Party),
    buyer: partyLines(invoice.customer_details as Party),
    columns: ['Description', 'Quantity', 'Unit price', 'Amount'],
    rows: detail.lines.map((line) => [
      `${line.name} (${line.start_date} - ${line.end_date})`,
      line.quantity ?? '',
      line.unit_price ?? '',
      formatMinor(line.amount_minor, invoice.currency),
    ]),
    totals,
    notes,
  };
}

export function sha256Hex(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Renders, stores and announces the accounting PDF of a finalized invoice, in the caller's tx.
 * Idempotent: an invoice that already has its PDF is left alone (the job may run twice).
 * E-invoicing: the outcome is NONE unless the invoicing entity opted in; structured e-invoices
 * (Factur-X) are not produced yet, so an opted-in entity gets NOT_SUPPORTED, never a fake success.
 */
export async function generateAccountingPdf(tx: Queryable, tenantId: string, clock: Clock, invoiceId: string): Promise<string | null> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice || invoice.status === 'DRAFT') return null;
  if (invoice.pdf_document_id) return invoice.pdf_document_id;
  const detail = await repo.loadDetail(tx, tenantId, invoice);
  const content = await renderPdf(invoicePdfModel(detail));
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
  const entity = await findEntity(tx, tenantId, invoice.invoicing_entity_id);
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
      e_invoicing: entity?.e_invoicing_enabled
        ? { status: 'NOT_SUPPORTED', format: 'FACTUR_X', message: 'structured e-invoices are not generated yet; the PDF is the accounting document' }
        : { status: 'NONE' },
      created_at: now.toISOString(),
    },
  });
  return document.id;
}
