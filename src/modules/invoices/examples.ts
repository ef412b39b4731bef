// Examples of the OpenAPI document: April 2026's invoice of Acme SAS (plan Pro, 5 seats, API
// calls of March in arrears, French VAT 20 %), through its lifecycle.
import type { Static } from 'typebox';
import type { Invoice } from './schemas.js';
import type { CreateInvoicingEntityRequest, InvoicingEntity, UpdateInvoicingEntityRequest } from './entity-schemas.js';

type InvoiceWire = Static<typeof Invoice>;
type Line = InvoiceWire['line_items'][number];

export const INVOICE_ID = 'inv_01KKRNW4G02VQRWZ659SDQV12J';
export const ENTITY_ID = 'ive_01KKRNW4G00DCDSVX0Q959VSN7';

const line = (id: string, name: string, start: string, end: string, quantity: string, unitPrice: string | null, net: string, tax: string, total: string, subLines: Line['sub_line_items'] = []): Line => ({
  id, name, description: null, start_date: start, end_date: end, quantity, ...(unitPrice === null ? {} : { unit_price: unitPrice }),
  amount_subtotal: net, discount: '0.00', taxable_amount: net, tax_rate: '0.2', tax_amount: tax, amount_total: total, sub_line_items: subLines,
});

/** Finalized on 2026-04-02, once its 24-hour grace period was over; nothing paid yet. */
export const invoiceExample: InvoiceWire = {
  id: INVOICE_ID,
  invoice_number: 'INV-0002',
  status: 'FINALIZED',
  payment_status: 'UNPAID',
  invoice_type: 'RECURRING',
  customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
  subscription_id: 'sub_01KKRNW4G0P3977S414S2FKJMX',
  invoicing_entity_id: ENTITY_ID,
  currency: 'EUR',
  invoice_date: '2026-04-01',
  period_start: '2026-04-01',
  period_end: '2026-05-01',
  due_date: '2026-05-01',
  net_terms: 30,
  subtotal: '171.10',
  subtotal_recurring: '99.00',
  discount: '0.00',
  tax_amount: '34.22',
  total: '205.32',
  applied_credits: '0.00',
  prepaid_credits: '0.00',
  prepaid_credit_lines: [],
  amount_due: '205.32',
  amount_paid: '0.00',
  line_items: [
    line('inl_01KKRNW4G09800J8VYYXS128WM', 'Platform', '2026-04-01', '2026-04-30', '1', '49', '49.00', '9.80', '58.80'),
    line('inl_01KKRNW4G0Z9GFWEHH4E049TD1', 'Seats (seat)', '2026-04-01', '2026-04-30', '5', '10', '50.00', '10.00', '60.00'),
    line('inl_01KKRNW4G081R672HREE88F3C6', 'API calls', '2026-03-01', '2026-03-31', '1342', null, '72.10', '14.42', '86.52', [
      { id: 'inl_01KKRNW4G081R672HREE88F3C6_1', name: '0 to 100', total: '10.00', quantity: '100', unit_price: '0.1' },
      { id: 'inl_01KKRNW4G081R672HREE88F3C6_2', name: 'above 100', total: '62.10', quantity: '1242', unit_price: '0.05' },
    ]),
  ],
  tax_breakdown: [{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '171.10', tax_amount: '34.22', exemption_type: null }],
  coupons: [],
  transactions: [],
  customer_details: {
    id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
    name: 'Acme SAS',
    alias: 'crm-42',
    email: 'billing@acme.example',
    vat_number: 'FR40123456824',
    billing_address: { line1: '12 rue de la Paix', city: 'Paris', zip_code: '75002', country: 'FR' },
    snapshot_at: '2026-04-01T00:00:03.118Z',
  },
  seller_details: {
    id: ENTITY_ID,
    legal_name: 'Tally Billing SAS',
    vat_number: 'FR83404833048',
    tax_number: null,
    registration_number: 'SIREN 404 833 048',
    address: { line1: '8 avenue des Ternes', line2: null, city: 'Paris', zip_code: '75017', state: null, country: 'FR' },
    legal_footer: 'SAS au capital de 10 000 EUR - RCS Paris 404 833 048',
    payment_instructions: 'Please quote the payment reference with your transfer.',
    bank_details: { account_holder: 'Tally Billing SAS', bank_name: 'Banque Exemple', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP', account_number: null, routing_number: null },
  },
  memo: null,
  reference: 'INV0002',
  purchase_order: 'PO-2026-118',
  custom_properties: {},
  created_at: '2026-04-01T00:00:03.118Z',
  updated_at: '2026-04-02T00:00:05.402Z',
  finalized_at: '2026-04-02T00:00:05.402Z',
  paid_at: null,
  voided_at: null,
  marked_as_uncollectible_at: null,
};

export const invoiceListExample = { data: [invoiceExample], pagination_meta: { page: 0, per_page: 10, total_items: 2, total_pages: 1 } };

export const markPaidExample = { amount: '205.32', paid_at: '2026-04-20T14:03:00Z', reference: 'SEPA-20260420-7781' };

export const paidInvoiceExample: InvoiceWire = {
  ...invoiceExample,
  payment_status: 'PAID',
  amount_paid: '205.32',
  paid_at: '2026-04-20T14:03:00.000Z',
  updated_at: '2026-04-20T15:12:41.090Z',
  transactions: [{
    id: 'pay_01KPB3S6M2A7C4QZ9W1XK8D5TE', amount: '205.32', currency: 'EUR', status: 'SETTLED', payment_type: 'PAYMENT', payment_method_id: null,
    payment_method_info: null, provider_transaction_id: 'SEPA-20260420-7781', processed_at: '2026-04-20T14:03:00.000Z', error: null,
  }],
};

export const voidedInvoiceExample: InvoiceWire = { ...invoiceExample, status: 'VOID', amount_due: '0.00', voided_at: '2026-04-03T08:41:19.554Z', updated_at: '2026-04-03T08:41:19.554Z' };

export const uncollectibleInvoiceExample: InvoiceWire = {
  ...invoiceExample,
  status: 'UNCOLLECTIBLE',
  marked_as_uncollectible_at: '2026-07-15T09:00:12.330Z',
  updated_at: '2026-07-15T09:00:12.330Z',
};

/** May's invoice as it would be computed today: not stored, so no number, due date or reference yet. */
export const upcomingInvoiceExample: InvoiceWire = {
  ...invoiceExample,
  id: 'upcoming',
  invoice_number: 'draft',
  status: 'DRAFT',
  invoice_date: '2026-05-01',
  period_start: '2026-05-01',
  period_end: '2026-06-01',
  due_date: null,
  subtotal: '118.90',
  tax_amount: '23.78',
  total: '142.68',
  amount_due: '142.68',
  line_items: [
    line('inl_01KPB3S6M2QWVN83QRPRETSMS0', 'Platform', '2026-05-01', '2026-05-31', '1', '49', '49.00', '9.80', '58.80'),
    line('inl_01KPB3S6M2RHSEDCWA0BMTV7H0', 'Seats (seat)', '2026-05-01', '2026-05-31', '5', '10', '50.00', '10.00', '60.00'),
    line('inl_01KPB3S6M281R672HREE88F3C6', 'API calls', '2026-04-01', '2026-04-30', '298', null, '19.90', '3.98', '23.88', [
      { id: 'inl_01KPB3S6M281R672HREE88F3C6_1', name: '0 to 100', total: '10.00', quantity: '100', unit_price: '0.1' },
      { id: 'inl_01KPB3S6M281R672HREE88F3C6_2', name: 'above 100', total: '9.90', quantity: '198', unit_price: '0.05' },
    ]),
  ],
  tax_breakdown: [{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '118.90', tax_amount: '23.78', exemption_type: null }],
  customer_details: { ...invoiceExample.customer_details, snapshot_at: '2026-04-17T10:22:09.871Z' },
  reference: null,
  created_at: '2026-04-17T10:22:09.871Z',
  updated_at: '2026-04-17T10:22:09.871Z',
  finalized_at: null,
};

export const entityExample: Static<typeof InvoicingEntity> = {
  id: ENTITY_ID,
  is_default: true,
  legal_name: 'Tally Billing SAS',
  address_line1: '8 avenue des Ternes',
  address_line2: null,
  city: 'Paris',
  zip_code: '75017',
  state: null,
  country: 'FR',
  vat_number: 'FR83404833048',
  tax_number: null,
  registration_number: 'SIREN 404 833 048',
  legal_footer: 'SAS au capital de 10 000 EUR - RCS Paris 404 833 048',
  payment_instructions: 'Please quote the payment reference with your transfer.',
  bank_details: { account_holder: 'Tally Billing SAS', bank_name: 'Banque Exemple', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP', account_number: null, routing_number: null },
  logo: { content_type: 'image/png', size_bytes: 4182, sha256: '5f2b8c0e9d6a4f1b3c7e2d9a8b6f4c1e0d3a5b7c9e1f2a4b6c8d0e2f4a6b8c0d' },
  invoice_number_prefix: 'INV-',
  credit_note_number_prefix: 'CN-',
  next_invoice_number: 3,
  next_credit_note_number: 2,
  net_terms: 30,
  grace_period_hours: 24,
  e_invoicing_enabled: false,
  e_invoicing_format: null,
  contact_name: 'Accounts receivable',
  contact_phone: '+33 1 23 45 67 89',
  contact_email: 'billing@tally.example',
  peppol_endpoint_scheme: '0009',
  peppol_endpoint_id: '40483304800010',
  created_at: '2026-01-05T08:00:00.000Z',
  updated_at: '2026-03-02T16:45:10.237Z',
  archived_at: null,
};

/** A second seller of the same tenant: a US subsidiary with its own sequence and prefix. */
export const secondEntityExample: Static<typeof InvoicingEntity> = {
  ...entityExample,
  id: 'ive_01KPB3S6M2F4Q8W1Z5C7R9T0YD',
  is_default: false,
  legal_name: 'Tally Billing Inc.',
  address_line1: '548 Market Street',
  city: 'San Francisco',
  zip_code: '94104',
  state: 'CA',
  country: 'US',
  vat_number: null,
  tax_number: 'EIN 12-3456789',
  registration_number: null,
  legal_footer: null,
  payment_instructions: 'ACH or wire transfer; quote the invoice number.',
  bank_details: { account_holder: 'Tally Billing Inc.', bank_name: 'Example Bank', iban: null, bic: null, account_number: '000123456789', routing_number: '121000248' },
  logo: null,
  invoice_number_prefix: 'US-',
  credit_note_number_prefix: 'USCN-',
  next_invoice_number: 1,
  next_credit_note_number: 1,
  net_terms: 15,
  contact_name: null,
  contact_phone: null,
  contact_email: null,
  peppol_endpoint_scheme: null,
  peppol_endpoint_id: null,
  created_at: '2026-04-17T10:22:09.871Z',
  updated_at: '2026-04-17T10:22:09.871Z',
};

export const archivedEntityExample: Static<typeof InvoicingEntity> = { ...secondEntityExample, archived_at: '2026-09-30T17:00:00.000Z', updated_at: '2026-09-30T17:00:00.000Z' };

export const entityCreateExample: Static<typeof CreateInvoicingEntityRequest> = {
  legal_name: 'Tally Billing Inc.',
  country: 'US',
  address_line1: '548 Market Street',
  city: 'San Francisco',
  zip_code: '94104',
  state: 'CA',
  tax_number: 'EIN 12-3456789',
  invoice_number_prefix: 'US-',
  credit_note_number_prefix: 'USCN-',
  net_terms: 15,
  payment_instructions: 'ACH or wire transfer; quote the invoice number.',
  bank_details: { account_holder: 'Tally Billing Inc.', bank_name: 'Example Bank', account_number: '000123456789', routing_number: '121000248' },
};

export const entityUpdateExample: Static<typeof UpdateInvoicingEntityRequest> = {
  legal_name: 'Tally Billing SAS',
  address_line1: '8 avenue des Ternes',
  city: 'Paris',
  zip_code: '75017',
  country: 'FR',
  vat_number: 'FR83404833048',
  registration_number: 'SIREN 404 833 048',
  legal_footer: 'SAS au capital de 10 000 EUR - RCS Paris 404 833 048',
  bank_details: { account_holder: 'Tally Billing SAS', iban: 'FR76 3000 6000 0112 3456 7890 189', bic: 'AGRIFRPP' },
  contact_name: 'Accounts receivable',
  contact_phone: '+33 1 23 45 67 89',
  contact_email: 'billing@tally.example',
  peppol_endpoint_scheme: '0009',
  peppol_endpoint_id: '40483304800010',
};
