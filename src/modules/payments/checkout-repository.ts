// SQL of the hosted checkout's payments (payment_attempts rows with occasion CHECKOUT, owned by
// this module): an attempt names its session until the first invoice exists, then that invoice.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { ATTEMPT_COLUMNS, type AttemptRow } from './repository.js';

export async function insertCheckoutAttempt(db: Queryable, row: AttemptRow, sessionId: string): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_attempts (tenant_id, id, invoice_id, customer_id, payment_method_id, provider, occasion, retry_number, amount_minor, currency, status, idempotency_key,
       provider_payment_id, failure_code, failure_message, requested_at, settled_at, created_at, updated_at, checkout_session_id)
     VALUES ($1, $2, NULL, $3, $4, $5, 'CHECKOUT', 0, $6, $7, 'PENDING', $8, NULL, NULL, NULL, NULL, NULL, $9, $9, $10)`,
    [row.id, row.customer_id, row.payment_method_id, row.provider, row.amount_minor, row.currency, row.idempotency_key, row.created_at, sessionId],
  );
}

/** A session's checkout attempts, oldest first. */
export function attemptsOfSession(db: Queryable, tenantId: string, sessionId: string): Promise<AttemptRow[]> {
  return scoped(db, tenantId).query<AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM payment_attempts WHERE tenant_id = $1 AND checkout_session_id = $2 ORDER BY created_at, id`,
    [sessionId],
  );
}

/** The session a checkout attempt belongs to. */
export async function sessionOfAttempt(db: Queryable, tenantId: string, attemptId: string): Promise<string | undefined> {
  const row = await scoped(db, tenantId).one<{ checkout_session_id: string | null }>(`SELECT checkout_session_id FROM payment_attempts WHERE tenant_id = $1 AND id = $2`, [attemptId]);
  return row?.checkout_session_id ?? undefined;
}

/** The first invoice now carries the checkout's payment. */
export async function linkAttemptInvoice(db: Queryable, tenantId: string, attemptId: string, invoiceId: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE payment_attempts SET invoice_id = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`, [attemptId, invoiceId, at]);
}
