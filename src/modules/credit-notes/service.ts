import type { Clock } from '../../kernel/clock.js';
import type { EventType } from '../../kernel/event-types.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseAmountMinor, Dec } from '../../kernel/money.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { computeCreditNote, type CreditableLine, type CreditRequest, type TaxTreatment } from '../../domain/index.js';
import { adjustAmountDue, creditBalance, creditNoteEInvoice, eInvoiceXml, findEInvoices, findEntity, findInvoice, isInvoicesFailure, loadDetail, storeEInvoice, takeDocumentNumbers, type InvoiceRow } from '../invoices/index.js';
import { formatMinor } from '../../kernel/money.js';
import { creditNoteEventData } from './events.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { creditNotePdf } from './documents.js';
import * as repo from './repository.js';
import { CREDIT_NOTE_STATUSES, type CreditNoteDetail, type CreditNoteRow, type CreditNoteStatus, type CreditType } from './repository.js';

export interface CreateCreditNoteInput {
  invoice_id: string;
  reason: string;
  credit_type: CreditType;
  memo?: string | null;
  /** Absent: everything still uncredited on the invoice. Amounts are net (before tax) decimal strings. */
  lines?: { invoice_line_id: string; amount: string }[];
  custom_properties?: Record<string, unknown> | null;
}

export interface ListCreditNotesQuery {
  invoice_id?: string;
  customer_id?: string;
  statuses?: string[];
  order_by?: string;
  page?: number;
  per_page?: number;
  /** `custom_properties[<key>]` filters come in the same object */
  [name: string]: unknown;
}

async function emit(tx: Queryable, tenantId: string, clock: Clock, type: EventType, note: CreditNoteRow): Promise<void> {
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type, objectId: note.id, data: creditNoteEventData(note) });
}

export function createCreditNotesService(deps: { pool: Pool; clock: Clock; properties: CustomPropertiesPort }) {
  const { pool, clock } = deps;

  async function detail(db: Queryable, tenantId: string, note: CreditNoteRow): Promise<CreditNoteDetail> {
    const eInvoice = (await findEInvoices(db, tenantId, [note.id])).get(note.id) ?? null;
    return { note, lines: await repo.loadLines(db, tenantId, [note.id]), eInvoice };
  }

  /**
   * The structured credit note (type 381, naming the invoice) when the entity opted in, in the
   * finalization's transaction (docs/einvoicing.md). Its outcome is stored; INVALID never stops
   * the finalization.
   */
  async function generateEInvoice(tx: Queryable, tenantId: string, note: CreditNoteRow, invoice: InvoiceRow): Promise<void> {
    const format = (await findEntity(tx, tenantId, note.invoicing_entity_id))?.e_invoicing_format;
    if (!format || !note.credit_note_number || !note.finalized_at) return;
    const money = (minor: bigint) => `${formatMinor(minor, note.currency)} ${note.currency}`;
    const settlement = [
      note.debt_cancelled_minor > 0n ? `${money(note.debt_cancelled_minor)} deducted from invoice ${invoice.invoice_number ?? invoice.id}` : null,
      note.credited_minor > 0n ? `${money(note.credited_minor)} credited to the customer balance` : null,
      note.refunded_minor > 0n ? `${money(note.refunded_minor)} refunded` : null,
    ].filter(Boolean).join('; ') || 'Nothing to pay';
    const lines = await repo.loadLines(tx, tenantId, [note.id]);
    const document = creditNoteEInvoice({
      number: note.credit_note_number, issueDate: note.finalized_at.toISOString().slice(0, 10), currency: note.currency, reason: note.reason, memo: note.memo,
      subtotalMinor: note.subtotal_minor, taxMinor: note.tax_minor, totalMinor: note.total_minor, settlement,
      lines: lines.map((line) => ({ position: line.position, name: line.name, taxableMinor: line.taxable_minor, taxMinor: line.tax_minor, taxRate: line.tax_rate, taxTreatment: line.tax_treatment })),
    }, invoice);
    await storeEInvoice(tx, tenantId, clock, { objectId: note.id, kind: 'CREDIT_NOTE', format, document });
  }

  async function create(tenantId: string, input: CreateCreditNoteInput): Promise<CreditNoteDetail> {
    if (!input.reason.trim()) throw badRequest('reason must not be empty');
    return withTx(pool, async (tx) => {
      // The invoice lock serialises credit notes of one invoice, so two cannot both take the same remainder.
      const invoice = await findInvoice(tx, tenantId, input.invoice_id, true);
      if (!invoice) throw badRequest(`invoice_id '${input.invoice_id}' is not an invoice of this tenant`);
      if (invoice.status !== 'FINALIZED') throw conflict(`invoice is ${invoice.status}; credit notes are issued against FINALIZED invoices`);
      const { lines } = await loadDetail(tx, tenantId, invoice);
      const credited = await repo.creditedByLine(tx, tenantId, invoice.id);
      const creditable: CreditableLine[] = lines.map((line) => ({
        lineId: line.id,
        name: line.name,
        taxableMinor: line.taxable_minor,
        taxMinor: line.tax_minor,
        tax: { treatment: line.tax_treatment as TaxTreatment, rate: new Dec(line.tax_rate), country: line.tax_country },
        creditedTaxableMinor: credited.get(line.id)?.taxableMinor ?? 0n,
        creditedTaxMinor: credited.get(line.id)?.taxMinor ?? 0n,
      }));
      const request: CreditRequest = input.lines === undefined
        ? { scope: 'INVOICE' }
        : {
            scope: 'LINES',
            lines: input.lines.map((line, index) => {
              if (!lines.some((l) => l.id === line.invoice_line_id)) {
                throw badRequest(`lines[${index}].invoice_line_id '${line.invoice_line_id}' is not a line of invoice ${invoice.id}`);
              }
              try {
                return { lineId: line.invoice_line_id, amountMinor: parseAmountMinor(line.amount, invoice.currency) };
              } catch {
                throw badRequest(`lines[${index}].amount must be a decimal string with at most the ${invoice.currency} minor-unit digits`);
              }
            }),
          };
      if (request.scope === 'LINES' && request.lines.length === 0) throw badRequest('lines must not be empty; omit it to credit the whole invoice');
      const draft = computeCreditNote(creditable, request, invoice.currency);
      if (draft.lines.length === 0) throw conflict('invoice has nothing left to credit');
      const now = clock.now();
      const note: CreditNoteRow = {
        id: newId('creditNote', now.getTime()),
        invoice_id: invoice.id,
        invoicing_entity_id: invoice.invoicing_entity_id,
        customer_id: invoice.customer_id,
        credit_note_number: null,
        status: 'DRAFT',
        credit_type: input.credit_type,
        reason: input.reason.trim(),
        memo: input.memo ?? null,
        currency: invoice.currency,
        subtotal_minor: draft.subtotalMinor,
        tax_minor: draft.taxMinor,
        total_minor: draft.totalMinor,
        debt_cancelled_minor: 0n,
        credited_minor: 0n,
        refunded_minor: 0n,
        refund_status: null,
        pdf_document_id: null,
        created_at: now,
        updated_at: now,
        finalized_at: null,
        voided_at: null,
        custom_properties: await deps.properties.resolve(tx, tenantId, 'CREDIT_NOTE', input.custom_properties ?? {}, { creating: true }),
      };
      const noteLines = draft.lines.map((line, index) => ({
        id: `${note.id}_${index + 1}`,
        credit_note_id: note.id,
        invoice_line_id: line.lineId,
        position: index + 1,
        name: line.name,
        taxable_minor: line.taxableMinor,
        tax_minor: line.taxMinor,
        total_minor: line.totalMinor,
        tax_rate: line.tax.rate.toString(),
        tax_treatment: line.tax.treatment,
        tax_country: line.tax.country,
      }));
      await repo.insertCreditNote(tx, tenantId, note, noteLines);
      await emit(tx, tenantId, clock, 'credit_note.created', note);
      return { note, lines: noteLines };
    });
  }

  /** Replaces the custom property values, in any status (they are not amounts); nothing else moves. No event (credit notes have no update event). */
  async function updateProperties(tenantId: string, id: string, values: Record<string, unknown>): Promise<CreditNoteDetail> {
    return withTx(pool, async (tx) => {
      const note = await repo.findCreditNote(tx, tenantId, id, true);
      if (!note) throw notFound('credit note');
      const next = { ...note, custom_properties: await deps.properties.resolve(tx, tenantId, 'CREDIT_NOTE', values, { creating: false }), updated_at: clock.now() };
      await repo.updateCreditNoteProperties(tx, tenantId, note.id, next.custom_properties, next.updated_at);
      // as invoice.updated: the one change a finalized note takes, which webhook consumers follow
      await emit(tx, tenantId, clock, 'credit_note.updated', next);
      return detail(tx, tenantId, next);
    });
  }

  async function get(tenantId: string, id: string): Promise<CreditNoteDetail> {
    const note = await repo.findCreditNote(pool, tenantId, id);
    if (!note) throw notFound('credit note');
    return detail(pool, tenantId, note);
  }

  async function list(tenantId: string, query: ListCreditNotesQuery): Promise<Page<CreditNoteDetail>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['created_at'] as const, { column: 'created_at', direction: 'desc' });
    const statuses = (query.statuses ?? []).flatMap((s) => s.split(',')).filter(Boolean);
    for (const [index, status] of statuses.entries()) {
      if (!CREDIT_NOTE_STATUSES.includes(status as CreditNoteStatus)) throw badRequest(`statuses[${index}] must be one of ${CREDIT_NOTE_STATUSES.join(', ')}; got '${status}'`);
    }
    const properties = await deps.properties.filter(pool, tenantId, 'CREDIT_NOTE', query);
    const { rows, total } = await repo.listCreditNotes(
      pool, tenantId, { invoiceId: query.invoice_id, customerId: query.customer_id, statuses: statuses as CreditNoteStatus[], properties }, order.direction, page,
    );
    const lines = await repo.loadLines(pool, tenantId, rows.map((row) => row.id));
    const eInvoices = await findEInvoices(pool, tenantId, rows.map((row) => row.id));
    return {
      data: rows.map((note) => ({ note, lines: lines.filter((line) => line.credit_note_id === note.id), eInvoice: eInvoices.get(note.id) ?? null })),
      pagination_meta: paginationMeta(page, total),
    };
  }

  /**
   * DRAFT -> FINALIZED: takes the entity's next credit-note number (row lock, gapless), then
   * settles the total: what the invoice still owes is cancelled first (an unpaid invoice is
   * never "refunded"), the rest goes to the customer balance or is recorded as refunded. A refund
   * cannot exceed what the customer actually paid on the invoice.
   */
  async function finalize(tenantId: string, id: string): Promise<CreditNoteDetail> {
    return withTx(pool, async (tx) => {
      const note = await repo.findCreditNote(tx, tenantId, id, true);
      if (!note) throw notFound('credit note');
      if (note.status === 'FINALIZED') return detail(tx, tenantId, note);
      if (note.status !== 'DRAFT') throw conflict(`credit note is ${note.status}; only a DRAFT can be finalized`);
      const invoice = (await findInvoice(tx, tenantId, note.invoice_id, true))!;
      const outstandingMinor = invoice.amount_due_minor - invoice.amount_paid_minor;
      const positiveTotal = note.total_minor > 0n ? note.total_minor : 0n;
      const cancelMinor = positiveTotal < outstandingMinor ? positiveTotal : outstandingMinor > 0n ? outstandingMinor : 0n;
      const restMinor = positiveTotal - cancelMinor;
      if (note.credit_type === 'REFUND' && restMinor > invoice.amount_paid_minor) {
        throw conflict(`a refund of ${restMinor} minor units exceeds what was paid on the invoice; credit the balance instead`);
      }
      const [number] = await takeDocumentNumbers(tx, tenantId, note.invoicing_entity_id, 'credit_note');
      const now = clock.now();
      const next: CreditNoteRow = {
        ...note,
        status: 'FINALIZED',
        credit_note_number: number!,
        debt_cancelled_minor: cancelMinor,
        credited_minor: note.credit_type === 'CREDIT_TO_BALANCE' ? restMinor : 0n,
        refunded_minor: note.credit_type === 'REFUND' ? restMinor : 0n,
        // the payments module refunds through the provider and moves it on (REFUNDED, FAILED or MANUAL)
        refund_status: note.credit_type === 'REFUND' && restMinor > 0n ? 'PENDING' : null,
        finalized_at: now,
        updated_at: now,
      };
      if (next.credited_minor > 0n) await creditBalance(tx, tenantId, clock, note.customer_id, next.credited_minor, 'CREDIT_NOTE', invoice.id, next.credit_note_number ?? undefined);
      if (cancelMinor > 0n) await adjustAmountDue(tx, tenantId, clock, invoice, -cancelMinor);
      await repo.updateCreditNote(tx, tenantId, next);
      await generateEInvoice(tx, tenantId, next, invoice);
      await emit(tx, tenantId, clock, 'credit_note.finalized', next);
      return detail(tx, tenantId, next);
    });
  }

  /** A draft is dropped; a finalized note is reversed (balance taken back, invoice debt restored). Refunds already paid out stay final. */
  async function voidNote(tenantId: string, id: string): Promise<CreditNoteDetail> {
    return withTx(pool, async (tx) => {
      const note = await repo.findCreditNote(tx, tenantId, id, true);
      if (!note) throw notFound('credit note');
      if (note.status === 'VOIDED') return detail(tx, tenantId, note);
      if (note.status === 'FINALIZED') {
        if (note.refunded_minor > 0n) throw conflict('credit note refunded money to the customer; it cannot be voided');
        if (note.credited_minor > 0n) {
          try {
            await creditBalance(tx, tenantId, clock, note.customer_id, -note.credited_minor, 'CREDIT_NOTE_VOIDED', note.invoice_id, note.credit_note_number ?? undefined);
          } catch (error) {
            if (!isInvoicesFailure(error, 'NEGATIVE_BALANCE')) throw error;
            throw conflict('the customer already spent the credit of this note; it cannot be voided');
          }
        }
        if (note.debt_cancelled_minor > 0n) {
          const invoice = (await findInvoice(tx, tenantId, note.invoice_id, true))!;
          await adjustAmountDue(tx, tenantId, clock, invoice, note.debt_cancelled_minor);
        }
      }
      const now = clock.now();
      const next: CreditNoteRow = { ...note, status: 'VOIDED', voided_at: now, updated_at: now };
      await repo.updateCreditNote(tx, tenantId, next);
      await emit(tx, tenantId, clock, 'credit_note.voided', next);
      return detail(tx, tenantId, next);
    });
  }

  /** The note's PDF: stored at first download once finalized, a preview while it is a draft. */
  async function pdf(tenantId: string, id: string): Promise<{ detail: CreditNoteDetail; content: Buffer }> {
    const found = await get(tenantId, id);
    const content = await withTx(pool, (tx) => creditNotePdf(tx, tenantId, clock, found));
    return { detail: found, content };
  }

  /** The structured credit note (XML); a 404 when there is none (a draft, or an entity that had not opted in). */
  async function eInvoice(tenantId: string, id: string): Promise<{ content: Buffer; filename: string }> {
    const found = await get(tenantId, id);
    const xml = await eInvoiceXml(pool, tenantId, found.note.id, found.note.credit_note_number ?? found.note.id);
    if (!xml) throw notFound('e-invoice (a draft, or the invoicing entity had not opted in, see e_invoicing_format, when this credit note was finalized)');
    return xml;
  }

  return { create, get, list, finalize, voidNote, detail, pdf, updateProperties, eInvoice };
}

export type CreditNotesService = ReturnType<typeof createCreditNotesService>;
