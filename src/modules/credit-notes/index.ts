// What the composition root and other modules may use from credit notes.
export { createCreditNotesModule } from './module.js';
// For invoices (passed in by the composition root: invoices come first) and e-mails.
export { countOpenCreditNotes, findCreditNote, setRefundStatus } from './repository.js';
// A test clock's deletion removes its customers' credit notes.
export { deleteCreditNotesOfCustomers } from './repository.js';
export type { CreditNoteRow, RefundStatus } from './repository.js';
// Data export reads credit notes by window (docs/export.md).
export { creditNotesChangedIn } from './export-rows.js';
