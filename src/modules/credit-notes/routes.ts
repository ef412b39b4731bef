import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { PdfResponse } from '../invoices/index.js';
import type { CreditNotesService } from './service.js';
import { CreateCreditNoteRequest, CreditNote, creditNoteToWire } from './schemas.js';

const Params = Type.Object({ credit_note_id: Type.String({ description: 'Credit Note ID' }) });

export function creditNoteRoutes(service: CreditNotesService) {
  return (app: App) => {
    const tags = ['Credit Notes'];
    app.post('/api/v1/credit-notes', {
      schema: { tags, operationId: 'create_credit_note', body: CreateCreditNoteRequest, response: { 201: CreditNote, ...errorResponses([400, 401, 404, 409]) } },
    }, async (request, reply) => reply.status(201).send(creditNoteToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/credit-notes', {
      schema: {
        tags,
        operationId: 'list_credit_notes',
        querystring: Type.Object({
          invoice_id: Type.Optional(Type.String()),
          customer_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.String(), { description: 'DRAFT, FINALIZED or VOIDED; repeat for several' })),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }),
        response: { 200: listResponse(CreditNote), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(creditNoteToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/credit-notes/:credit_note_id', {
      schema: { tags, operationId: 'get_credit_note', params: Params, response: { 200: CreditNote, ...errorResponses([401, 404]) } },
    }, async (request) => creditNoteToWire(await service.get(authOf(request).tenantId, request.params.credit_note_id)));

    app.post('/api/v1/credit-notes/:credit_note_id/finalize', {
      schema: { tags, operationId: 'finalize_credit_note', params: Params, response: { 200: CreditNote, ...errorResponses([401, 404, 409]) } },
    }, async (request) => creditNoteToWire(await service.finalize(authOf(request).tenantId, request.params.credit_note_id)));

    app.post('/api/v1/credit-notes/:credit_note_id/void', {
      schema: { tags, operationId: 'void_credit_note', params: Params, response: { 200: CreditNote, ...errorResponses([401, 404, 409]) } },
    }, async (request) => creditNoteToWire(await service.voidNote(authOf(request).tenantId, request.params.credit_note_id)));

    app.get('/api/v1/credit-notes/:credit_note_id/download', {
      schema: { tags, operationId: 'download_credit_note_pdf', params: Params, response: { 200: PdfResponse, ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      const tenantId = authOf(request).tenantId;
      const { detail, content } = await service.pdf(tenantId, request.params.credit_note_id);
      const filename = `${detail.note.credit_note_number ?? `credit-note-draft-${detail.note.id}`}.pdf`;
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });
  };
}
