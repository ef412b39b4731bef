// What data export (src/modules/exports) reads of credit notes: one window of changes at a time.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { ChangeWindow, KeysetCursor } from '../invoices/index.js';
import { CREDIT_NOTE_COLUMNS, type CreditNoteRow } from './repository.js';

/**
 * Credit notes (not drafts) whose `updated_at` is in the window (`after` < t <= `upTo`), oldest
 * change first, after the cursor; a note that changes again (voided, refunded) is in a later window again.
 */
export async function creditNotesChangedIn(db: Queryable, tenantId: string, window: ChangeWindow, cursor: KeysetCursor | null, limit: number): Promise<CreditNoteRow[]> {
  const params: unknown[] = [window.upTo];
  let where = 'updated_at <= $2';
  if (window.after) {
    params.push(window.after);
    where += ` AND updated_at > $${params.length + 1}`;
  }
  if (cursor) {
    params.push(cursor.at, cursor.id);
    where += ` AND (updated_at, id) > ($${params.length}, $${params.length + 1})`;
  }
  return scoped(db, tenantId).query<CreditNoteRow>(
    `SELECT ${CREDIT_NOTE_COLUMNS} FROM credit_notes WHERE tenant_id = $1 AND status <> 'DRAFT' AND ${where} ORDER BY updated_at, id LIMIT $${params.length + 2}`,
    [...params, limit],
  );
}
