// Wire shapes of invoicing entities (our design: the reference describes only the customer's
// `invoicing_entity_id`).
import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { InvoicingEntityRow } from './entities.js';
import { MAX_LOGO_BYTES } from './entity-input.js';
import { BankDetailsSchema } from './schemas.js';

const DateTime = Type.String({ format: 'date-time' });
const Country = Type.String({ description: 'ISO 3166-1 alpha-2, upper case: decides the tax of its invoices', examples: ['FR'] });
/** The structured formats (docs/einvoicing.md). */
export const EInvoicingFormat = Type.Union([Type.Literal('FACTURX'), Type.Literal('XRECHNUNG_UBL'), Type.Literal('XRECHNUNG_CII'), Type.Literal('PEPPOL_BIS')], {
  description: 'FACTURX: Factur-X / ZUGFeRD EN 16931 (PDF/A-3 with CII); XRECHNUNG_UBL, XRECHNUNG_CII: XRechnung 3.0; PEPPOL_BIS: Peppol BIS Billing 3.0 (UBL)',
});
const Prefix = (example: string) => Type.String({ description: 'At most 20 letters, digits or - _ / . characters', examples: [example] });

export const InvoicingEntity = Type.Object({
  id: Type.String(),
  is_default: Type.Boolean({ description: 'The entity new customers get when they name none; exactly one per tenant' }),
  legal_name: Type.String(),
  address_line1: Nullable(Type.String()),
  address_line2: Nullable(Type.String()),
  city: Nullable(Type.String()),
  zip_code: Nullable(Type.String()),
  state: Nullable(Type.String()),
  country: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  vat_number: Nullable(Type.String()),
  tax_number: Nullable(Type.String({ description: 'A tax id that is not a VAT number (EIN, ABN...)' })),
  registration_number: Nullable(Type.String({ description: 'Company registry number (SIREN, Companies House...)' })),
  legal_footer: Nullable(Type.String({ description: 'Legal mentions printed at the foot of every PDF' })),
  payment_instructions: Nullable(Type.String({ description: 'Free text printed with the bank details' })),
  bank_details: Nullable(BankDetailsSchema),
  logo: Nullable(Type.Object({
    content_type: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
    size_bytes: Type.Integer(),
    sha256: Type.String(),
  }, { description: 'The logo printed on PDFs (the bytes are not sent back)' })),
  invoice_number_prefix: Type.String(),
  credit_note_number_prefix: Type.String(),
  next_invoice_number: Type.Integer({ description: 'Number the next finalized invoice of this entity takes (read-only)' }),
  next_credit_note_number: Type.Integer(),
  net_terms: Type.Integer({ description: 'Days between invoice date and due date' }),
  grace_period_hours: Type.Integer({ description: 'Hours after the invoice date during which late usage still updates a draft' }),
  e_invoicing_enabled: Type.Boolean({ description: 'Whether finalized invoices and credit notes get a structured e-invoice (docs/einvoicing.md); true exactly when e_invoicing_format is set' }),
  e_invoicing_format: Nullable(EInvoicingFormat),
  contact_name: Nullable(Type.String({ description: 'Seller contact point in e-invoices (BT-41), e.g. a department or person', examples: ['Accounts receivable'] })),
  contact_phone: Nullable(Type.String({ description: 'Seller contact telephone in e-invoices (BT-42)', examples: ['+49 30 1234567'] })),
  contact_email: Nullable(Type.String({ description: 'Seller contact e-mail in e-invoices (BT-43)', examples: ['billing@example.com'] })),
  peppol_endpoint_scheme: Nullable(Type.String({ description: 'Peppol EAS code of the seller electronic address (BT-34 scheme): 0088 GLN, 9930 German VAT...', examples: ['0088'] })),
  peppol_endpoint_id: Nullable(Type.String({ description: 'The seller\'s Peppol participant id within that scheme (BT-34)', examples: ['4035811991021'] })),
  created_at: DateTime,
  updated_at: DateTime,
  archived_at: Nullable(DateTime),
});

const OptionalText = (maxLength: number, description?: string) => Type.Optional(Nullable(Type.String({ maxLength, ...(description ? { description } : {}) })));
const BankDetailsInput = Type.Object({
  account_holder: OptionalText(200),
  bank_name: OptionalText(200),
  iban: OptionalText(50, 'Spaces allowed; checked with its mod-97 checksum'),
  bic: OptionalText(20),
  account_number: OptionalText(50),
  routing_number: OptionalText(50),
}, { additionalProperties: false, description: 'At least an iban or an account_number; null removes the bank details' });

const editable = {
  address_line1: OptionalText(500),
  address_line2: OptionalText(500),
  city: OptionalText(200),
  zip_code: OptionalText(50),
  state: OptionalText(200),
  vat_number: OptionalText(50),
  tax_number: OptionalText(50),
  registration_number: OptionalText(100),
  legal_footer: OptionalText(1000),
  payment_instructions: OptionalText(1000),
  bank_details: Type.Optional(Nullable(BankDetailsInput)),
  invoice_number_prefix: Type.Optional(Prefix('INV-')),
  credit_note_number_prefix: Type.Optional(Prefix('CN-')),
  net_terms: Type.Optional(Type.Integer({ description: 'Days, 0 to 365' })),
  grace_period_hours: Type.Optional(Type.Integer({ description: 'Hours, 0 to 744' })),
  e_invoicing_enabled: Type.Optional(Type.Boolean({ description: 'true without e_invoicing_format keeps the current format, else FACTURX; false switches e-invoicing off' })),
  e_invoicing_format: Type.Optional(Nullable(Type.String({
    description: 'FACTURX, XRECHNUNG_UBL, XRECHNUNG_CII or PEPPOL_BIS opts in with that format; null opts out (docs/einvoicing.md)', examples: ['FACTURX'],
  }))),
  contact_name: OptionalText(200, 'Seller contact point (BT-41); XRechnung requires it (BR-DE-5), e.g. \'Accounts receivable\''),
  contact_phone: Type.Optional(Nullable(Type.String({ maxLength: 50, description: 'Digits, spaces and + ( ) - / . with at least 3 digits (BT-42, BR-DE-6)', examples: ['+49 30 1234567'] }))),
  contact_email: Type.Optional(Nullable(Type.String({ maxLength: 254, description: 'An e-mail address (BT-43, BR-DE-7)', examples: ['billing@example.com'] }))),
  peppol_endpoint_scheme: Type.Optional(Nullable(Type.String({
    maxLength: 4, description: 'A 4-digit Peppol EAS code, set together with peppol_endpoint_id (BT-34, PEPPOL-EN16931-R020): 0088 GLN, 0208 Belgian company number, 9930 German VAT...', examples: ['0088'],
  }))),
  peppol_endpoint_id: Type.Optional(Nullable(Type.String({ maxLength: 50, description: 'The seller\'s participant id in that scheme, no spaces', examples: ['4035811991021'] }))),
  logo: Type.Optional(Nullable(Type.String({
    // base64 takes 4 characters for 3 bytes, plus the data URL's head
    maxLength: Math.ceil(MAX_LOGO_BYTES / 3) * 4 + 100,
    description: `A data URL of a PNG (8 bits per sample, not interlaced) or JPEG image of at most ${MAX_LOGO_BYTES / 1024} KiB and 2000 x 2000 pixels; null removes the logo`,
    examples: ['data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='],
  }))),
};

export const CreateInvoicingEntityRequest = Type.Object({
  legal_name: Type.String({ minLength: 1, maxLength: 500 }),
  country: Country,
  is_default: Type.Optional(Type.Boolean({ description: 'true makes it the default entity at once (default false; the first entity of a tenant is the default anyway)' })),
  ...editable,
}, { additionalProperties: false });

export const UpdateInvoicingEntityRequest = Type.Object({
  legal_name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  country: Type.Optional(Country),
  is_default: Type.Optional(Type.Boolean({ description: 'true makes it the default entity (the previous default stops being one); false is refused' })),
  ...editable,
}, { additionalProperties: false });

export function entityToWire(row: InvoicingEntityRow) {
  return {
    id: row.id,
    is_default: row.is_default,
    legal_name: row.legal_name,
    address_line1: row.address_line1,
    address_line2: row.address_line2,
    city: row.city,
    zip_code: row.zip_code,
    state: row.state,
    country: row.country,
    vat_number: row.vat_number,
    tax_number: row.tax_number,
    registration_number: row.registration_number,
    legal_footer: row.legal_footer,
    payment_instructions: row.payment_instructions,
    bank_details: row.bank_details,
    logo: row.logo_content_type && row.logo_sha256 ? { content_type: row.logo_content_type, size_bytes: row.logo_size_bytes ?? 0, sha256: row.logo_sha256 } : null,
    invoice_number_prefix: row.invoice_number_prefix,
    credit_note_number_prefix: row.credit_note_number_prefix,
    next_invoice_number: Number(row.next_invoice_number),
    next_credit_note_number: Number(row.next_credit_note_number),
    net_terms: row.net_terms,
    grace_period_hours: row.grace_period_hours,
    e_invoicing_enabled: row.e_invoicing_enabled,
    e_invoicing_format: row.e_invoicing_format,
    contact_name: row.contact_name,
    contact_phone: row.contact_phone,
    contact_email: row.contact_email,
    peppol_endpoint_scheme: row.peppol_endpoint_scheme,
    peppol_endpoint_id: row.peppol_endpoint_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    archived_at: isoOrNull(row.archived_at),
  };
}
