import { renderPdf, type PdfDocumentModel } from '../../adapters/pdf/render.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { formatMinor } from '../../kernel/money.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { findDocument, findInvoice, insertDocument, partyLines, sha256Hex, storedEInvoiceAttachment } from '../invoices/index.js';
import type { CreditNoteDetail } from './repository.js';

export function creditNotePdfModel(detail: CreditNoteDetail, invoice: { invoice_number: string | null; seller_details: Record<string, unknown>; customer_details: Record<string, unknown> }): PdfDocumentModel {
  const { note } = detail;
  const money = (minor: bigint) => `${formatMinor(minor, note.currency)} ${note.currency}`;
  const totals: [string, string][] = [['Subtotal', money(note.subtotal_minor)], ['Tax', money(note.tax_minor)], ['Total credited', money(note.total_minor)]];
  if (note.debt_cancelled_minor > 0n) totals.push(['Deducted from the invoice', money(note.debt_cancelled_minor)]);
  if (note.credited_minor > 0n) totals.push(['Added to your balance', money(note.credited_minor)]);
  if (note.refunded_minor > 0n) totals.push(['Refunded', money(note.refunded_minor)]);
  return {
    title: 'Credit note',
    number: note.credit_note_number ?? 'DRAFT',
    issuedAt: note.finalized_at ?? note.created_at,
    facts: [
      ['Date', (note.finalized_at ?? note.created_at).toISOString().slice(0, 10)],
      ['Credits invoice', invoice.invoice_number ?? note.invoice_id],
      ['Reason', note.reason],
    ],
    seller: partyLines(invoice.seller_details),
    buyer: partyLines(invoice.customer_details),
    columns: ['Description', 'Tax rate', 'Tax', 'Net credited'],
    columnWidths: [70, 90, 100],
    rows: detail.lines.map((line) => [line.name, line.tax_rate, money(line.tax_minor), money(line.taxable_minor)]),
    totals,
    notes: note.memo ? [note.memo] : [],
    footer: [String(invoice.seller_details.legal_name ?? '')],
  };
}

/**
 * The PDF of a credit note: stored once the note is finalized (so it never changes afterwards),
 * rendered on the fly as a preview while it is a draft.
 */
export async function creditNotePdf(db: Queryable, tenantId: string, clock: Clock, detail: CreditNoteDetail): Promise<Buffer> {
  const { note } = detail;
  if (note.pdf_document_id) {
    const stored = await findDocument(db, tenantId, note.pdf_document_id);
    if (stored) return stored.content;
  }
  const invoice = (await findInvoice(db, tenantId, note.invoice_id))!;
  if (note.status === 'DRAFT') return renderPdf(creditNotePdfModel(detail, invoice));
  // a valid CII e-invoice makes the stored PDF the PDF/A-3 hybrid (docs/einvoicing.md)
  const content = await renderPdf(creditNotePdfModel(detail, invoice), await storedEInvoiceAttachment(db, tenantId, note.id));
  const now = clock.now();
  const documentId = newId('document', now.getTime());
  await insertDocument(db, tenantId, { id: documentId, kind: 'CREDIT_NOTE_PDF', object_id: note.id, content_type: 'application/pdf', sha256: sha256Hex(content), content, created_at: now });
  await scoped(db, tenantId).query(`UPDATE credit_notes SET pdf_document_id = $3 WHERE tenant_id = $1 AND id = $2`, [note.id, documentId]);
  return content;
}

