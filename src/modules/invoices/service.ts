import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { invoiceEventData } from './events.js';
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
  /** `custom_properties[<key>]` filters come in the same object */
  [name: string]: unknown;
  page?: number;
  per_page?: number;
}

const ORDER_COLUMNS: readonly InvoiceOrderColumn[] = ['invoice_number', 'customer_name', 'amount', 'invoice_date', 'status', 'payment_status'];

export function createInvoicesService(deps: { pool: Pool; clock: Clock; payUrlOf?: PayUrlOf; properties: CustomPropertiesPort }) {
  const { pool, clock } = deps;
  // the values of the INVOICE custom properties marked print_on_pdf, for the PDF's facts
  const printable = (db: Queryable, tenantId: string, values: Record<string, unknown> | undefined) => deps.properties.printable(db, tenantId, 'INVOICE', values ?? {});

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
    const properties = await deps.properties.filter(pool, tenantId, 'INVOICE', query);
    const { rows, total } = await repo.listInvoices(
      pool, tenantId, { customerId: query.customer_id, subscriptionId: query.subscription_id, statuses: statuses as InvoiceStatus[], properties }, order, page,
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
      const content = await renderInvoicePdf(pool, tenantId, await repo.loadDetail(pool, tenantId, invoice), null, await printable(pool, tenantId, invoice.custom_properties));
      return { content, filename: `invoice-draft-${invoice.id}.pdf` };
    }
    const documentId = invoice.pdf_document_id ?? (await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoice.id, deps.payUrlOf, printable)));
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
    // the same PDF the job would render: with the values the definitions print
    if (!invoice.pdf_document_id) await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoice.id, deps.payUrlOf, printable));
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
    await withTx(pool, (tx) => generateAccountingPdf(tx, tenantId, clock, invoiceId, deps.payUrlOf, printable));
  }

  /**
   * Replaces an invoice's custom property values, checked by the custom-properties port, in any
   * status: they are not amounts, so a finalized invoice takes them too. Nothing else moves; the
   * stored accounting PDF keeps the values it was rendered with. Emits `invoice.updated`.
   */
  async function updateProperties(tenantId: string, invoiceId: string, values: Record<string, unknown>): Promise<InvoiceDetail> {
    const row = await withTx(pool, async (tx) => {
      const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
      if (!invoice) throw notFound('invoice');
      const next = { ...invoice, custom_properties: await deps.properties.resolve(tx, tenantId, 'INVOICE', values, { creating: false }), updated_at: clock.now() };
      await repo.updateInvoiceProperties(tx, tenantId, invoice.id, next.custom_properties, next.updated_at);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'invoice.updated', objectId: invoice.id, data: invoiceEventData(next) });
      return next;
    });
    return repo.loadDetail(pool, tenantId, row);
  }

  return { get, list, pdf, createDraft, renderPdfJob, updateProperties, eInvoice };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;
