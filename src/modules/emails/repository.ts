import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { EmailKind } from './templates.js';

export type EmailStatus = 'PENDING' | 'SENT' | 'SKIPPED' | 'FAILED';
export type SkipReason = 'EMAILS_DISABLED' | 'NO_RECIPIENT';

export interface EmailRow {
  id: string;
  kind: EmailKind;
  event_id: string;
  object_id: string | null;
  customer_id: string | null;
  recipients: string[];
  sender_name: string;
  subject: string;
  payload: Record<string, unknown>;
  status: EmailStatus;
  skip_reason: SkipReason | null;
  attempt_count: number;
  last_error: string | null;
  smtp_message_id: string | null;
  created_at: Date;
  sent_at: Date | null;
}

const COLUMNS = `id, kind, event_id, object_id, customer_id, recipients, sender_name, subject, payload, status, skip_reason,
  attempt_count, last_error, smtp_message_id, created_at, sent_at`;

/** Inserts the message for an event; false when this event already has its message of this kind. */
export async function insertEmail(db: Queryable, tenantId: string, row: EmailRow): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `INSERT INTO email_messages (tenant_id, id, kind, event_id, object_id, customer_id, recipients, sender_name, subject, payload, status, skip_reason, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (tenant_id, event_id, kind) DO NOTHING RETURNING id`,
    [row.id, row.kind, row.event_id, row.object_id, row.customer_id, row.recipients, row.sender_name, row.subject, JSON.stringify(row.payload), row.status, row.skip_reason, row.created_at],
  );
  return rows.length > 0;
}

/** Whether a message of this kind about this object (a payment transaction's receipt) was already logged. */
export async function hasEmailFor(db: Queryable, tenantId: string, kind: EmailKind, objectId: string): Promise<boolean> {
  return (await scoped(db, tenantId).one(`SELECT 1 AS found FROM email_messages WHERE tenant_id = $1 AND kind = $2 AND object_id = $3 LIMIT 1`, [kind, objectId])) !== undefined;
}

export async function findEmail(db: Queryable, tenantId: string, emailId: string, lock = false): Promise<EmailRow | undefined> {
  return scoped(db, tenantId).one<EmailRow>(`SELECT ${COLUMNS} FROM email_messages WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [emailId]);
}

export async function listEmails(
  db: Queryable,
  tenantId: string,
  filter: { status?: EmailStatus; kind?: EmailKind; customerId?: string; objectId?: string },
  page: PageRequest,
  direction: 'ASC' | 'DESC',
): Promise<{ rows: EmailRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR kind = $3)
    AND ($4::text IS NULL OR customer_id = $4) AND ($5::text IS NULL OR object_id = $5)`;
  const params = [filter.status ?? null, filter.kind ?? null, filter.customerId ?? null, filter.objectId ?? null];
  return scoped(db, tenantId).page<EmailRow>({ columns: COLUMNS, from: 'email_messages', where, orderBy: `created_at ${direction}, id ${direction}` }, params, page);
}

export async function updateEmail(
  db: Queryable,
  tenantId: string,
  emailId: string,
  change: Pick<EmailRow, 'status' | 'skip_reason' | 'attempt_count' | 'last_error' | 'smtp_message_id' | 'sent_at'>,
): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE email_messages SET status = $3, skip_reason = $4, attempt_count = $5, last_error = $6, smtp_message_id = $7, sent_at = $8
     WHERE tenant_id = $1 AND id = $2`,
    [emailId, change.status, change.skip_reason, change.attempt_count, change.last_error, change.smtp_message_id, change.sent_at],
  );
}

/** Deletes the e-mails of these customers, sent or not (a test clock's deletion: their invoices are gone). */
export async function deleteEmailsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM email_messages WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}
