import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { generateAccountingPdf, renderInvoicePdf, type PayUrlOf } from './documents.js';
import { insertDraft, type DraftInvoiceInput } from './drafts.js';
import { eInvoiceXml } from './einvoices.js';
import * as repo from './repository.js';
import { INVOICE_STATUSES, type InvoiceDetail, type InvoiceOrderColumn, type InvoiceStatus } from './repository.js';

export interface ListInvoicesQuery {
  customer_id?: string;
  subscription_id?: string;
  statuses?: string[];
  order_by?: string;
  page?: number;
  per_page?: number;
}

const ORDER_COLUMNS: readonly InvoiceOrderColumn[] = ['invoice_number', 'customer_name', 'amount', 'invoice_date', 'status', 'payment_status'];

export function createInvoicesService(deps: { pool: Pool; clock: Clock; payUrlOf?: PayUrlOf }) {
  const { pool, clock } = deps;

  async function get(tenantId: string, invoiceId: string): Promise<InvoiceDetail> {
    const invoice = await repo.findInvoice(pool, tenantId, invoiceId);
    if (!invoice) throw notFound('invoice');
    return repo.loadDetail(pool, tenantId, invoice);
  }

  async function list(tenantId: string, query: ListInvoicesQuery): Promise<Page<InvoiceDetail>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ORDER_COLUMNS, { column: 'invoice_date', direction: 'desc' });
    const statuses = (query.statuses ?? []).flatMap((s) => s.split(',')).filter((s) => s !== '');
    for (const [index, status] of statuses.entries()) {
      if (!INVOICE_STATUSES.includes(status as InvoiceStatus)) {
        throw badRequest(`statuses[${index}] must be one of ${INVOICE_STATUSES.join(', ')}; got '${status}'`);
      }
    }
    const { rows, total } = await repo.listInvoices(
      pool, tenantId, { customerId: query.customer_id, subscriptionId: query.subscription_id, statuses: statuses as InvoiceStatus[] }, order, page,
    );
    return { data: await repo.loadDetails(pool, tenantId, rows), pagination_meta: paginationMeta(page, total) };
  }

  /**
   * The stored accounting PDF of a finalized invoice (rendered now if its job has not run yet);
   * a draft gets a preview marked DRAFT that is not stored.
   */
  async function pdf(tenantId: string, invoiceId: string): Promise<{ content: Buffer; filename: string }> {
    const invoice = await repo.findInvoice(pool, tenantId, invoiceId);
    if (!invoice) throw notFound('invoice');
    if (invoice.status === 'DRAFT') {
      const content = await renderInvoicePdf(pool, tenantId, await repo.loadDetail(pool, tenantId, invoice));
      return { content, filename: `invoice-draft-${invoice.id}.pdf` };
    }
    const documentId = invoice.pdf_document_id ?? (await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoice.id, deps.payUrlOf)));
    const document = documentId ? await repo.findDocument(pool, tenantId, documentId) : undefined;
    if (!document) throw notFound('invoice PDF');
    return { content: document.content, filename: `${invoice.invoice_number ?? invoice.id}.pdf` };
  }

  /**
   * The structured e-invoice (XML) of a finalized invoice, generated with its accounting PDF
   * (now, if that job has not run yet); a 404 when there is none (a draft, or an entity that had
   * not opted in when the PDF was rendered).
   */
  async function eInvoice(tenantId: string, invoiceId: string): Promise<{ content: Buffer; filename: string }> {
    const invoice = await repo.findInvoice(pool, tenantId, invoiceId);
    if (!invoice) throw notFound('invoice');
    if (invoice.status === 'DRAFT') throw notFound('e-invoice (the invoice is a draft; it gets one when finalized, if its invoicing entity opted in)');
    if (!invoice.pdf_document_id) await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoice.id, deps.payUrlOf));
    const xml = await eInvoiceXml(pool, tenantId, invoice.id, invoice.invoice_number ?? invoice.id);
    if (!xml) throw notFound('e-invoice (the invoicing entity had not opted in, see e_invoicing_format, when this invoice was finalized)');
    return xml;
  }

  /** Stores a computed invoice as a draft (billing runs, one-off invoices, tests). */
  async function createDraft(tenantId: string, input: DraftInvoiceInput): Promise<InvoiceDetail> {
    const row = await withTx(pool, (tx) => insertDraft(tx, tenantId, clock, input));
    return repo.loadDetail(pool, tenantId, row);
  }

  async function renderPdfJob(payload: Record<string, unknown>): Promise<void> {
    const tenantId = String(payload.tenant_id);
    const invoiceId = String(payload.invoice_id);
    await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoiceId, deps.payUrlOf));
  }

  return { get, list, pdf, eInvoice, createDraft, renderPdfJob };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;
