import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';
import type { EInvoiceRow } from '../invoices/index.js';

export type CreditNoteStatus = 'DRAFT' | 'FINALIZED' | 'VOIDED';
export type CreditType = 'CREDIT_TO_BALANCE' | 'REFUND';
export const CREDIT_NOTE_STATUSES: readonly CreditNoteStatus[] = ['DRAFT', 'FINALIZED', 'VOIDED'];
/**
 * Where the money of a finalized REFUND note is (docs/payments.md, "Refunds"): PENDING until the
 * payments module asked the provider, then REFUNDED or FAILED; MANUAL when the invoice was not
 * paid through a provider (paying out is the merchant's). Null: nothing to refund.
 */
export type RefundStatus = 'PENDING' | 'REFUNDED' | 'FAILED' | 'MANUAL';
export const REFUND_STATUSES: readonly RefundStatus[] = ['PENDING', 'REFUNDED', 'FAILED', 'MANUAL'];

export interface CreditNoteRow {
  id: string;
  invoice_id: string;
  invoicing_entity_id: string;
  customer_id: string;
  credit_note_number: string | null;
  status: CreditNoteStatus;
  credit_type: CreditType;
  reason: string;
  memo: string | null;
  currency: string;
  subtotal_minor: bigint;
  tax_minor: bigint;
  total_minor: bigint;
  debt_cancelled_minor: bigint;
  credited_minor: bigint;
  refunded_minor: bigint;
  refund_status: RefundStatus | null;
  pdf_document_id: string | null;
  created_at: Date;
  updated_at: Date;
  finalized_at: Date | null;
  voided_at: Date | null;
  /** Checked by custom-properties' port on every write (docs/custom-properties.md); editable in any status. */
  custom_properties: CustomPropertyValues;
}

export interface CreditNoteLineRow {
  id: string;
  credit_note_id: string;
  invoice_line_id: string;
  position: number;
  name: string;
  taxable_minor: bigint;
  tax_minor: bigint;
  total_minor: bigint;
  tax_rate: string;
  tax_treatment: string;
  tax_country: string | null;
}

export interface CreditNoteDetail {
  note: CreditNoteRow;
  lines: CreditNoteLineRow[];
  /** The e-invoicing outcome (docs/einvoicing.md), stored by invoices. */
  eInvoice?: EInvoiceRow | null;
}

const COLUMNS = `id, invoice_id, invoicing_entity_id, customer_id, credit_note_number, status, credit_type, reason, memo, currency,
  subtotal_minor, tax_minor, total_minor, debt_cancelled_minor, credited_minor, refunded_minor, pdf_document_id, created_at, updated_at,
  finalized_at, voided_at, refund_status, custom_properties`;
/** Every column of a credit note row, for readers outside this file (data export). */
export const CREDIT_NOTE_COLUMNS = COLUMNS;

export async function insertCreditNote(db: Queryable, tenantId: string, note: CreditNoteRow, lines: CreditNoteLineRow[]): Promise<void> {
  const s = scoped(db, tenantId);
  await s.query(
    `INSERT INTO credit_notes (tenant_id, ${COLUMNS.replace(/\s+/g, ' ')})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`,
    [note.id, note.invoice_id, note.invoicing_entity_id, note.customer_id, note.credit_note_number, note.status, note.credit_type,
      note.reason, note.memo, note.currency, note.subtotal_minor, note.tax_minor, note.total_minor, note.debt_cancelled_minor,
      note.credited_minor, note.refunded_minor, note.pdf_document_id, note.created_at, note.updated_at, note.finalized_at, note.voided_at, note.refund_status,
      JSON.stringify(note.custom_properties)],
  );
  for (const line of lines) {
    await s.query(
      `INSERT INTO credit_note_lines (tenant_id, id, credit_note_id, invoice_line_id, position, name, taxable_minor, tax_minor, total_minor,
         tax_rate, tax_treatment, tax_country)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [line.id, line.credit_note_id, line.invoice_line_id, line.position, line.name, line.taxable_minor, line.tax_minor, line.total_minor,
        line.tax_rate, line.tax_treatment, line.tax_country],
    );
  }
}

export async function updateCreditNote(db: Queryable, tenantId: string, note: CreditNoteRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE credit_notes SET credit_note_number = $3, status = $4, debt_cancelled_minor = $5, credited_minor = $6, refunded_minor = $7,
       pdf_document_id = $8, updated_at = $9, finalized_at = $10, voided_at = $11, refund_status = $12
     WHERE tenant_id = $1 AND id = $2`,
    [note.id, note.credit_note_number, note.status, note.debt_cancelled_minor, note.credited_minor, note.refunded_minor,
      note.pdf_document_id, note.updated_at, note.finalized_at, note.voided_at, note.refund_status],
  );
}

export async function findCreditNote(db: Queryable, tenantId: string, id: string, lock = false): Promise<CreditNoteRow | undefined> {
  return scoped(db, tenantId).one<CreditNoteRow>(`SELECT ${COLUMNS} FROM credit_notes WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** How many credit notes of an invoice are not VOIDED (an invoice with any cannot be voided). */
export async function countOpenCreditNotes(db: Queryable, tenantId: string, invoiceId: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ n: bigint }>(
    `SELECT count(*) AS n FROM credit_notes WHERE tenant_id = $1 AND invoice_id = $2 AND status <> 'VOIDED'`,
    [invoiceId],
  );
  return Number(row?.n ?? 0n);
}

export async function loadLines(db: Queryable, tenantId: string, noteIds: string[]): Promise<CreditNoteLineRow[]> {
  if (noteIds.length === 0) return [];
  return scoped(db, tenantId).query<CreditNoteLineRow>(
    `SELECT id, credit_note_id, invoice_line_id, position, name, taxable_minor, tax_minor, total_minor, tax_rate, tax_treatment, tax_country
     FROM credit_note_lines WHERE tenant_id = $1 AND credit_note_id = ANY($2) ORDER BY credit_note_id, position`,
    [noteIds],
  );
}

/** What non-voided credit notes (drafts included: a draft reserves its amounts) took from each line. */
export async function creditedByLine(db: Queryable, tenantId: string, invoiceId: string): Promise<Map<string, { taxableMinor: bigint; taxMinor: bigint }>> {
  const rows = await scoped(db, tenantId).query<{ invoice_line_id: string; taxable: bigint; tax: bigint }>(
    `SELECT l.invoice_line_id, sum(l.taxable_minor)::bigint AS taxable, sum(l.tax_minor)::bigint AS tax
     FROM credit_note_lines l JOIN credit_notes n ON n.id = l.credit_note_id
     WHERE l.tenant_id = $1 AND n.invoice_id = $2 AND n.status <> 'VOIDED'
     GROUP BY l.invoice_line_id`,
    [invoiceId],
  );
  return new Map(rows.map((row) => [row.invoice_line_id, { taxableMinor: row.taxable, taxMinor: row.tax }]));
}

export interface CreditNoteFilter {
  invoiceId?: string;
  customerId?: string;
  statuses?: CreditNoteStatus[];
  /** Values the custom properties must contain (`@>`, GIN index of migration 0430). */
  properties?: CustomPropertyValues | null;
}

/** Writes a credit note's custom property values and nothing else. */
export async function updateCreditNoteProperties(db: Queryable, tenantId: string, id: string, values: CustomPropertyValues, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE credit_notes SET custom_properties = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`, [id, JSON.stringify(values), at]);
}

export async function listCreditNotes(
  db: Queryable, tenantId: string, filter: CreditNoteFilter, direction: 'asc' | 'desc', page: PageRequest,
): Promise<{ rows: CreditNoteRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR invoice_id = $2) AND ($3::text IS NULL OR customer_id = $3)
    AND ($4::text[] IS NULL OR status = ANY($4))${filter.properties ? ' AND custom_properties @> $5::jsonb' : ''}`;
  const params: unknown[] = [filter.invoiceId ?? null, filter.customerId ?? null, filter.statuses?.length ? filter.statuses : null];
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<CreditNoteRow>({ columns: COLUMNS, from: 'credit_notes', where, orderBy: `created_at ${dir}, id ${dir}` }, params, page);
}

/** The payments module reports where a REFUND note's money is (in its tx). */
export async function setRefundStatus(db: Queryable, tenantId: string, id: string, status: RefundStatus, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE credit_notes SET refund_status = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`, [id, status, at]);
}

/** Deletes the credit notes of these customers with their lines (a test clock's deletion); returns their ids, whose PDFs the invoices module deletes. */
export async function deleteCreditNotesOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(`DELETE FROM credit_notes WHERE tenant_id = $1 AND customer_id = ANY($2::text[]) RETURNING id`, [customerIds]);
  return rows.map((row) => row.id);
}
