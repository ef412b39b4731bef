import { formatMinor } from '../../kernel/money.js';
import type { CreditNoteRow } from './repository.js';

/**
 * `data` of credit_note.* events in the reference's CreditNoteEventData shape. The reference's
 * `*_cents` fields keep their names but carry decimal strings like every amount we send.
 */
export function creditNoteEventData(note: CreditNoteRow): Record<string, unknown> {
  const money = (minor: bigint) => formatMinor(minor, note.currency);
  return {
    credit_note_id: note.id,
    credit_note_number: note.credit_note_number,
    customer_id: note.customer_id,
    invoice_id: note.invoice_id,
    status: note.status,
    currency: note.currency,
    total: money(note.total_minor),
    tax_amount: money(note.tax_minor),
    refunded_amount_cents: money(note.refunded_minor),
    credited_amount_cents: money(note.credited_minor),
    created_at: note.created_at.toISOString(),
    custom_properties: note.custom_properties,
  };
}
