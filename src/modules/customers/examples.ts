// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

const address = { line1: 'Friedrichstrasse 123', line2: null, city: 'Berlin', state: null, zip_code: '10117', country: 'DE' };

export const createCustomerExample = {
  name: 'Acme GmbH',
  alias: 'acme',
  currency: 'EUR',
  billing_email: 'billing@acme.example',
  invoicing_emails: ['ap@acme.example'],
  billing_address: address,
  shipping_address: { same_as_billing: true },
  vat_number: 'DE123456789',
  custom_properties: { crm_id: '0015g00000XyZ' },
  invoicing_entity_id: 'ive_01KKRNW4G00DCDSVX0Q959VSN7',
};

export const customerExample = {
  id: 'cus_01KKRNW4G00DQZJ9RBQHV3B9GB',
  name: 'Acme GmbH',
  alias: 'acme',
  billing_email: 'billing@acme.example',
  invoicing_emails: ['ap@acme.example'],
  phone: null,
  currency: 'EUR',
  billing_address: address,
  shipping_address: { same_as_billing: true },
  vat_number: 'DE123456789',
  is_tax_exempt: false,
  reverse_charge: false,
  custom_taxes: [],
  custom_properties: { crm_id: '0015g00000XyZ' },
  invoicing_entity_id: 'ive_01KKRNW4G00DCDSVX0Q959VSN7',
  connected_account_id: null,
  test_clock_id: null,
  balance: '0.00',
  created_at: '2026-03-15T12:00:00.000Z',
  archived_at: null,
};

export const replaceCustomerExample = {
  name: 'Globex Corporation',
  currency: 'USD',
  billing_email: 'invoices@globex.example',
  invoicing_emails: [],
  billing_address: { line1: '1 Globex Way', city: 'San Francisco', state: 'CA', zip_code: '94105', country: 'US' },
  custom_taxes: [{ name: 'Sales tax', rate: '0.0725', tax_code: 'US-CA' }],
};

export const replacedCustomerExample = {
  ...customerExample,
  id: 'cus_01KKRNW4G0BVYJ5FYX4YET7B2M',
  name: 'Globex Corporation',
  alias: null,
  billing_email: 'invoices@globex.example',
  invoicing_emails: [],
  currency: 'USD',
  billing_address: { line1: '1 Globex Way', city: 'San Francisco', state: 'CA', zip_code: '94105', country: 'US' },
  shipping_address: null,
  vat_number: null,
  custom_taxes: [{ name: 'Sales tax', rate: '0.0725', tax_code: 'US-CA' }],
  custom_properties: {},
};
