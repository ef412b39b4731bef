import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { InvoiceLifecycle } from './lifecycle.js';
import type { InvoicesService } from './service.js';
import { notFound } from '../../kernel/errors.js';
import { Invoice, invoiceToWire } from './schemas.js';
import * as ex from './examples.js';
import { CustomPropertiesInput, customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';

const InvoiceIdParams = Type.Object({ invoice_id: Type.String({ description: 'Invoice ID', examples: [ex.INVOICE_ID] }) });
const INVOICE_DESCRIPTION = 'The invoice with its lines (and tier sub-lines), tax breakdown, coupons and payments';

/** The lifecycle, said by every operation that moves an invoice. */
const LIFECYCLE =
  'Lifecycle: DRAFT -> FINALIZED (finalize, or by itself once the grace period after the invoice date is over) -> VOID (nothing paid, no credit note) ' +
  'or UNCOLLECTIBLE (final); a DRAFT may also be voided (discarded, never numbered). payment_status: UNPAID -> PARTIALLY_PAID -> PAID.';

/** 200 with a PDF body, described for the OpenAPI document. */
export const PdfResponse = {
  description: 'The PDF file (`content-type: application/pdf`, `content-disposition: attachment; filename="INV-0002.pdf"`)',
  content: { 'application/pdf': { schema: Type.String({ format: 'binary', description: 'PDF 1.x bytes, starting with %PDF-' }) } },
};

/** 200 with an XML body (a structured e-invoice), described for the OpenAPI document. */
export const XmlResponse = {
  description: 'The XML file (`content-type: application/xml`, `content-disposition: attachment; filename="INV-0002-factur-x.xml"`)',
  content: { 'application/xml': { schema: Type.String({ contentMediaType: 'application/xml', description: 'A CII CrossIndustryInvoice or a UBL Invoice / CreditNote (EN 16931)' }) } },
};

/** Routes never import the repository: the row types come through the service. */
type InvoiceDetail = Awaited<ReturnType<InvoicesService['get']>>;

/** The hosted pay page of a payable invoice (payments builds it; passed in by the composition root). */
export type PaymentUrl = (tenantId: string, invoice: InvoiceDetail['invoice'], origin: string) => Promise<string | null>;

export function invoiceRoutes(
  service: InvoicesService,
  lifecycle: InvoiceLifecycle,
  upcoming: (tenantId: string, subscriptionId: string) => Promise<Awaited<ReturnType<InvoicesService['get']>> | null>,
  paymentUrl?: PaymentUrl,
) {
  /** The wire invoice with its hosted pay page's URL (null when nothing is payable). */
  const wire = async (request: FastifyRequest, tenantId: string, detail: InvoiceDetail) => ({
    ...invoiceToWire(detail),
    payment_url: paymentUrl && detail.invoice.id !== 'upcoming' ? await paymentUrl(tenantId, detail.invoice, `${request.protocol}://${request.host}`) : null,
  });
  return (app: App) => {
    const tags = ['Invoices'];
    app.get('/api/v1/invoices', {
      schema: {
        tags,
        operationId: 'list_invoices',
        summary: 'List invoices',
        description:
          'The tenant\'s invoices, each the same full object as `GET /api/v1/invoices/{invoice_id}`, newest invoice date first unless `order_by` says otherwise. ' +
          'Filters: `customer_id` (id or alias), `subscription_id`, `statuses` (repeat, or comma-separate; DRAFT, FINALIZED, UNCOLLECTIBLE, VOID; another value is a 400). ' +
          `${FILTER_HELP} Paged with \`page\` (0-based) and \`per_page\` (1-100, default 10). Amounts are decimal strings in the invoice currency.`,
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Filter by customer ID or alias' })),
          subscription_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.String(), { description: 'DRAFT, FINALIZED, UNCOLLECTIBLE or VOID; repeat for several' })),
          order_by: orderByQuery(['invoice_number', 'customer_name', 'amount', 'invoice_date', 'status', 'payment_status'], 'invoice_date.desc'),
          ...PageQuery,
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(Invoice), 'One page of invoices', ex.invoiceListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      const page = await service.list(tenantId, request.query);
      return { data: await Promise.all(page.data.map((detail) => wire(request, tenantId, detail))), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/invoices/:invoice_id', {
      schema: {
        tags,
        operationId: 'get_invoice_by_id',
        summary: 'Get an invoice',
        description:
          'One invoice: amounts before and after discount and tax (decimal strings), each line with its period (`end_date` inclusive) and sub-lines (tiers, matrix cells), ' +
          'the tax breakdown per rate, applied coupons, recorded payments and the customer as it was when invoiced. `invoice_number` is "draft" until finalization. ' +
          'Another tenant\'s invoice is a 404.',
        params: InvoiceIdParams,
        response: { 200: documented(Invoice, INVOICE_DESCRIPTION, ex.invoiceExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      return wire(request, tenantId, await service.get(tenantId, request.params.invoice_id));
    });

    app.patch('/api/v1/invoices/:invoice_id', {
      schema: {
        tags,
        operationId: 'update_invoice',
        summary: 'Update an invoice\'s custom properties',
        description:
          'Replaces the invoice\'s `custom_properties`, checked against the INVOICE custom properties (docs/custom-properties.md): a wrong value is a 400 naming ' +
          '`custom_properties.<key>`, a required one missing takes its default or is a 400. Allowed in every status, finalized included: no amount, number, date or status ' +
          'changes. The accounting PDF already stored keeps the values it was rendered with. Emits `invoice.updated`.',
        params: InvoiceIdParams,
        body: documented(Type.Object({ custom_properties: CustomPropertiesInput }, { additionalProperties: false }), 'The new values.', { custom_properties: { erp_export_id: 'SAP-2026-00042' } }),
        response: { 200: documented(Invoice, INVOICE_DESCRIPTION, { ...ex.invoiceExample, custom_properties: { erp_export_id: 'SAP-2026-00042' } }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => {
      const tenantId = authOf(request).tenantId;
      return wire(request, tenantId, await service.updateProperties(tenantId, request.params.invoice_id, request.body.custom_properties));
    });

    app.get('/api/v1/invoices/:invoice_id/download', {
      schema: {
        tags,
        operationId: 'download_invoice_pdf',
        summary: 'Download the invoice PDF',
        description:
          'The accounting PDF of a finalized invoice, as stored when it was finalized (rendered now if that job has not run yet); the same invoice always gives the same bytes. ' +
          'A draft gets a preview marked DRAFT that is not stored. Another tenant\'s invoice is a 404.',
        params: InvoiceIdParams,
        response: { 200: PdfResponse, ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await service.pdf(authOf(request).tenantId, request.params.invoice_id);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    app.get('/api/v1/invoices/:invoice_id/e-invoice', {
      schema: {
        tags,
        operationId: 'download_invoice_e_invoice',
        summary: 'Download the structured e-invoice (XML)',
        description:
          'The EN 16931 document of a finalized invoice whose invoicing entity opted in (`e_invoicing_format`): CII for FACTURX and XRECHNUNG_CII, UBL for XRECHNUNG_UBL and PEPPOL_BIS. ' +
          'Generated with the accounting PDF (now if that job has not run yet) and stored: the same invoice always gives the same bytes; its outcome is the invoice\'s `e_invoicing`. ' +
          'For FACTURX and XRECHNUNG_CII a VALID document is also embedded in the PDF of `/download` (PDF/A-3). A draft, or an invoice without an e-invoice, is a 404. See docs/einvoicing.md.',
        params: InvoiceIdParams,
        response: { 200: XmlResponse, ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await service.eInvoice(authOf(request).tenantId, request.params.invoice_id);
      return reply.type('application/xml').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    interface Action {
      path: string;
      operationId: string;
      summary: string;
      description: string;
      /** The invoice as the action leaves it. */
      example: typeof ex.invoiceExample;
      statuses: number[];
      run: (tenantId: string, invoiceId: string, body: never) => Promise<unknown>;
      body?: ReturnType<typeof Type.Object>;
    }
    const action = ({ path, operationId, summary, description, example, statuses, run, body }: Action) => {
      app.post(`/api/v1/invoices/:invoice_id/${path}`, {
        schema: {
          tags,
          operationId,
          summary,
          description: `${description} ${LIFECYCLE}`,
          params: InvoiceIdParams,
          ...(body ? { body } : {}),
          response: { 200: documented(Invoice, 'The invoice after the change', example), ...errorResponses(statuses) },
        },
      }, async (request) => {
        const tenantId = authOf(request).tenantId;
        await run(tenantId, request.params.invoice_id, (request.body ?? {}) as never);
        return wire(request, tenantId, await service.get(tenantId, request.params.invoice_id));
      });
    };
    action({
      path: 'finalize',
      operationId: 'finalize_invoice',
      summary: 'Finalize a draft now (number, due date, balance applied)',
      description:
        'Finalizes a DRAFT without waiting for its grace period, in one transaction: the draft is refreshed one last time with late usage, takes the next gapless number ' +
        'of its invoicing entity (`INV-0001`...), `due_date` = invoice date + net terms, and the customer\'s credit balance in the same currency is applied (`applied_credits`). ' +
        'Nothing left to pay makes it PAID at once. Events `invoice.finalized` (and `invoice.paid`); the PDF is rendered in the background and sent to the customer by e-mail (see `GET /api/v1/emails`). ' +
        'Finalizing a FINALIZED invoice answers it unchanged; a VOID or UNCOLLECTIBLE one is a 409.',
      example: ex.invoiceExample,
      statuses: [401, 404, 409],
      run: (t, id) => lifecycle.finalize(t, id),
    });
    action({
      path: 'void',
      operationId: 'void_invoice',
      summary: 'Void a draft, or a finalized invoice with nothing paid',
      description:
        'A DRAFT is discarded; a FINALIZED invoice is cancelled when nothing was paid and no credit note (other than voided ones) is open against it, otherwise a 409 ' +
        '(issue a credit note instead). Credit balance the invoice consumed goes back to the customer; the unpaid total is never credited. `amount_due` becomes 0.00. ' +
        'Event `invoice.voided`. Voiding a VOID invoice answers it unchanged; an UNCOLLECTIBLE one is a 409.',
      example: ex.voidedInvoiceExample,
      statuses: [401, 404, 409],
      run: (t, id) => lifecycle.voidInvoice(t, id),
    });
    action({
      path: 'mark-uncollectible',
      operationId: 'mark_invoice_uncollectible',
      summary: 'Mark a finalized, unpaid invoice uncollectible (final)',
      description:
        'Writes off a FINALIZED invoice that is not fully paid; UNCOLLECTIBLE is final (it cannot be voided or paid afterwards). A DRAFT or VOID invoice, or a PAID one, is a 409; ' +
        'an UNCOLLECTIBLE one is answered unchanged.',
      example: ex.uncollectibleInvoiceExample,
      statuses: [401, 404, 409],
      run: (t, id) => lifecycle.markUncollectible(t, id),
    });
    action({
      path: 'mark-paid',
      operationId: 'mark_invoice_paid',
      summary: 'Record a payment received outside the service',
      description:
        'Records money received by bank transfer, cheque...: a SETTLED payment transaction of `amount` (default: everything still due) at `paid_at` (default now), ' +
        'with your `reference`. Part of the amount leaves the invoice PARTIALLY_PAID; the rest makes it PAID (`paid_at`, event `invoice.paid`, a receipt e-mail). ' +
        'An amount that is not a positive decimal string with the currency\'s digits, or more than what is still due, and a `paid_at` that is not RFC 3339, are a 400; ' +
        'an invoice that is not FINALIZED, or already PAID, is a 409.',
      example: ex.paidInvoiceExample,
      statuses: [400, 401, 404, 409],
      run: (t, id, body) => lifecycle.markPaid(t, id, body),
      body: documented(Type.Object({
        amount: Type.Optional(Type.String({ description: 'Decimal string; defaults to the amount still due' })),
        paid_at: Type.Optional(Type.String({ format: 'date-time' })),
        reference: Type.Optional(Type.String({ maxLength: 200, description: 'Your reference of the payment, shown on the transaction' })),
      }, { additionalProperties: false }), 'The payment received; every field is optional', ex.markPaidExample),
    });

    app.get('/api/v1/subscriptions/:subscription_id/upcoming-invoice', {
      schema: {
        tags,
        operationId: 'preview_upcoming_invoice',
        summary: 'The next invoice of a subscription, computed now and not stored (id "upcoming")',
        description:
          'Computes the subscription\'s next invoice exactly as the billing run would (the oldest invoice due and not created yet, else the next one), with the usage ' +
          'recorded so far, and stores nothing: `id` is "upcoming", status DRAFT, no number or due date. An unknown subscription, or one with nothing left to invoice ' +
          '(stopped, or pending with nothing due), is a 404.',
        params: Type.Object({ subscription_id: Type.String({ description: 'Subscription ID', examples: ['sub_01KKRNW4G0P3977S414S2FKJMX'] }) }),
        response: { 200: documented(Invoice, 'The invoice as it would be issued', ex.upcomingInvoiceExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const detail = await upcoming(authOf(request).tenantId, request.params.subscription_id);
      if (!detail) throw notFound('upcoming invoice');
      return invoiceToWire(detail);
    });
  };
}
