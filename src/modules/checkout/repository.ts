import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export const CHECKOUT_STATUSES = ['CREATED', 'AWAITING_PAYMENT', 'COMPLETED', 'EXPIRED', 'CANCELLED'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** The subscription parameters a session carries until completion (subscription create fields). */
export interface SessionParams {
  end_date: string | null;
  add_ons: { add_on_id: string; quantity?: number; customization?: Record<string, unknown> | null }[];
  price_components: Record<string, unknown> | null;
  invoice_memo: string | null;
  purchase_order: string | null;
  auto_advance_invoices: boolean | null;
  charge_automatically: boolean | null;
}

export interface SessionRow {
  id: string;
  customer_id: string;
  plan_version_id: string;
  checkout_type: 'SELF_SERVE';
  status: CheckoutStatus;
  subscription_params: SessionParams;
  start_date: string | null;
  billing_start_date: string | null;
  billing_day_anchor: number | null;
  net_terms: number | null;
  trial_duration_days: number | null;
  coupon_code: string | null;
  coupon_ids: string[];
  success_url: string | null;
  cancel_url: string | null;
  payment_methods_config: Record<string, unknown> | null;
  metadata: unknown;
  price_fingerprint: string;
  payment_reference: string | null;
  expires_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  subscription_id: string | null;
  /** The hosted page's link (page-links.ts): its nonce, and the hash its token is looked up by. */
  page_nonce: string | null;
  page_token_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

const FIELDS: (keyof SessionRow)[] = [
  'id', 'customer_id', 'plan_version_id', 'checkout_type', 'status', 'subscription_params', 'start_date', 'billing_start_date',
  'billing_day_anchor', 'net_terms', 'trial_duration_days', 'coupon_code', 'coupon_ids', 'success_url', 'cancel_url',
  'payment_methods_config', 'metadata', 'price_fingerprint', 'payment_reference', 'expires_at', 'completed_at', 'cancelled_at',
  'subscription_id', 'page_nonce', 'page_token_hash', 'created_at', 'updated_at',
];
const JSON_FIELDS = new Set<keyof SessionRow>(['subscription_params', 'coupon_ids', 'payment_methods_config', 'metadata']);
const COLUMNS = FIELDS.join(', ');

const values = (row: SessionRow) => FIELDS.map((f) => (JSON_FIELDS.has(f) && row[f] !== null && row[f] !== undefined ? JSON.stringify(row[f]) : row[f] ?? null));

export async function insertSession(db: Queryable, tenantId: string, row: SessionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO checkout_sessions (tenant_id, ${COLUMNS}) VALUES ($1, ${FIELDS.map((_, i) => `$${i + 2}`).join(', ')})`,
    values(row),
  );
}

/** Writes the fields that move after creation. */
export async function updateSession(db: Queryable, tenantId: string, row: SessionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE checkout_sessions SET status = $3, payment_reference = $4, completed_at = $5, cancelled_at = $6, subscription_id = $7, updated_at = $8
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.status, row.payment_reference, row.completed_at, row.cancelled_at, row.subscription_id, row.updated_at],
  );
}

/** A coupon code given on the hosted page replaces the session's, with the price it gives. */
export async function updateCoupon(db: Queryable, tenantId: string, row: SessionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE checkout_sessions SET coupon_code = $3, price_fingerprint = $4, updated_at = $5 WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.coupon_code, row.price_fingerprint, row.updated_at],
  );
}

/** The session a hosted page token opens, by the token's hash; crosses tenants by design (the holder does not say its tenant). */
export async function findByPageToken(db: Queryable, tokenHash: string): Promise<{ tenant_id: string; id: string } | undefined> {
  const result = await db.query<{ tenant_id: string; id: string }>(`SELECT tenant_id, id FROM checkout_sessions WHERE page_token_hash = $1`, [tokenHash]);
  return result.rows[0];
}

export async function findSession(db: Queryable, tenantId: string, id: string, lock = false): Promise<SessionRow | undefined> {
  return scoped(db, tenantId).one<SessionRow>(`SELECT ${COLUMNS} FROM checkout_sessions WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export async function listSessions(
  db: Queryable,
  tenantId: string,
  filter: { customerId?: string; status?: CheckoutStatus },
  page: PageRequest,
): Promise<{ rows: SessionRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR customer_id = $2) AND ($3::text IS NULL OR status = $3)`;
  const params = [filter.customerId ?? null, filter.status ?? null];
  return scoped(db, tenantId).page<SessionRow>({ columns: COLUMNS, from: 'checkout_sessions', where, orderBy: `created_at DESC, id DESC` }, params, page);
}

/** Marks the tenant's open sessions whose deadline passed as EXPIRED; returns their ids. */
export async function expireDue(db: Queryable, tenantId: string, now: Date): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `UPDATE checkout_sessions SET status = 'EXPIRED', updated_at = $2
     WHERE tenant_id = $1 AND status = 'CREATED' AND expires_at IS NOT NULL AND expires_at <= $2 RETURNING id`,
    [now],
  );
  return rows.map((r) => r.id);
}

/** Deletes the checkout sessions of these customers (a test clock's deletion, before their subscriptions). */
export async function deleteSessionsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM checkout_sessions WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}
