// SQL of the credits module: grants, their append-only ledger, automatic top-up settings.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export type GrantType = 'PAID' | 'PROMOTIONAL';
export type GrantStatus = 'PENDING_PAYMENT' | 'ACTIVE' | 'VOID';
export type GrantSource = 'API' | 'AUTO_TOP_UP';
export type AppliesTo = 'ALL' | 'USAGE' | 'METRICS';
export type EntryType = 'GRANT' | 'CONSUMPTION' | 'EXPIRY' | 'VOID' | 'REFUND';

export interface GrantRow {
  id: string;
  customer_id: string;
  name: string;
  currency: string;
  amount_minor: bigint;
  unit_name: string | null;
  unit_amount: string | null;
  unit_rate: string | null;
  grant_type: GrantType;
  priority: number;
  effective_at: Date;
  expires_at: Date | null;
  applies_to: AppliesTo;
  metric_ids: string[];
  status: GrantStatus;
  source: GrantSource;
  invoice_id: string | null;
  trigger_key: string | null;
  created_at: Date;
  updated_at: Date;
  voided_at: Date | null;
}

/** A grant with its ledger sum (what is left of it). */
export type GrantWithRemaining = GrantRow & { remaining_minor: bigint };

export interface EntryRow {
  seq: bigint;
  id: string;
  customer_id: string;
  grant_id: string;
  entry_type: EntryType;
  amount_minor: bigint;
  currency: string;
  invoice_id: string | null;
  invoice_line_id: string | null;
  effective_at: Date;
  created_at: Date;
}

export interface TopUpSettingsRow {
  customer_id: string;
  enabled: boolean;
  threshold_minor: bigint;
  amount_minor: bigint;
  priority: number;
  expires_after_days: number | null;
  updated_at: Date;
}

const GRANT_COLUMNS = `g.id, g.customer_id, g.name, g.currency, g.amount_minor, g.unit_name, g.unit_amount::text AS unit_amount, g.unit_rate::text AS unit_rate,
  g.grant_type, g.priority, g.effective_at, g.expires_at, g.applies_to, g.metric_ids, g.status, g.source, g.invoice_id, g.trigger_key,
  g.created_at, g.updated_at, g.voided_at`;
/** The grant's ledger sum, as a column of the grant. */
const REMAINING = `coalesce((SELECT sum(e.amount_minor) FROM credit_ledger_entries e WHERE e.tenant_id = g.tenant_id AND e.grant_id = g.id), 0)::int8 AS remaining_minor`;
const ENTRY_COLUMNS = 'seq, id, customer_id, grant_id, entry_type, amount_minor, currency, invoice_id, invoice_line_id, effective_at, created_at';

export async function insertGrant(db: Queryable, tenantId: string, row: GrantRow): Promise<boolean> {
  const inserted = await scoped(db, tenantId).query(
    `INSERT INTO credit_grants (tenant_id, id, customer_id, name, currency, amount_minor, unit_name, unit_amount, unit_rate, grant_type, priority,
       effective_at, expires_at, applies_to, metric_ids, status, source, invoice_id, trigger_key, created_at, updated_at, voided_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
     ON CONFLICT DO NOTHING RETURNING id`,
    [row.id, row.customer_id, row.name, row.currency, row.amount_minor, row.unit_name, row.unit_amount, row.unit_rate, row.grant_type, row.priority,
      row.effective_at, row.expires_at, row.applies_to, row.metric_ids, row.status, row.source, row.invoice_id, row.trigger_key, row.created_at,
      row.updated_at, row.voided_at],
  );
  return inserted.length === 1;
}

export async function setGrantStatus(db: Queryable, tenantId: string, grantId: string, status: GrantStatus, now: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE credit_grants SET status = $3, updated_at = $4, voided_at = CASE WHEN $3 = 'VOID' THEN $4 ELSE voided_at END WHERE tenant_id = $1 AND id = $2`,
    [grantId, status, now],
  );
}

export async function setGrantInvoice(db: Queryable, tenantId: string, grantId: string, invoiceId: string): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE credit_grants SET invoice_id = $3 WHERE tenant_id = $1 AND id = $2`, [grantId, invoiceId]);
}

export async function findGrant(db: Queryable, tenantId: string, grantId: string, lock = false): Promise<GrantWithRemaining | undefined> {
  return scoped(db, tenantId).one<GrantWithRemaining>(
    `SELECT ${GRANT_COLUMNS}, ${REMAINING} FROM credit_grants g WHERE g.tenant_id = $1 AND g.id = $2${lock ? ' FOR UPDATE OF g' : ''}`,
    [grantId],
  );
}

export async function findGrantOfInvoice(db: Queryable, tenantId: string, invoiceId: string): Promise<GrantRow | undefined> {
  return scoped(db, tenantId).one<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM credit_grants g WHERE g.tenant_id = $1 AND g.invoice_id = $2`, [invoiceId]);
}

export async function findGrantByTrigger(db: Queryable, tenantId: string, customerId: string, triggerKey: string): Promise<GrantRow | undefined> {
  return scoped(db, tenantId).one<GrantRow>(
    `SELECT ${GRANT_COLUMNS} FROM credit_grants g WHERE g.tenant_id = $1 AND g.customer_id = $2 AND g.trigger_key = $3`,
    [customerId, triggerKey],
  );
}

/** The customer's ACTIVE grants with their remainders, for consumption and expiry. */
export async function activeGrants(db: Queryable, tenantId: string, customerId: string): Promise<GrantWithRemaining[]> {
  return scoped(db, tenantId).query<GrantWithRemaining>(
    `SELECT ${GRANT_COLUMNS}, ${REMAINING} FROM credit_grants g WHERE g.tenant_id = $1 AND g.customer_id = $2 AND g.status = 'ACTIVE' ORDER BY g.id`,
    [customerId],
  );
}

/** Whether the customer holds any ACTIVE grant (one index probe: most finalized invoices stop here). */
export async function hasActiveGrants(db: Queryable, tenantId: string, customerId: string): Promise<boolean> {
  const row = await scoped(db, tenantId).one<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM credit_grants WHERE tenant_id = $1 AND customer_id = $2 AND status = 'ACTIVE') AS found`,
    [customerId],
  );
  return row?.found ?? false;
}

/** Which of these customers hold an ACTIVE grant (one statement for a finalization batch). */
export async function customersWithActiveGrants(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<Set<string>> {
  if (customerIds.length === 0) return new Set();
  const rows = await scoped(db, tenantId).query<{ customer_id: string }>(
    `SELECT DISTINCT customer_id FROM credit_grants WHERE tenant_id = $1 AND customer_id = ANY($2) AND status = 'ACTIVE'`,
    [customerIds],
  );
  return new Set(rows.map((row) => row.customer_id));
}

/** What the customer's paid grants waiting for payment are worth, in minor units. */
export async function pendingAmount(db: Queryable, tenantId: string, customerId: string): Promise<bigint> {
  const row = await scoped(db, tenantId).one<{ pending_minor: bigint }>(
    `SELECT coalesce(sum(amount_minor), 0)::int8 AS pending_minor FROM credit_grants WHERE tenant_id = $1 AND customer_id = $2 AND status = 'PENDING_PAYMENT'`,
    [customerId],
  );
  return row?.pending_minor ?? 0n;
}

export async function pendingTopUp(db: Queryable, tenantId: string, customerId: string): Promise<GrantRow | undefined> {
  return scoped(db, tenantId).one<GrantRow>(
    `SELECT ${GRANT_COLUMNS} FROM credit_grants g WHERE g.tenant_id = $1 AND g.customer_id = $2 AND g.source = 'AUTO_TOP_UP' AND g.status = 'PENDING_PAYMENT'`,
    [customerId],
  );
}

export async function listGrants(
  db: Queryable, tenantId: string, customerId: string, status: GrantStatus | undefined, page: PageRequest,
): Promise<{ rows: GrantWithRemaining[]; total: number }> {
  return scoped(db, tenantId).page<GrantWithRemaining>(
    { columns: `${GRANT_COLUMNS}, ${REMAINING}`, from: 'credit_grants g', where: 'g.tenant_id = $1 AND g.customer_id = $2 AND ($3::text IS NULL OR g.status = $3)', orderBy: 'g.created_at DESC, g.id DESC' },
    [customerId, status ?? null],
    page,
  );
}

export type NewEntry = Omit<EntryRow, 'seq'>;

export async function insertEntries(db: Queryable, tenantId: string, entries: readonly NewEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await scoped(db, tenantId).query(
    `INSERT INTO credit_ledger_entries (tenant_id, id, customer_id, grant_id, entry_type, amount_minor, currency, invoice_id, invoice_line_id, effective_at, created_at)
     SELECT $1, r.id, r.customer_id, r.grant_id, r.entry_type, r.amount_minor, r.currency, r.invoice_id, r.invoice_line_id, r.effective_at, r.created_at
     FROM jsonb_to_recordset($2::jsonb) AS r(id text, customer_id text, grant_id text, entry_type text, amount_minor int8, currency text,
       invoice_id text, invoice_line_id text, effective_at timestamptz, created_at timestamptz, ord int)
     ORDER BY r.ord`,
    [JSON.stringify(entries.map((e, ord) => ({ ...e, ord, amount_minor: e.amount_minor.toString() })))],
  );
}

export async function listEntries(
  db: Queryable, tenantId: string, customerId: string, filter: { grantId?: string; entryType?: EntryType }, page: PageRequest,
): Promise<{ rows: EntryRow[]; total: number }> {
  return scoped(db, tenantId).page<EntryRow>(
    {
      columns: ENTRY_COLUMNS,
      from: 'credit_ledger_entries',
      where: 'tenant_id = $1 AND customer_id = $2 AND ($3::text IS NULL OR grant_id = $3) AND ($4::text IS NULL OR entry_type = $4)',
      orderBy: 'seq DESC',
    },
    [customerId, filter.grantId ?? null, filter.entryType ?? null],
    page,
  );
}

/** Consumption entries of an invoice with what has been refunded of them already, per grant. */
export async function invoiceConsumption(db: Queryable, tenantId: string, invoiceId: string): Promise<{ grant_id: string; net_minor: bigint }[]> {
  return scoped(db, tenantId).query(
    `SELECT grant_id, sum(amount_minor)::int8 AS net_minor FROM credit_ledger_entries
     WHERE tenant_id = $1 AND invoice_id = $2 AND entry_type IN ('CONSUMPTION', 'REFUND') GROUP BY grant_id ORDER BY min(seq)`,
    [invoiceId],
  );
}

/**
 * The balance: the sum of the customer's ledger entries in force at `at`, and the seq of the last
 * entry (the position automatic top-ups are keyed on). A customer with no entries has 0 and seq 0.
 */
export async function ledgerBalance(db: Queryable, tenantId: string, customerId: string, at: Date): Promise<{ balance_minor: bigint; last_seq: bigint }> {
  const row = await scoped(db, tenantId).one<{ balance_minor: bigint; last_seq: bigint }>(
    `SELECT coalesce(sum(amount_minor) FILTER (WHERE effective_at <= $3), 0)::int8 AS balance_minor, coalesce(max(seq), 0)::int8 AS last_seq
     FROM credit_ledger_entries WHERE tenant_id = $1 AND customer_id = $2`,
    [customerId, at],
  );
  return row ?? { balance_minor: 0n, last_seq: 0n };
}

export async function findTopUpSettings(db: Queryable, tenantId: string, customerId: string): Promise<TopUpSettingsRow | undefined> {
  return scoped(db, tenantId).one<TopUpSettingsRow>(
    `SELECT customer_id, enabled, threshold_minor, amount_minor, priority, expires_after_days, updated_at FROM credit_top_up_settings WHERE tenant_id = $1 AND customer_id = $2`,
    [customerId],
  );
}

export async function upsertTopUpSettings(db: Queryable, tenantId: string, row: TopUpSettingsRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO credit_top_up_settings (tenant_id, customer_id, enabled, threshold_minor, amount_minor, priority, expires_after_days, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (tenant_id, customer_id) DO UPDATE SET enabled = $3, threshold_minor = $4, amount_minor = $5, priority = $6, expires_after_days = $7, updated_at = $8`,
    [row.customer_id, row.enabled, row.threshold_minor, row.amount_minor, row.priority, row.expires_after_days, row.updated_at],
  );
}

/** Deletes everything credits keeps about these customers (a test clock's deletion); returns the grant ids. */
export async function deleteCreditsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<string[]> {
  if (customerIds.length === 0) return [];
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM credit_ledger_entries WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM credit_top_up_settings WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  const grants = await s.query<{ id: string }>(`DELETE FROM credit_grants WHERE tenant_id = $1 AND customer_id = ANY($2::text[]) RETURNING id`, [customerIds]);
  return grants.map((g) => g.id);
}

/**
 * Customers holding an ACTIVE grant whose expiry falls in (from, to], over every tenant (the
 * expiry sweep serves all of them, as the outbox relay does), through the partial index of
 * migration 0901. Keyset-paged on (expires_at, tenant_id, id) after `after`.
 */
export async function grantsExpiringBetween(
  db: Queryable, from: Date, to: Date, limit: number, after?: { expires_at: Date; tenant_id: string; id: string },
): Promise<{ tenant_id: string; customer_id: string; expires_at: Date; id: string }[]> {
  const result = await db.query<{ tenant_id: string; customer_id: string; expires_at: Date; id: string }>(
    `SELECT tenant_id, customer_id, expires_at, id FROM credit_grants
     WHERE status = 'ACTIVE' AND expires_at IS NOT NULL AND expires_at > $1 AND expires_at <= $2
       AND ($4::timestamptz IS NULL OR (expires_at, tenant_id, id) > ($4, $5, $6))
     ORDER BY expires_at, tenant_id, id LIMIT $3`,
    [from, to, limit, after?.expires_at ?? null, after?.tenant_id ?? null, after?.id ?? null],
  );
  return result.rows;
}
