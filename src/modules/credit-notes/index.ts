// What the composition root may use from credit notes.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { creditNoteRoutes } from './routes.js';
import { createCreditNotesService } from './service.js';

export { createCreditNotesService } from './service.js';
export type { CreditNotesService } from './service.js';
// For invoices (passed in by the composition root: invoices come first) and e-mails.
export { countOpenCreditNotes, findCreditNote } from './repository.js';
export type { CreditNoteRow } from './repository.js';

/** Service and routes, for compose(). */
export function createCreditNotes(deps: { pool: Pool; clock: Clock }) {
  const service = createCreditNotesService(deps);
  return { service, routes: creditNoteRoutes(service) };
}
