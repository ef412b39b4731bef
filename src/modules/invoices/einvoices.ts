// E-invoicing outcomes (docs/einvoicing.md): the structured document of a finalized invoice or
// credit note, generated when its entity opted in, stored in `documents`, and its outcome in
// `e_invoices` (one row per document, written once). Credit notes store theirs through here.
import { createHash } from 'node:crypto';
import { generateEInvoice, SYNTAXES, type EInvoiceDocument, type EInvoiceFormat, type RuleFailure } from '../../adapters/einvoice/index.js';
import type { PdfAttachment } from '../../adapters/pdf/render.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import * as repo from './repository.js';
import type { EInvoiceRow } from './repository.js';

export type { EInvoiceRow };
export type EInvoiceObjectKind = EInvoiceRow['object_kind'];
export type EInvoiceStatus = EInvoiceRow['status'];

/** The outcome as the API, the event payloads and docs/einvoicing.md show it. */
export interface EInvoicingOutcome {
  format: EInvoiceFormat | null;
  status: EInvoiceStatus | 'NOT_APPLICABLE';
  errors: RuleFailure[];
  download_url: string | null;
}

const COLUMNS = 'object_id, object_kind, format, status, errors, xml_document_id, created_at';

export async function findEInvoices(db: Queryable, tenantId: string, objectIds: readonly string[]): Promise<Map<string, EInvoiceRow>> {
  if (objectIds.length === 0) return new Map();
  const rows = await scoped(db, tenantId).query<EInvoiceRow>(`SELECT ${COLUMNS} FROM e_invoices WHERE tenant_id = $1 AND object_id = ANY($2::text[])`, [[...objectIds]]);
  return new Map(rows.map((row) => [row.object_id, row]));
}

export async function findEInvoice(db: Queryable, tenantId: string, objectId: string): Promise<EInvoiceRow | undefined> {
  return (await findEInvoices(db, tenantId, [objectId])).get(objectId);
}

const PATHS: Record<EInvoiceObjectKind, string> = { INVOICE: 'invoices', CREDIT_NOTE: 'credit-notes' };

/** No row: no structured document (the entity had not opted in, or the document is a draft or not generated yet). */
export function eInvoicingOutcome(row: EInvoiceRow | undefined | null): EInvoicingOutcome {
  if (!row) return { format: null, status: 'NOT_APPLICABLE', errors: [], download_url: null };
  return { format: row.format, status: row.status, errors: row.errors, download_url: `/api/v1/${PATHS[row.object_kind]}/${row.object_id}/e-invoice` };
}

export interface StoredEInvoice {
  row: EInvoiceRow;
  xml: Buffer;
  /**
   * What the PDF carries: the XML as the profile names it, for the CII formats (Factur-X,
   * XRechnung CII), and only when the document passed the rules: an invalid document is never
   * presented as a hybrid e-invoice. Null for the UBL formats, whose XML travels alone.
   */
  attachment: PdfAttachment | null;
}

/**
 * Writes the document in the format, reads it back and checks the rules, then stores the XML and
 * the outcome, in the caller's transaction. A document that fails rules is stored as INVALID:
 * it never stops the finalization it belongs to. Idempotent: an existing outcome is returned.
 */
export async function storeEInvoice(
  tx: Queryable, tenantId: string, clock: Clock, target: { objectId: string; kind: EInvoiceObjectKind; format: EInvoiceFormat; document: EInvoiceDocument },
): Promise<StoredEInvoice> {
  const existing = await findEInvoice(tx, tenantId, target.objectId);
  if (existing) {
    const stored = await repo.findDocument(tx, tenantId, existing.xml_document_id);
    return withAttachment(existing, stored?.content ?? Buffer.alloc(0));
  }
  const { xml, failures } = await generateEInvoice(target.format, target.document);
  const content = Buffer.from(xml, 'utf8');
  const now = clock.now();
  const documentId = newId('document', now.getTime());
  await repo.insertDocument(tx, tenantId, {
    id: documentId, kind: target.kind === 'INVOICE' ? 'INVOICE_XML' : 'CREDIT_NOTE_XML', object_id: target.objectId,
    content_type: 'application/xml', sha256: createHash('sha256').update(content).digest('hex'), content, created_at: now,
  });
  const row: EInvoiceRow = {
    object_id: target.objectId, object_kind: target.kind, format: target.format, status: failures.length === 0 ? 'VALID' : 'INVALID',
    errors: failures, xml_document_id: documentId, created_at: now,
  };
  await scoped(tx, tenantId).query(
    `INSERT INTO e_invoices (tenant_id, object_id, object_kind, format, status, errors, xml_document_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.object_id, row.object_kind, row.format, row.status, JSON.stringify(row.errors), row.xml_document_id, row.created_at],
  );
  return withAttachment(row, content);
}

function withAttachment(row: EInvoiceRow, xml: Buffer): StoredEInvoice {
  const attachment = SYNTAXES[row.format].attachment;
  return { row, xml, attachment: attachment && row.status === 'VALID' ? { ...attachment, content: xml } : null };
}

/** The PDF attachment of a stored e-invoice (see StoredEInvoice.attachment), or undefined. */
export async function storedEInvoiceAttachment(db: Queryable, tenantId: string, objectId: string): Promise<PdfAttachment | undefined> {
  const row = await findEInvoice(db, tenantId, objectId);
  const document = row ? await repo.findDocument(db, tenantId, row.xml_document_id) : undefined;
  return row && document ? (withAttachment(row, document.content).attachment ?? undefined) : undefined;
}

/**
 * The XML to send beside the PDF: a VALID document whose format is not embedded in the PDF (the
 * UBL formats, XRechnung UBL and Peppol BIS, travel as XML). Undefined otherwise: a hybrid PDF
 * already carries it, and an INVALID document is not sent as an e-invoice.
 */
export async function separateEInvoiceXml(db: Queryable, tenantId: string, objectId: string, baseName: string): Promise<{ content: Buffer; filename: string } | undefined> {
  const row = await findEInvoice(db, tenantId, objectId);
  if (!row || row.status !== 'VALID' || SYNTAXES[row.format].attachment) return undefined;
  return eInvoiceXml(db, tenantId, objectId, baseName);
}

/** The XML of an invoice's or credit note's e-invoice with its file name, or undefined when there is none. */
export async function eInvoiceXml(db: Queryable, tenantId: string, objectId: string, baseName: string): Promise<{ content: Buffer; filename: string } | undefined> {
  const row = await findEInvoice(db, tenantId, objectId);
  const document = row ? await repo.findDocument(db, tenantId, row.xml_document_id) : undefined;
  if (!row || !document) return undefined;
  const attachment = SYNTAXES[row.format].attachment;
  return { content: document.content, filename: attachment ? `${baseName}-${attachment.fileName}` : `${baseName}.xml` };
}
