// What other modules and the composition root may use from invoices.
export { createInvoicesService } from './service.js';
export type { InvoicesService } from './service.js';
export { createInvoiceLifecycle, finalizeInTx, adjustAmountDue, recordProviderPayment, reverseProviderPayment, markUncollectibleInTx, RENDER_PDF_TASK } from './lifecycle.js';
export type { InvoiceLifecycle, DraftRefresher, PrepaidCredits } from './lifecycle.js';
export { ensureDefaultEntity, entityForCustomer, insertDefaultEntity, findEntity, takeDocumentNumbers, sellerDetails } from './entities.js';
export type { InvoicingEntityRow, DefaultEntityDetails, DocumentKind } from './entities.js';
export { createInvoicingEntitiesService } from './entities-service.js';
export type { InvoicingEntitiesService } from './entities-service.js';
export { PdfResponse } from './routes.js';
export { findInvoice, firstInvoiceOfSubscription, loadDetail, findDocument, insertDocument } from './repository.js';
// A test clock's advance stops at its drafts' finalization times; its deletion removes its customers' invoices and PDFs.
export { nextDraftFinalization, invoiceIdsOfCustomers, deleteInvoicesOfCustomers, deleteDocumentsOf } from './repository.js';
export type { InvoiceRow, InvoiceDetail, InvoiceLineRow, DocumentRow, PrepaidCreditLine } from './repository.js';
export { creditBalance } from './customer.js';
export { InvoicesFailure, isInvoicesFailure } from './errors.js';
export type { InvoicesFailureKind } from './errors.js';
export { partyLines, sha256Hex } from './documents.js';
export { taxName, insertDraft, type DraftInvoiceInput, type LineDetail } from './drafts.js';
export { exemptionType, taxBreakdownToWire } from './schemas.js';
export { createInvoicesModule, FINALIZE_DUE_TASK, BILLING_RUN_TASK, scheduleBillingRuns } from './module.js';
export type { BillingRun } from './billing/run.js';
export type { Invoicing } from './module.js';
export type { BankLine, BankLineResult, BankTransfers } from './bank-transfers.js';
export { invoiceEventData } from './events.js';
export { nextInvoiceDateOf } from './next-invoice-date.js';
export { accruedUsageCharges } from './billing/accrued.js';
// Data export reads invoices, their lines and payment transactions by window (docs/export.md).
export { invoicesChangedIn, invoiceLinesFinalizedIn, paymentsRecordedIn } from './export-rows.js';
export type { ChangeWindow, KeysetCursor, ExportedInvoiceLine, ExportedPayment } from './export-rows.js';
// E-invoicing (docs/einvoicing.md): credit notes generate and read theirs through these.
export { storeEInvoice, findEInvoices, eInvoicingOutcome, eInvoiceXml, separateEInvoiceXml, storedEInvoiceAttachment } from './einvoices.js';
export type { EInvoicingOutcome, EInvoiceRow } from './einvoices.js';
export { creditNoteEInvoice, type CreditNoteForEInvoice } from './einvoice-document.js';
export { EInvoicingOutcomeSchema } from './schemas.js';
export { XmlResponse } from './routes.js';
