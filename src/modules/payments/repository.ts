// SQL of the payments module: the only code naming its tables (src/db/table-owners.ts).
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { ProviderName, ProviderPaymentStatus } from '../../adapters/payments/provider.js';

export type ConnectionStatus = 'UNVERIFIED' | 'VERIFIED' | 'INVALID';

export interface ConnectionRow {
  id: string;
  tenant_id: string;
  provider: 'stripe' | 'gocardless';
  secret_key_sealed: string;
  secret_key_hint: string;
  webhook_secret_sealed: string | null;
  status: ConnectionStatus;
  last_error: string | null;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const CONNECTION_COLUMNS = 'id, tenant_id, provider, secret_key_sealed, secret_key_hint, webhook_secret_sealed, status, last_error, verified_at, created_at, updated_at';

export async function insertConnection(db: Queryable, row: ConnectionRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_provider_connections (tenant_id, id, provider, secret_key_sealed, secret_key_hint, webhook_secret_sealed, status, last_error, verified_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [row.id, row.provider, row.secret_key_sealed, row.secret_key_hint, row.webhook_secret_sealed, row.status, row.last_error, row.verified_at, row.created_at, row.updated_at],
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
  invoice_id: string;
  customer_id: string;
  payment_method_id: string | null;
  provider: ProviderName;
  occasion: 'FINALIZATION' | 'PAY_PAGE';
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

const ATTEMPT_COLUMNS =
  'id, tenant_id, invoice_id, customer_id, payment_method_id, provider, occasion, amount_minor, currency, status, idempotency_key, provider_payment_id, failure_code, failure_message, requested_at, settled_at, created_at, updated_at';

/** Inserts the attempt unless the invoice already has one for this occasion; true when inserted. */
export async function insertAttempt(db: Queryable, row: AttemptRow): Promise<boolean> {
  const rows = await scoped(db, row.tenant_id).query(
    `INSERT INTO payment_attempts (tenant_id, id, invoice_id, customer_id, payment_method_id, provider, occasion, amount_minor, currency, status, idempotency_key,
       provider_payment_id, failure_code, failure_message, requested_at, settled_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (tenant_id, invoice_id, occasion) WHERE occasion = 'FINALIZATION' DO NOTHING RETURNING id`,
    [row.id, row.invoice_id, row.customer_id, row.payment_method_id, row.provider, row.occasion, row.amount_minor, row.currency, row.status, row.idempotency_key,
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

/**
 * Deletes what payments keeps about these customers and their invoices (a test clock's deletion,
 * sandbox only): pay links, attempts, saved methods, settings and provider customers.
 */
export async function deletePaymentsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[], invoiceIds: readonly string[]): Promise<void> {
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM invoice_pay_links WHERE tenant_id = $1 AND invoice_id = ANY($2::text[])`, [invoiceIds]);
  await s.query(`DELETE FROM payment_attempts WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM payment_customer_settings WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM payment_methods WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  await s.query(`DELETE FROM payment_customers WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}
