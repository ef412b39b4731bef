import { formatMinor } from '../../kernel/money.js';
import type { InvoiceRow } from './repository.js';

/** `data` of invoice.* events in the reference's InvoiceEventData shape (amounts as decimal strings). */
export function invoiceEventData(invoice: InvoiceRow): Record<string, unknown> {
  return {
    invoice_id: invoice.id,
    customer_id: invoice.customer_id,
    subscription_id: invoice.subscription_id,
    invoice_number: invoice.invoice_number,
    status: invoice.status,
    payment_status: invoice.payment_status,
    currency: invoice.currency,
    total: formatMinor(invoice.total_minor, invoice.currency),
    tax_amount: formatMinor(invoice.tax_minor, invoice.currency),
    amount_due: formatMinor(invoice.amount_due_minor, invoice.currency),
    created_at: invoice.created_at.toISOString(),
    custom_properties: invoice.custom_properties ?? {},
  };
}
