// Examples of the OpenAPI document: an SLA credit of 10.00 + VAT on April's Platform line of
// invoice INV-0002 (see the invoices examples), still unpaid when the note was finalized.
import type { Static } from 'typebox';
import type { CreateCreditNoteRequest, CreditNote } from './schemas.js';

type Note = Static<typeof CreditNote>;

export const CREDIT_NOTE_ID = 'crn_01KKRNW4G06W15XGG5FHZ6QZ85';
const INVOICE_ID = 'inv_01KKRNW4G02VQRWZ659SDQV12J';
const PLATFORM_LINE_ID = 'inl_01KKRNW4G09800J8VYYXS128WM';

export const createCreditNoteExample: Static<typeof CreateCreditNoteRequest> = {
  invoice_id: INVOICE_ID,
  reason: 'Service outage on 2026-04-03 (SLA credit)',
  credit_type: 'CREDIT_TO_BALANCE',
  memo: '6 hours of downtime, credited per section 4 of the SLA',
  lines: [{ invoice_line_id: PLATFORM_LINE_ID, amount: '10.00' }],
};

export const draftCreditNoteExample: Note = {
  id: CREDIT_NOTE_ID,
  credit_note_number: 'draft',
  status: 'DRAFT',
  credit_type: 'CREDIT_TO_BALANCE',
  reason: 'Service outage on 2026-04-03 (SLA credit)',
  memo: '6 hours of downtime, credited per section 4 of the SLA',
  invoice_id: INVOICE_ID,
  customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
  invoicing_entity_id: 'ive_01KKRNW4G00DCDSVX0Q959VSN7',
  currency: 'EUR',
  subtotal: '10.00',
  tax_amount: '2.00',
  total: '12.00',
  debt_cancelled_amount: '0.00',
  credited_amount: '0.00',
  refunded_amount: '0.00',
  refund_status: null,
  line_items: [{ id: `${CREDIT_NOTE_ID}_1`, invoice_line_id: PLATFORM_LINE_ID, name: 'Platform', taxable_amount: '10.00', tax_rate: '0.2', tax_amount: '2.00', amount_total: '12.00' }],
  tax_breakdown: [{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '10.00', tax_amount: '2.00', exemption_type: null }],
  created_at: '2026-04-06T13:27:50.615Z',
  finalized_at: null,
  voided_at: null,
  custom_properties: {},
};

/** The invoice still owed 205.32, so the whole 12.00 cancelled part of that debt. */
export const finalizedCreditNoteExample: Note = {
  ...draftCreditNoteExample,
  credit_note_number: 'CN-0002',
  status: 'FINALIZED',
  debt_cancelled_amount: '12.00',
  finalized_at: '2026-04-06T13:31:04.228Z',
};

export const voidedCreditNoteExample: Note = { ...finalizedCreditNoteExample, status: 'VOIDED', voided_at: '2026-04-07T08:02:16.940Z' };

export const creditNoteListExample = { data: [finalizedCreditNoteExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } };
