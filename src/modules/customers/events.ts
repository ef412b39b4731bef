import type { CustomerRow } from './repository.js';

/** `data` of customer.* events, in the reference's CustomerEventData shape. */
export function customerEventData(row: CustomerRow): Record<string, unknown> {
  return {
    customer_id: row.id,
    name: row.name,
    alias: row.alias,
    billing_email: row.billing_email,
    invoicing_emails: row.invoicing_emails,
    phone: row.phone,
    currency: row.currency,
    custom_properties: row.custom_properties,
  };
}
