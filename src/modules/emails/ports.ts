import type { Queryable } from '../../db/pool.js';
import { findCustomer } from '../customers/index.js';
import { findDocument, findEntity, findInvoice, separateEInvoiceXml } from '../invoices/index.js';
import { settledByProviderPayment } from '../payments/index.js';
import { formatMinor } from '../../kernel/money.js';
import type { EmailPorts } from './service.js';

/**
 * The ports wired to the customers, invoices, credit-notes and payments modules (the pay link
 * needs the payments module's secret: the composition root adds `payUrl`). The PDF lookups take the
 * pool, since they run in the send job, outside any transaction. A credit note's PDF is stored at
 * its first download, so the mail takes it from the credit-notes service (`creditNotePdf`, passed
 * in by the composition root), which stores it, with the e-invoice embedded, when it is not yet.
 */
export function sqlEmailPorts(pool: Queryable, creditNotePdf: EmailPorts['creditNotePdf']): EmailPorts {
  return {
    async invoicePdf(tenantId, invoiceId) {
      const invoice = await findInvoice(pool, tenantId, invoiceId);
      const document = invoice?.pdf_document_id ? await findDocument(pool, tenantId, invoice.pdf_document_id) : undefined;
      if (!document) throw new Error(`the PDF of invoice ${invoiceId} is not rendered yet`);
      return document.content;
    },
    creditNotePdf,
    async eInvoiceXml(tenantId, objectId, baseName) {
      return (await separateEInvoiceXml(pool, tenantId, objectId, baseName)) ?? null;
    },
    async customerEmails(db, tenantId, customerId) {
      const customer = await findCustomer(db, tenantId, customerId);
      if (!customer) return [];
      const invoicing = (customer.invoicing_emails ?? []).filter((e) => typeof e === 'string' && e !== '');
      return invoicing.length > 0 ? invoicing : customer.billing_email ? [customer.billing_email] : [];
    },
    async invoiceFacts(db, tenantId, invoiceId) {
      const invoice = await findInvoice(db, tenantId, invoiceId);
      if (!invoice) return undefined;
      const remaining = invoice.amount_due_minor > invoice.amount_paid_minor ? invoice.amount_due_minor - invoice.amount_paid_minor : 0n;
      return { invoice_number: invoice.invoice_number, amount_remaining: formatMinor(remaining, invoice.currency), currency: invoice.currency };
    },
    settledByProviderPayment,
    async sellerName(db, tenantId, invoiceId) {
      const invoice = await findInvoice(db, tenantId, invoiceId);
      const entity = invoice ? await findEntity(db, tenantId, invoice.invoicing_entity_id) : undefined;
      return entity?.legal_name;
    },
  };
}
