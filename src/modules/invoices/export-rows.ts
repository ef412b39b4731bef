// What data export (src/modules/exports) reads of invoices, invoice lines and payment
// transactions: one window of changes at a time, in keyset pages, so a large history never sits
// in one result. Windows are half-open on the left: `after` < t <= `upTo` (after null: from the start).
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { INVOICE_COLUMNS, type InvoiceLineRow, type InvoiceRow, type PaymentTransactionRow } from './repository.js';

export interface ChangeWindow {
  after: Date | null;
  upTo: Date;
}

/** Where the previous page ended: its last row's time and id. */
export interface KeysetCursor {
  at: Date;
  id: string;
}

/** `column` in the window and (`column`, `idColumn`) after the cursor, as SQL with its parameters from `$2`. */
function windowFilter(column: string, idColumn: string, window: ChangeWindow, cursor: KeysetCursor | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [window.upTo];
  let sql = `${column} <= $2`;
  if (window.after) {
    params.push(window.after);
    sql += ` AND ${column} > $${params.length + 1}`;
  }
  if (cursor) {
    params.push(cursor.at, cursor.id);
    sql += ` AND (${column}, ${idColumn}) > ($${params.length}, $${params.length + 1})`;
  }
  return { sql, params };
}

/**
 * Invoices (not drafts: a draft is not yet a document) whose `updated_at` is in the window,
 * oldest change first. An invoice that changes again (paid, voided) is in a later window again.
 */
export async function invoicesChangedIn(db: Queryable, tenantId: string, window: ChangeWindow, cursor: KeysetCursor | null, limit: number): Promise<InvoiceRow[]> {
  const filter = windowFilter('updated_at', 'id', window, cursor);
  return scoped(db, tenantId).query<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND status <> 'DRAFT' AND ${filter.sql}
     ORDER BY updated_at, id LIMIT $${filter.params.length + 2}`,
    [...filter.params, limit],
  );
}

/** An invoice line with what a line file needs of its invoice. */
export interface ExportedInvoiceLine extends InvoiceLineRow {
  invoice_number: string | null;
  customer_id: string;
  currency: string;
  finalized_at: Date;
}

/**
 * Lines of the invoices finalized in the window: a finalized invoice's lines never change, so
 * each line is in exactly one window. Ordered by the invoice's finalization, then line id.
 */
export async function invoiceLinesFinalizedIn(db: Queryable, tenantId: string, window: ChangeWindow, cursor: KeysetCursor | null, limit: number): Promise<ExportedInvoiceLine[]> {
  const filter = windowFilter('i.finalized_at', 'l.id', window, cursor);
  return scoped(db, tenantId).query<ExportedInvoiceLine>(
    `SELECT l.id, l.invoice_id, l.line_no, l.name, l.description, l.category, l.quantity, l.unit_price, l.start_date, l.end_date, l.amount_minor,
       l.discount_minor, l.taxable_minor, l.tax_rate, l.tax_treatment, l.tax_country, l.tax_minor, l.total_minor, l.metric_id, l.component_id,
       i.invoice_number, i.customer_id, i.currency, i.finalized_at
     FROM invoice_lines l JOIN invoices i ON i.tenant_id = l.tenant_id AND i.id = l.invoice_id
     WHERE l.tenant_id = $1 AND i.finalized_at IS NOT NULL AND ${filter.sql}
     ORDER BY i.finalized_at, l.id LIMIT $${filter.params.length + 2}`,
    [...filter.params, limit],
  );
}

/** A recorded payment with its invoice's customer. */
export interface ExportedPayment extends PaymentTransactionRow {
  customer_id: string;
}

/** Payment transactions recorded in the window (`created_at`), oldest first. */
export async function paymentsRecordedIn(db: Queryable, tenantId: string, window: ChangeWindow, cursor: KeysetCursor | null, limit: number): Promise<ExportedPayment[]> {
  const filter = windowFilter('p.created_at', 'p.id', window, cursor);
  return scoped(db, tenantId).query<ExportedPayment>(
    `SELECT p.id, p.invoice_id, p.amount_minor, p.currency, p.status, p.payment_type, p.provider_transaction_id, p.error, p.processed_at, p.created_at, i.customer_id
     FROM payment_transactions p JOIN invoices i ON i.tenant_id = p.tenant_id AND i.id = p.invoice_id
     WHERE p.tenant_id = $1 AND ${filter.sql}
     ORDER BY p.created_at, p.id LIMIT $${filter.params.length + 2}`,
    [...filter.params, limit],
  );
}
