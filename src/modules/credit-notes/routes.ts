import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, orderByQuery, PageQuery } from '../../http/schemas.js';
import { PdfResponse, XmlResponse } from '../invoices/index.js';
import type { CreditNotesService } from './service.js';
import { CreateCreditNoteRequest, CreditNote, creditNoteToWire } from './schemas.js';
import * as ex from './examples.js';
import { CustomPropertiesInput, customPropertyFilterQuery, FILTER_HELP } from '../custom-properties/index.js';

const Params = Type.Object({ credit_note_id: Type.String({ description: 'Credit Note ID', examples: [ex.CREDIT_NOTE_ID] }) });

/** The lifecycle, said by the operations that move a credit note. */
const LIFECYCLE = 'Lifecycle: DRAFT -> FINALIZED -> VOIDED, or DRAFT -> VOIDED (dropped).';

export function creditNoteRoutes(service: CreditNotesService) {
  return (app: App) => {
    const tags = ['Credit Notes'];
    app.post('/api/v1/credit-notes', {
      schema: {
        tags,
        operationId: 'create_credit_note',
        summary: 'Create a credit note',
        description:
          'Creates a DRAFT credit note against a FINALIZED invoice. Without `lines` it credits everything still uncredited on the invoice. Each line `amount` is the net amount ' +
          '(before tax) to credit on that invoice line; its tax follows in proportion, and crediting the rest of a line takes exactly the rest of its tax. Drafts reserve their amounts. ' +
          'Refused with a 400: an empty `reason`, an unknown invoice, a line of another invoice, an amount that is not a decimal string with the currency\'s digits or not above zero, a line listed twice, an empty `lines`. ' +
          'Refused with a 409: an invoice that is not FINALIZED, a line credited beyond what remains of it, an invoice with nothing left to credit. Event `credit_note.created`. ' +
          LIFECYCLE,
        body: documented(CreateCreditNoteRequest, 'The invoice, why, how the credit is settled, and optionally which lines and how much', ex.createCreditNoteExample),
        response: { 201: documented(CreditNote, 'The draft credit note', ex.draftCreditNoteExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(creditNoteToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/credit-notes', {
      schema: {
        tags,
        operationId: 'list_credit_notes',
        summary: 'List credit notes',
        description:
          'The tenant\'s credit notes, newest first (`order_by=created_at.asc` for oldest first). Filters: `invoice_id`, `customer_id`, `statuses` (repeat or comma-separate; ' +
          `DRAFT, FINALIZED, VOIDED; another value is a 400). ${FILTER_HELP} Paged with \`page\` (0-based) and \`per_page\` (1-100, default 10).`,
        querystring: Type.Object({
          invoice_id: Type.Optional(Type.String()),
          customer_id: Type.Optional(Type.String()),
          statuses: Type.Optional(Type.Array(Type.String(), { description: 'DRAFT, FINALIZED or VOIDED; repeat for several' })),
          order_by: orderByQuery(['created_at'], 'created_at.desc'),
          ...PageQuery,
        }, customPropertyFilterQuery),
        response: { 200: documented(listResponse(CreditNote), 'One page of credit notes', ex.creditNoteListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(creditNoteToWire), pagination_meta: page.pagination_meta };
    });

    app.patch('/api/v1/credit-notes/:credit_note_id', {
      schema: {
        tags,
        operationId: 'update_credit_note',
        summary: 'Update a credit note\'s custom properties',
        description:
          'Replaces the credit note\'s `custom_properties`, checked against the CREDIT_NOTE custom properties (docs/custom-properties.md): a wrong value is a 400 naming ' +
          '`custom_properties.<key>`. Allowed in every status: no amount, number or status changes. Emits `credit_note.updated` (ours) with the note\'s event data.',
        params: Params,
        body: documented(Type.Object({ custom_properties: CustomPropertiesInput }, { additionalProperties: false }), 'The new values.', { custom_properties: { ticket: 'SUP-1042' } }),
        response: { 200: documented(CreditNote, 'The credit note', { ...ex.draftCreditNoteExample, custom_properties: { ticket: 'SUP-1042' } }), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => creditNoteToWire(await service.updateProperties(authOf(request).tenantId, request.params.credit_note_id, request.body.custom_properties)));

    app.get('/api/v1/credit-notes/:credit_note_id', {
      schema: {
        tags,
        operationId: 'get_credit_note',
        summary: 'Get a credit note',
        description: 'One credit note with its lines (each naming the invoice line it credits), its tax breakdown and how its total was settled. Another tenant\'s note is a 404.',
        params: Params,
        response: { 200: documented(CreditNote, 'The credit note', ex.finalizedCreditNoteExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => creditNoteToWire(await service.get(authOf(request).tenantId, request.params.credit_note_id)));

    app.post('/api/v1/credit-notes/:credit_note_id/finalize', {
      schema: {
        tags,
        operationId: 'finalize_credit_note',
        summary: 'Finalize a credit note',
        description:
          'Numbers the DRAFT with its invoicing entity\'s next gapless credit-note number (`CN-0001`...) and settles the total: what the invoice still owes is cancelled first ' +
          '(`debt_cancelled_amount`; the invoice may become PAID), the rest goes to the customer\'s credit balance (`credited_amount`, CREDIT_TO_BALANCE) or is recorded as refunded ' +
          '(`refunded_amount`, REFUND; paying it out is up to you). A refund above what was paid on the invoice is a 409 (credit the balance instead); a VOIDED note is a 409; ' +
          'a FINALIZED note is answered unchanged. Event `credit_note.finalized`, and an e-mail to the customer. ' + LIFECYCLE,
        params: Params,
        response: { 200: documented(CreditNote, 'The finalized credit note', ex.finalizedCreditNoteExample), ...errorResponses([401, 404, 409]) },
      },
    }, async (request) => creditNoteToWire(await service.finalize(authOf(request).tenantId, request.params.credit_note_id)));

    app.post('/api/v1/credit-notes/:credit_note_id/void', {
      schema: {
        tags,
        operationId: 'void_credit_note',
        summary: 'Void a credit note',
        description:
          'Drops a DRAFT, or reverses a FINALIZED note: the credit it added to the customer balance is taken back and the invoice debt it cancelled is owed again. ' +
          'A note that refunded money, or whose credit the customer already spent, cannot be voided (409). A VOIDED note is answered unchanged. Event `credit_note.voided`. ' +
          LIFECYCLE,
        params: Params,
        response: { 200: documented(CreditNote, 'The voided credit note', ex.voidedCreditNoteExample), ...errorResponses([401, 404, 409]) },
      },
    }, async (request) => creditNoteToWire(await service.voidNote(authOf(request).tenantId, request.params.credit_note_id)));

    app.get('/api/v1/credit-notes/:credit_note_id/download', {
      schema: {
        tags,
        operationId: 'download_credit_note_pdf',
        summary: 'Download the credit note PDF',
        description:
          'The credit note as a PDF: stored at the first download once finalized (later downloads give the same bytes), a preview while it is a draft. ' +
          'Another tenant\'s note is a 404.',
        params: Params,
        response: { 200: PdfResponse, ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      const tenantId = authOf(request).tenantId;
      const { detail, content } = await service.pdf(tenantId, request.params.credit_note_id);
      const filename = `${detail.note.credit_note_number ?? `credit-note-draft-${detail.note.id}`}.pdf`;
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });

    app.get('/api/v1/credit-notes/:credit_note_id/e-invoice', {
      schema: {
        tags,
        operationId: 'download_credit_note_e_invoice',
        summary: 'Download the structured credit note (XML)',
        description:
          'The EN 16931 credit note (type 381, naming the invoice it corrects) generated at finalization when the invoicing entity opted in (`e_invoicing_format`); its outcome is ' +
          'the note\'s `e_invoicing`. For FACTURX and XRECHNUNG_CII a VALID document is also embedded in the PDF of `/download`. A draft, or a note without one, is a 404. See docs/einvoicing.md.',
        params: Params,
        response: { 200: XmlResponse, ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      const { content, filename } = await service.eInvoice(authOf(request).tenantId, request.params.credit_note_id);
      return reply.type('application/xml').header('content-disposition', `attachment; filename="${filename}"`).send(content as unknown as string);
    });
  };
}
