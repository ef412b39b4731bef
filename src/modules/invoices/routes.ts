import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import type { InvoicingEntitiesService } from './entities.js';
import type { InvoiceLifecycle } from './lifecycle.js';
import type { InvoicesService } from './service.js';
import { notFound } from '../../kernel/errors.js';
import { entityToWire, Invoice, invoiceToWire, InvoicingEntity, UpdateInvoicingEntityRequest } from './schemas.js';

const InvoiceIdParams = Type.Object({ invoice_id: Type.String({ description: 'Invoice ID' }) });

/** 200 with a PDF body, described for the OpenAPI document. */
export const PdfResponse = {
  description: 'PDF document',
  content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
};

export function invoiceRoutes(
  service: InvoicesService,
  lifecycle: InvoiceLifecycle,
  entities: InvoicingEntitiesService,
  upcoming: (tenantId: string, subscriptionId: string) => Promise<Awaited<ReturnType<InvoicesService['get']>> | null>,
) {
  return (app: App) => {
    const tags = ['Invoices'];
    app.get('/api/v1/invoices', {
      schema: {
        tags,
        operationId: 'list_invoices',
        querystring: Type.Object({
          customer_id: Type.Optional(Type.String({ description: 'Filter by customer ID or alias' })),
          subscription_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.String(), { description: 'DRAFT, FINALIZED, UNCOLLECTIBLE or VOID; repeat for several' })),
          order_by: orderByQuery(['invoice_number', 'customer_name', 'amount', 'invoice_date', 'status', 'payment_status'], 'invoice_date.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(Invoice), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(invoiceToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/invoices/:invoice_id', {
      schema: { tags, operationId: 'get_invoice_by_id', params: InvoiceIdParams, response: { 200: Invoice, ...errorResponses([401, 404]) } },
    }, async (request) => invoiceToWire(await service.get(authOf(request).tenantId, request.params.invoice_id)));

    app.get('/api/v1/invoices/:invoice_id/download', {
      schema: { tags, operationId: 'download_invoice_pdf', params: InvoiceIdParams, response: { 200: PdfResponse, ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      const { content, filename } = await service.pdf(authOf(request).tenantId, request.params.invoice_id);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    const action = (path: string, operationId: string, summary: string, run: (tenantId: string, invoiceId: string, body: never) => Promise<unknown>, body?: ReturnType<typeof Type.Object>) => {
      app.post(`/api/v1/invoices/:invoice_id/${path}`, {
        schema: {
          tags,
          operationId,
          summary,
          params: InvoiceIdParams,
          ...(body ? { body } : {}),
          response: { 200: Invoice, ...errorResponses([400, 401, 404, 409]) },
        },
      }, async (request) => {
        const tenantId = authOf(request).tenantId;
        await run(tenantId, request.params.invoice_id, (request.body ?? {}) as never);
        return invoiceToWire(await service.get(tenantId, request.params.invoice_id));
      });
    };
    action('finalize', 'finalize_invoice', 'Finalize a draft now (number, due date, balance applied)', (t, id) => lifecycle.finalize(t, id));
    action('void', 'void_invoice', 'Void a draft, or a finalized invoice with nothing paid', (t, id) => lifecycle.voidInvoice(t, id));
    action('mark-uncollectible', 'mark_invoice_uncollectible', 'Mark a finalized, unpaid invoice uncollectible (final)', (t, id) => lifecycle.markUncollectible(t, id));
    action('mark-paid', 'mark_invoice_paid', 'Record a payment received outside the service', (t, id, body) => lifecycle.markPaid(t, id, body),
      Type.Object({
        amount: Type.Optional(Type.String({ description: 'Decimal string; defaults to the amount still due' })),
        paid_at: Type.Optional(Type.String({ format: 'date-time' })),
        reference: Type.Optional(Type.String({ maxLength: 200, description: 'Your reference of the payment, shown on the transaction' })),
      }, { additionalProperties: false }));

    app.get('/api/v1/subscriptions/:subscription_id/upcoming-invoice', {
      schema: {
        tags,
        operationId: 'preview_upcoming_invoice',
        summary: 'The next invoice of a subscription, computed now and not stored (id "upcoming")',
        params: Type.Object({ subscription_id: Type.String() }),
        response: { 200: Invoice, ...errorResponses([401, 404]) },
      },
    }, async (request) => {
      const detail = await upcoming(authOf(request).tenantId, request.params.subscription_id);
      if (!detail) throw notFound('upcoming invoice');
      return invoiceToWire(detail);
    });

    const entityTags = ['Invoicing entities'];
    const EntityParams = Type.Object({ invoicing_entity_id: Type.String() });
    app.get('/api/v1/invoicing-entities', {
      schema: { tags: entityTags, operationId: 'list_invoicing_entities', response: { 200: Type.Object({ data: Type.Array(InvoicingEntity) }), ...errorResponses([401]) } },
    }, async (request) => ({ data: (await entities.list(authOf(request).tenantId)).map(entityToWire) }));

    app.get('/api/v1/invoicing-entities/:invoicing_entity_id', {
      schema: { tags: entityTags, operationId: 'get_invoicing_entity', params: EntityParams, response: { 200: InvoicingEntity, ...errorResponses([401, 404]) } },
    }, async (request) => entityToWire(await entities.get(authOf(request).tenantId, request.params.invoicing_entity_id)));

    app.patch('/api/v1/invoicing-entities/:invoicing_entity_id', {
      schema: {
        tags: entityTags,
        operationId: 'update_invoicing_entity',
        params: EntityParams,
        body: UpdateInvoicingEntityRequest,
        response: { 200: InvoicingEntity, ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => entityToWire(await entities.update(authOf(request).tenantId, request.params.invoicing_entity_id, request.body)));
  };
}
