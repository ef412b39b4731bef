// What the composition root and other modules may use from credit notes.
export { createCreditNotesModule } from './module.js';
// For invoices (passed in by the composition root: invoices come first) and e-mails.
export { countOpenCreditNotes, findCreditNote, setRefundStatus } from './repository.js';
export type { CreditNoteRow, RefundStatus } from './repository.js';
