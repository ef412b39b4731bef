// SQL of the payments module: the only code naming its tables (src/db/table-owners.ts).
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { ProviderName, ProviderPaymentStatus } from '../../adapters/payments/provider.js';
import type { DunningFinalAction } from '../../domain/index.js';
import { onTestClockSql } from '../customers/index.js';

export type ConnectionStatus = 'UNVERIFIED' | 'VERIFIED' | 'INVALID';

export interface ConnectionRow {
  id: string;
  tenant_id: string;
  provider: 'stripe' | 'gocardless';
  secret_key_sealed: string;
  secret_key_hint: string;
  webhook_secret_sealed: string | null;
  /** Stripe's publishable key (public): Stripe Elements on the hosted checkout page. */
  publishable_key: string | null;
  status: ConnectionStatus;
  last_error: string | null;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const CONNECTION_COLUMNS = 'id, tenant_id, provider, secret_key_sealed, secret_key_hint, webhook_secret_sealed, publishable_key, status, last_error, verified_at, created_at, updated_at';

export async function insertConnection(db: Queryable, row: ConnectionRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_provider_connections (tenant_id, id, provider, secret_key_sealed, secret_key_hint, webhook_secret_sealed, status, last_error, verified_at, created_at, updated_at, publishable_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [row.id, row.provider, row.secret_key_sealed, row.secret_key_hint, row.webhook_secret_sealed, row.status, row.last_error, row.verified_at, row.created_at, row.updated_at, row.publishable_key],
  );
}

export function listConnections(db: Queryable, tenantId: string): Promise<ConnectionRow[]> {
  return scoped(db, tenantId).query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM payment_provider_connections WHERE tenant_id = $1 ORDER BY created_at, id`);
}

export function findConnection(db: Queryable, tenantId: string, id: string): Promise<ConnectionRow | undefined> {
  return scoped(db, tenantId).one<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM payment_provider_connections WHERE tenant_id = $1 AND id = $2`, [id]);
}

/** A connection by id alone: provider webhooks arrive without a tenant, their URL names the connection. */
export async function findConnectionById(db: Queryable, id: string): Promise<ConnectionRow | undefined> {
  const result = await db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM payment_provider_connections WHERE id = $1`, [id]);
  return result.rows[0];
}

export async function setConnectionStatus(db: Queryable, tenantId: string, id: string, status: ConnectionStatus, lastError: string | null, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE payment_provider_connections SET status = $3, last_error = $4, verified_at = CASE WHEN $3 = 'VERIFIED' THEN $5::timestamptz ELSE verified_at END, updated_at = $5
     WHERE tenant_id = $1 AND id = $2`,
    [id, status, lastError, at],
  );
}

export async function deleteConnection(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(`DELETE FROM payment_provider_connections WHERE tenant_id = $1 AND id = $2 RETURNING id`, [id]);
  return rows.length > 0;
}

export async function findProviderCustomer(db: Queryable, tenantId: string, customerId: string, provider: ProviderName): Promise<string | undefined> {
  const row = await scoped(db, tenantId).one<{ provider_customer_id: string }>(
    `SELECT provider_customer_id FROM payment_customers WHERE tenant_id = $1 AND customer_id = $2 AND provider = $3`,
    [customerId, provider],
  );
  return row?.provider_customer_id;
}

export async function insertProviderCustomer(db: Queryable, tenantId: string, customerId: string, provider: ProviderName, providerCustomerId: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO payment_customers (tenant_id, customer_id, provider, provider_customer_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [customerId, provider, providerCustomerId, at],
  );
}

export interface PaymentMethodRow {
  id: string;
  customer_id: string;
  provider: ProviderName;
  provider_method_id: string;
  method_type: 'CARD' | 'DIRECT_DEBIT';
  card_brand: string | null;
  card_last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  /** DIRECT_DEBIT only (null for cards). */
  mandate_scheme: string | null;
  mandate_reference: string | null;
  bank_name: string | null;
  account_number_ending: string | null;
  created_at: Date;
}

const METHOD_COLUMNS =
  'id, customer_id, provider, provider_method_id, method_type, card_brand, card_last4, exp_month, exp_year, mandate_scheme, mandate_reference, bank_name, account_number_ending, created_at';

export async function insertPaymentMethod(db: Queryable, tenantId: string, row: PaymentMethodRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO payment_methods (tenant_id, id, customer_id, provider, provider_method_id, method_type, card_brand, card_last4, exp_month, exp_year,
       mandate_scheme, mandate_reference, bank_name, account_number_ending, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [row.id, row.customer_id, row.provider, row.provider_method_id, row.method_type, row.card_brand, row.card_last4, row.exp_month, row.exp_year,
      row.mandate_scheme, row.mandate_reference, row.bank_name, row.account_number_ending, row.created_at],
  );
}

export function listPaymentMethods(db: Queryable, tenantId: string, customerId: string): Promise<PaymentMethodRow[]> {
  return scoped(db, tenantId).query<PaymentMethodRow>(
    `SELECT ${METHOD_COLUMNS} FROM payment_methods WHERE tenant_id = $1 AND customer_id = $2 AND detached_at IS NULL ORDER BY created_at, id`,
    [customerId],
  );
}

export function findPaymentMethod(db: Queryable, tenantId: string, id: string): Promise<PaymentMethodRow | undefined> {
  return scoped(db, tenantId).one<PaymentMethodRow>(`SELECT ${METHOD_COLUMNS} FROM payment_methods WHERE tenant_id = $1 AND id = $2 AND detached_at IS NULL`, [id]);
}

/** The live methods of a tenant saved on this provider's method (a mandate may back one per customer). */
export function methodsByProviderId(db: Queryable, tenantId: string, provider: ProviderName, providerMethodId: string): Promise<PaymentMethodRow[]> {
  return scoped(db, tenantId).query<PaymentMethodRow>(
    `SELECT ${METHOD_COLUMNS} FROM payment_methods WHERE tenant_id = $1 AND provider = $2 AND provider_method_id = $3 AND detached_at IS NULL`,
    [provider, providerMethodId],
  );
}

export async function detachPaymentMethod(db: Queryable, tenantId: string, id: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE payment_methods SET detached_at = $3 WHERE tenant_id = $1 AND id = $2`, [id, at]);
  await scoped(db, tenantId).query(`UPDATE payment_customer_settings SET default_payment_method_id = NULL, updated_at = $3 WHERE tenant_id = $1 AND default_payment_method_id = $2`, [id, at]);
}

export interface CustomerSettingsRow {
  auto_charge: boolean;
  default_payment_method_id: string | null;
}

export async function findCustomerSettings(db: Queryable, tenantId: string, customerId: string): Promise<CustomerSettingsRow> {
  const row = await scoped(db, tenantId).one<CustomerSettingsRow>(
    `SELECT auto_charge, default_payment_method_id FROM payment_customer_settings WHERE tenant_id = $1 AND customer_id = $2`,
    [customerId],
  );
  return row ?? { auto_charge: true, default_payment_method_id: null };
}

export async function upsertCustomerSettings(db: Queryable, tenantId: string, customerId: string, settings: CustomerSettingsRow, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO payment_customer_settings (tenant_id, customer_id, auto_charge, default_payment_method_id, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, customer_id) DO UPDATE SET auto_charge = EXCLUDED.auto_charge, default_payment_method_id = EXCLUDED.default_payment_method_id, updated_at = EXCLUDED.updated_at`,
    [customerId, settings.auto_charge, settings.default_payment_method_id, at],
  );
}

export type AttemptStatus = ProviderPaymentStatus;

export interface AttemptRow {
  id: string;
  tenant_id: string;
  /** null only for a CHECKOUT attempt until its subscription's first invoice exists (checkout-payments.ts). */
  invoice_id: string | null;
  customer_id: string;
  payment_method_id: string | null;
  provider: ProviderName;
  occasion: 'FINALIZATION' | 'PAY_PAGE' | 'RETRY' | 'CHECKOUT';
  /** n for dunning's n-th retry; 0 for the finalization charge and pay-page payments. */
  retry_number: number;
  amount_minor: bigint;
  currency: string;
  status: AttemptStatus;
  idempotency_key: string;
  provider_payment_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  requested_at: Date | null;
  settled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ATTEMPT_COLUMNS =
  'id, tenant_id, invoice_id, customer_id, payment_method_id, provider, occasion, retry_number, amount_minor, currency, status, idempotency_key, provider_payment_id, failure_code, failure_message, requested_at, settled_at, created_at, updated_at';

// The partial unique indexes (migrations 0810, 0812): one FINALIZATION attempt per invoice, one
// RETRY attempt per retry number; PAY_PAGE attempts never conflict on the first.
const FINALIZATION_KEY = `(tenant_id, invoice_id, occasion) WHERE occasion = 'FINALIZATION'`;
const RETRY_KEY = `(tenant_id, invoice_id, retry_number) WHERE occasion = 'RETRY'`;

/** Inserts the attempt unless the invoice already has one for this occasion (and retry number); true when inserted. */
export async function insertAttempt(db: Queryable, row: AttemptRow): Promise<boolean> {
  const rows = await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_attempts (tenant_id, id, invoice_id, customer_id, payment_method_id, provider, occasion, retry_number, amount_minor, currency, status, idempotency_key,
       provider_payment_id, failure_code, failure_message, requested_at, settled_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     ON CONFLICT ${row.occasion === 'RETRY' ? RETRY_KEY : FINALIZATION_KEY} DO NOTHING RETURNING id`,
    [row.id, row.invoice_id, row.customer_id, row.payment_method_id, row.provider, row.occasion, row.retry_number, row.amount_minor, row.currency, row.status, row.idempotency_key,
      row.provider_payment_id, row.failure_code, row.failure_message, row.requested_at, row.settled_at, row.created_at, row.updated_at],
  );
  return rows.length > 0;
}

export function findAttempt(db: Queryable, tenantId: string, id: string, lock = false): Promise<AttemptRow | undefined> {
  return scoped(db, tenantId).one<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM payment_attempts WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export function findAttemptByProviderPayment(db: Queryable, tenantId: string, provider: ProviderName, providerPaymentId: string): Promise<AttemptRow | undefined> {
  return scoped(db, tenantId).one<AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM payment_attempts WHERE tenant_id = $1 AND provider = $2 AND provider_payment_id = $3 FOR UPDATE`,
    [provider, providerPaymentId],
  );
}

export function listAttemptsOfInvoice(db: Queryable, tenantId: string, invoiceId: string): Promise<AttemptRow[]> {
  return scoped(db, tenantId).query<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM payment_attempts WHERE tenant_id = $1 AND invoice_id = $2 ORDER BY created_at, id`, [invoiceId]);
}

export async function updateAttempt(db: Queryable, row: AttemptRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `UPDATE payment_attempts SET status = $3, provider_payment_id = $4, failure_code = $5, failure_message = $6, requested_at = $7, settled_at = $8, updated_at = $9
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.status, row.provider_payment_id, row.failure_code, row.failure_message, row.requested_at, row.settled_at, row.updated_at],
  );
}

/**
 * PENDING attempts of every tenant the provider was asked about before `before` (crashed between
 * the request and our write, or still processing at the provider): the reconciler's work list.
 */
export async function openAttempts(db: Queryable, before: Date, limit: number): Promise<{ tenant_id: string; id: string }[]> {
  const result = await db.query<{ tenant_id: string; id: string }>(
    `SELECT tenant_id, id FROM payment_attempts WHERE status = 'PENDING' AND requested_at IS NOT NULL AND requested_at <= $1 ORDER BY requested_at LIMIT $2`,
    [before, limit],
  );
  return result.rows;
}

/** Marks a provider event processed; false when it already was (a replay). */
export async function claimWebhookEvent(db: Queryable, tenantId: string, provider: ProviderName, eventId: string, eventType: string, at: Date): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `INSERT INTO payment_webhook_events (tenant_id, provider, event_id, event_type, processed_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING event_id`,
    [provider, eventId, eventType, at],
  );
  return rows.length > 0;
}

export interface DunningSettingsRow {
  retry_days: number[];
  final_action: DunningFinalAction;
}

export async function findDunningSettings(db: Queryable, tenantId: string): Promise<DunningSettingsRow | undefined> {
  return scoped(db, tenantId).one<DunningSettingsRow>(`SELECT retry_days, final_action FROM payment_dunning_settings WHERE tenant_id = $1`);
}

export async function upsertDunningSettings(db: Queryable, tenantId: string, row: DunningSettingsRow, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO payment_dunning_settings (tenant_id, retry_days, final_action, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id) DO UPDATE SET retry_days = EXCLUDED.retry_days, final_action = EXCLUDED.final_action, updated_at = EXCLUDED.updated_at`,
    [row.retry_days, row.final_action, at],
  );
}

export type DunningStatus = 'ACTIVE' | 'EXHAUSTED' | 'RECOVERED' | 'STOPPED';

export interface DunningRow {
  tenant_id: string;
  invoice_id: string;
  customer_id: string;
  subscription_id: string | null;
  status: DunningStatus;
  failed_at: Date;
  retry_days: number[];
  final_action: DunningFinalAction;
  retries_done: number;
  next_retry_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const DUNNING_COLUMNS = 'tenant_id, invoice_id, customer_id, subscription_id, status, failed_at, retry_days, final_action, retries_done, next_retry_at, created_at, updated_at';

export function findDunning(db: Queryable, tenantId: string, invoiceId: string, lock = false): Promise<DunningRow | undefined> {
  return scoped(db, tenantId).one<DunningRow>(`SELECT ${DUNNING_COLUMNS} FROM payment_dunnings WHERE tenant_id = $1 AND invoice_id = $2${lock ? ' FOR UPDATE' : ''}`, [invoiceId]);
}

export async function insertDunning(db: Queryable, row: DunningRow): Promise<boolean> {
  const rows = await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_dunnings (tenant_id, invoice_id, customer_id, subscription_id, status, failed_at, retry_days, final_action, retries_done, next_retry_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING invoice_id`,
    [row.invoice_id, row.customer_id, row.subscription_id, row.status, row.failed_at, row.retry_days, row.final_action, row.retries_done, row.next_retry_at, row.created_at, row.updated_at],
  );
  return rows.length > 0;
}

export async function updateDunning(db: Queryable, row: DunningRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `UPDATE payment_dunnings SET status = $3, retries_done = $4, next_retry_at = $5, updated_at = $6 WHERE tenant_id = $1 AND invoice_id = $2`,
    [row.invoice_id, row.status, row.retries_done, row.next_retry_at, row.updated_at],
  );
}

/** Dunnings of every tenant whose next retry is due by `now` (the retry sweep's work list). */
/**
 * ACTIVE dunnings whose next retry is due by `now`, of one population: customers on no test
 * clock (the periodic sweep), or the customers of one tenant's test clock (its advance).
 */
export async function dueDunnings(db: Queryable, now: Date, limit: number, clock: { tenantId: string; testClockId: string } | null = null): Promise<{ tenant_id: string; invoice_id: string }[]> {
  const result = await db.query<{ tenant_id: string; invoice_id: string }>(
    `SELECT tenant_id, invoice_id FROM payment_dunnings
     WHERE status = 'ACTIVE' AND next_retry_at IS NOT NULL AND next_retry_at <= $1 AND ($3::text IS NULL OR tenant_id = $3) AND ${onTestClockSql('payment_dunnings', '$4')}
     ORDER BY next_retry_at, invoice_id LIMIT $2`,
    [now, limit, clock?.tenantId ?? null, clock?.testClockId ?? null],
  );
  return result.rows;
}

/** The earliest retry still to come of a test clock's customers (a stop of its advance), or null. */
export async function nextDunningRetryOfTestClock(db: Queryable, tenantId: string, testClockId: string): Promise<Date | null> {
  const row = await scoped(db, tenantId).one<{ at: Date | null }>(
    `SELECT min(next_retry_at) AS at FROM payment_dunnings WHERE tenant_id = $1 AND status = 'ACTIVE' AND ${onTestClockSql('payment_dunnings', '$2')}`,
    [testClockId],
  );
  return row?.at ?? null;
}

/** How many other invoices of the subscription are still overdue (dunning open or exhausted and unpaid). */
export async function countOverdueOfSubscription(db: Queryable, tenantId: string, subscriptionId: string, exceptInvoiceId: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ n: number }>(
    `SELECT count(*)::int AS n FROM payment_dunnings WHERE tenant_id = $1 AND subscription_id = $2 AND invoice_id <> $3 AND status IN ('ACTIVE', 'EXHAUSTED')`,
    [subscriptionId, exceptInvoiceId],
  );
  return row?.n ?? 0;
}

export type RefundStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface RefundRow {
  id: string;
  tenant_id: string;
  credit_note_id: string;
  attempt_id: string;
  provider: ProviderName;
  amount_minor: bigint;
  currency: string;
  status: RefundStatus;
  idempotency_key: string;
  provider_refund_id: string | null;
  requested_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const REFUND_COLUMNS = 'id, tenant_id, credit_note_id, attempt_id, provider, amount_minor, currency, status, idempotency_key, provider_refund_id, requested_at, created_at, updated_at';

/** Inserts the refund unless this note already has one for this payment; true when inserted. */
export async function insertRefund(db: Queryable, row: RefundRow): Promise<boolean> {
  const rows = await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_refunds (tenant_id, id, credit_note_id, attempt_id, provider, amount_minor, currency, status, idempotency_key, provider_refund_id, requested_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (tenant_id, credit_note_id, attempt_id) DO NOTHING RETURNING id`,
    [row.id, row.credit_note_id, row.attempt_id, row.provider, row.amount_minor, row.currency, row.status, row.idempotency_key, row.provider_refund_id, row.requested_at, row.created_at, row.updated_at],
  );
  return rows.length > 0;
}

export function findRefund(db: Queryable, tenantId: string, id: string, lock = false): Promise<RefundRow | undefined> {
  return scoped(db, tenantId).one<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM payment_refunds WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export function refundsOfCreditNote(db: Queryable, tenantId: string, creditNoteId: string): Promise<RefundRow[]> {
  return scoped(db, tenantId).query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM payment_refunds WHERE tenant_id = $1 AND credit_note_id = $2 ORDER BY created_at, id`, [creditNoteId]);
}

/** What is already refunded (or being refunded) of each attempt of an invoice. */
export async function refundedByAttempt(db: Queryable, tenantId: string, attemptIds: string[]): Promise<Map<string, bigint>> {
  if (attemptIds.length === 0) return new Map();
  const rows = await scoped(db, tenantId).query<{ attempt_id: string; total: bigint }>(
    `SELECT attempt_id, sum(amount_minor)::bigint AS total FROM payment_refunds WHERE tenant_id = $1 AND attempt_id = ANY($2) AND status <> 'FAILED' GROUP BY attempt_id`,
    [attemptIds],
  );
  return new Map(rows.map((r) => [r.attempt_id, BigInt(r.total)]));
}

export async function updateRefund(db: Queryable, row: RefundRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `UPDATE payment_refunds SET status = $3, provider_refund_id = $4, requested_at = $5, updated_at = $6 WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.status, row.provider_refund_id, row.requested_at, row.updated_at],
  );
}

/**
 * Deletes what payments keeps about these customers and their invoices (a test clock's deletion,
 * sandbox only): pay links, dunnings, refunds, attempts, saved methods, settings and provider
 * customers. Children first: refunds name attempts. Returns the deleted attempts' ids: the
 * payment.* events are about them.
 */
export async function deletePaymentsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[], invoiceIds: readonly string[]): Promise<string[]> {
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM invoice_pay_links WHERE tenant_id = $1 AND invoice_id = ANY($2::text[])`, [invoiceIds]);
  await s.query(`DELETE FROM payment_dunnings WHERE tenant_id = $1 AND (customer_id = ANY($2::text[]) OR invoice_id = ANY($3::text[]))`, [customerIds, invoiceIds]);
  await s.query(
    `DELETE FROM payment_refunds WHERE tenant_id = $1 AND attempt_id IN (SELECT id FROM payment_attempts WHERE tenant_id = $1 AND customer_id = ANY($2::text[]))`,
    [customerIds],
  );
  const attempts = await s.query<{ id: string }>(`DELETE FROM payment_attempts WHERE tenant_id = $1 AND customer_id = ANY($2::text[]) RETURNING id`, [customerIds]);
  await s.query(`DELETE FROM payment_customer_settings WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM payment_methods WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM payment_customers WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  return attempts.map((row) => row.id);
}
