import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import { formatMinor } from '../../kernel/money.js';
import { EInvoicingOutcomeSchema, eInvoicingOutcome, taxBreakdownToWire, taxName } from '../invoices/index.js';
import { Dec } from '../../kernel/money.js';
import type { TaxTreatment } from '../../domain/index.js';
import { CustomPropertiesInput, CustomPropertiesOutput } from '../custom-properties/index.js';
import type { CreditNoteDetail } from './repository.js';

const Amount = Type.String({ description: "Decimal string with the currency's minor-unit digits" });

export const CreditNoteStatus = Type.Union([Type.Literal('DRAFT'), Type.Literal('FINALIZED'), Type.Literal('VOIDED')]);
export const CreditType = Type.Union([Type.Literal('CREDIT_TO_BALANCE'), Type.Literal('REFUND')]);

export const CreditNote = Type.Object({
  id: Type.String(),
  credit_note_number: Type.String({ description: '"draft" until finalized' }),
  status: CreditNoteStatus,
  credit_type: CreditType,
  reason: Type.String(),
  memo: Nullable(Type.String()),
  invoice_id: Type.String(),
  customer_id: Type.String(),
  invoicing_entity_id: Type.String(),
  currency: Type.String(),
  subtotal: Amount,
  tax_amount: Amount,
  total: Amount,
  debt_cancelled_amount: Type.String({ description: 'Part of the total that cancelled what the invoice still owed' }),
  credited_amount: Type.String({ description: 'Part of the total added to the customer balance' }),
  refunded_amount: Type.String({ description: 'Part of the total to pay back to the customer' }),
  refund_status: Nullable(Type.String({
    enum: ['PENDING', 'REFUNDED', 'FAILED', 'MANUAL'],
    description: 'Where the refunded amount is: PENDING (being refunded through the payment provider), REFUNDED, FAILED (the provider refused; pay it out yourself), MANUAL (the invoice was not paid through a provider: paying out is yours); null when nothing is refunded',
  })),
  line_items: Type.Array(Type.Object({
    id: Type.String(),
    invoice_line_id: Type.String(),
    name: Type.String(),
    taxable_amount: Amount,
    tax_rate: Type.String(),
    tax_amount: Amount,
    amount_total: Amount,
  })),
  tax_breakdown: Type.Array(Type.Object({
    name: Type.String(),
    tax_rate: Type.String(),
    taxable_amount: Amount,
    tax_amount: Amount,
    exemption_type: Nullable(Type.String()),
  })),
  custom_properties: CustomPropertiesOutput,
  e_invoicing: Type.Optional(EInvoicingOutcomeSchema),
  created_at: Type.String({ format: 'date-time' }),
  finalized_at: Nullable(Type.String({ format: 'date-time' })),
  voided_at: Nullable(Type.String({ format: 'date-time' })),
});

export const CreateCreditNoteRequest = Type.Object({
  invoice_id: Type.String(),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
  credit_type: CreditType,
  memo: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  lines: Type.Optional(Type.Array(Type.Object({
    invoice_line_id: Type.String(),
    amount: Type.String({ description: 'Net amount (before tax) to credit on this line, a decimal string; its tax follows in proportion', examples: ['20.00'] }),
  }, { additionalProperties: false }), { description: 'Omit to credit everything still uncredited on the invoice' })),
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
}, { additionalProperties: false });

export function creditNoteToWire({ note, lines, eInvoice }: CreditNoteDetail) {
  const money = (minor: bigint) => formatMinor(minor, note.currency);
  const groups = new Map<string, { name: string; tax_rate: string; treatment: string; taxable_minor: bigint; tax_minor: bigint }>();
  for (const line of lines) {
    const key = `${line.tax_treatment}|${line.tax_rate}|${line.tax_country ?? ''}`;
    const group = groups.get(key) ?? {
      name: taxName({ treatment: line.tax_treatment as TaxTreatment, rate: new Dec(line.tax_rate), country: line.tax_country }),
      tax_rate: line.tax_rate,
      treatment: line.tax_treatment,
      taxable_minor: 0n,
      tax_minor: 0n,
    };
    group.taxable_minor += line.taxable_minor;
    group.tax_minor += line.tax_minor;
    groups.set(key, group);
  }
  return {
    id: note.id,
    credit_note_number: note.credit_note_number ?? 'draft',
    status: note.status,
    credit_type: note.credit_type,
    reason: note.reason,
    memo: note.memo,
    invoice_id: note.invoice_id,
    customer_id: note.customer_id,
    invoicing_entity_id: note.invoicing_entity_id,
    currency: note.currency,
    subtotal: money(note.subtotal_minor),
    tax_amount: money(note.tax_minor),
    total: money(note.total_minor),
    debt_cancelled_amount: money(note.debt_cancelled_minor),
    credited_amount: money(note.credited_minor),
    refunded_amount: money(note.refunded_minor),
    refund_status: note.refund_status,
    line_items: lines.map((line) => ({
      id: line.id,
      invoice_line_id: line.invoice_line_id,
      name: line.name,
      taxable_amount: money(line.taxable_minor),
      tax_rate: line.tax_rate,
      tax_amount: money(line.tax_minor),
      amount_total: money(line.total_minor),
    })),
    tax_breakdown: [...groups.values()].map((group) => taxBreakdownToWire(group, note.currency)),
    e_invoicing: eInvoicingOutcome(eInvoice),
    created_at: iso(note.created_at),
    custom_properties: note.custom_properties,
    finalized_at: isoOrNull(note.finalized_at),
    voided_at: isoOrNull(note.voided_at),
  };
}
