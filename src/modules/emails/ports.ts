import type { Queryable } from '../../db/pool.js';
import { findCreditNote } from '../credit-notes/index.js';
import { findCustomer } from '../customers/index.js';
import { findDocument, findEntity, findInvoice } from '../invoices/index.js';
import type { EmailPorts } from './service.js';

/**
 * The ports wired to the customers, invoices and credit-notes modules. The PDF lookups take the
 * pool, since they run in the send job, outside any transaction.
 */
export function sqlEmailPorts(pool: Queryable): EmailPorts {
  return {
    async invoicePdf(tenantId, invoiceId) {
      const invoice = await findInvoice(pool, tenantId, invoiceId);
      const document = invoice?.pdf_document_id ? await findDocument(pool, tenantId, invoice.pdf_document_id) : undefined;
      if (!document) throw new Error(`the PDF of invoice ${invoiceId} is not rendered yet`);
      return document.content;
    },
    async creditNotePdf(tenantId, creditNoteId) {
      const documentId = (await findCreditNote(pool, tenantId, creditNoteId))?.pdf_document_id;
      const document = documentId ? await findDocument(pool, tenantId, documentId) : undefined;
      return document?.content ?? null;
    },
    async customerEmails(db, tenantId, customerId) {
      const customer = await findCustomer(db, tenantId, customerId);
      if (!customer) return [];
      const invoicing = (customer.invoicing_emails ?? []).filter((e) => typeof e === 'string' && e !== '');
      return invoicing.length > 0 ? invoicing : customer.billing_email ? [customer.billing_email] : [];
    },
    async sellerName(db, tenantId, invoiceId) {
      const invoice = await findInvoice(db, tenantId, invoiceId);
      const entity = invoice ? await findEntity(db, tenantId, invoice.invoicing_entity_id) : undefined;
      return entity?.legal_name;
    },
  };
}
