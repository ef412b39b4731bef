import type { Pool, Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import { inTestClockPopulationSql, onTestClockSql } from '../customers/index.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';
import type { EInvoiceFormat, RuleFailure } from '../../adapters/einvoice/index.js';

export type InvoiceStatus = 'DRAFT' | 'FINALIZED' | 'VOID' | 'UNCOLLECTIBLE';
export type InvoicePaymentStatus = 'UNPAID' | 'PARTIALLY_PAID' | 'PAID';
export type InvoiceType = 'RECURRING' | 'ONE_OFF' | 'ADJUSTMENT' | 'USAGE_THRESHOLD';

/** On a USAGE_THRESHOLD invoice: the crossing it bills (docs/credits-and-alerts.md, "Spend thresholds"). */
export interface UsageThresholdCrossing {
  /** 1 for the first level reached in the period, 2 for the second... */
  crossing: number;
  /** The level reached, decimal string: a fixed amount, or the highest fixed plus steps. */
  level: string;
  /** The threshold as configured. */
  amount: string;
  recurring: boolean;
  threshold_display_name: string | null;
}
export const INVOICE_STATUSES: readonly InvoiceStatus[] = ['DRAFT', 'FINALIZED', 'UNCOLLECTIBLE', 'VOID'];

export interface InvoiceRow {
  id: string;
  invoicing_entity_id: string;
  customer_id: string;
  subscription_id: string | null;
  invoice_type: InvoiceType;
  status: InvoiceStatus;
  payment_status: InvoicePaymentStatus;
  invoice_number: string | null;
  currency: string;
  invoice_date: string;
  period_start: string | null;
  period_end: string | null;
  due_date: string | null;
  net_terms: number;
  subtotal_minor: bigint;
  subtotal_recurring_minor: bigint;
  discount_minor: bigint;
  tax_minor: bigint;
  total_minor: bigint;
  applied_credits_minor: bigint;
  amount_due_minor: bigint;
  amount_paid_minor: bigint;
  credit_carried_forward_minor: bigint;
  /** Paid from prepaid credit grants at finalization (after tax), one entry per grant (docs/credits-and-alerts.md). */
  prepaid_credits_minor: bigint;
  prepaid_credits: PrepaidCreditLine[];
  tax_inclusive: boolean;
  customer_details: Record<string, unknown>;
  seller_details: Record<string, unknown>;
  coupons: { coupon_id: string; name: string; total_minor: string }[];
  memo: string | null;
  purchase_order: string | null;
  reference: string | null;
  plan_name: string | null;
  finalize_after: Date | null;
  pdf_document_id: string | null;
  created_at: Date;
  updated_at: Date;
  finalized_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  marked_as_uncollectible_at: Date | null;
  /** USAGE_THRESHOLD invoices only (absent on rows built before they are stored: null). */
  usage_threshold?: UsageThresholdCrossing | null;
  /** Whether finalization charges it: null follows the customer's payment setting (payments). */
  auto_charge: boolean | null;
  /**
   * Custom property values (docs/custom-properties.md), the only thing a finalized invoice may
   * still change; absent on rows built before they are stored (the INSERT sets the defaults).
   */
  custom_properties?: CustomPropertyValues;
}

/** One grant's deduction on an invoice: amount in minor units, as a decimal string of digits (jsonb keeps no bigint). */
export interface PrepaidCreditLine {
  grant_id: string;
  name: string;
  amount_minor: string;
}

export interface InvoiceLineRow {
  id: string;
  invoice_id: string;
  line_no: number;
  name: string;
  description: string | null;
  category: string;
  quantity: string | null;
  unit_price: string | null;
  start_date: string;
  end_date: string;
  amount_minor: bigint;
  discount_minor: bigint;
  taxable_minor: bigint;
  tax_rate: string;
  tax_treatment: string;
  tax_country: string | null;
  tax_minor: bigint;
  total_minor: bigint;
  metric_id: string | null;
  /** The subscription fee the line bills (threshold invoices are deducted per fee at period end). */
  component_id?: string | null;
}

export interface InvoiceSubLineRow {
  id: string;
  invoice_line_id: string;
  position: number;
  name: string;
  quantity: string;
  unit_price: string;
  total_minor: bigint;
  attributes: Record<string, unknown> | null;
}

export interface TaxBreakdownDbRow {
  position: number;
  name: string;
  treatment: string;
  tax_rate: string;
  country: string | null;
  taxable_minor: bigint;
  tax_minor: bigint;
}

/** The e-invoicing outcome of an invoice or credit note (table e_invoices, docs/einvoicing.md). */
export interface EInvoiceRow {
  object_id: string;
  object_kind: 'INVOICE' | 'CREDIT_NOTE';
  format: EInvoiceFormat;
  status: 'VALID' | 'INVALID';
  errors: RuleFailure[];
  xml_document_id: string;
  created_at: Date;
}

/** An invoice with everything the API and the PDF show. */
export interface InvoiceDetail {
  invoice: InvoiceRow;
  lines: (InvoiceLineRow & { sub_lines: InvoiceSubLineRow[] })[];
  taxBreakdown: TaxBreakdownDbRow[];
  transactions: PaymentTransactionRow[];
  /** The e-invoicing outcome (docs/einvoicing.md); absent on invoices not read from the database (previews). */
  eInvoice?: EInvoiceRow | null;
}

export interface PaymentTransactionRow {
  id: string;
  invoice_id: string;
  amount_minor: bigint;
  currency: string;
  status: 'READY' | 'PENDING' | 'SETTLED' | 'CANCELLED' | 'FAILED' | 'REFUNDED';
  payment_type: 'PAYMENT' | 'REFUND';
  provider_transaction_id: string | null;
  error: string | null;
  processed_at: Date | null;
  created_at: Date;
}

/** `bankLineKey`: the key of the bank line a bank transfer was recorded from (unique per tenant), else null. */
export async function insertPaymentTransaction(db: Queryable, tenantId: string, row: PaymentTransactionRow, bankLineKey: string | null = null): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO payment_transactions (tenant_id, id, invoice_id, amount_minor, currency, status, payment_type, provider_transaction_id, error, processed_at, created_at, bank_line_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [row.id, row.invoice_id, row.amount_minor, row.currency, row.status, row.payment_type, row.provider_transaction_id, row.error, row.processed_at, row.created_at, bankLineKey],
  );
}

/** The SETTLED payment of an invoice recorded with this provider payment id, locked; undefined once reversed. */
export async function lockSettledPayment(db: Queryable, tenantId: string, invoiceId: string, providerTransactionId: string): Promise<{ id: string; amount_minor: bigint } | undefined> {
  return scoped(db, tenantId).one<{ id: string; amount_minor: bigint }>(
    `SELECT id, amount_minor FROM payment_transactions
     WHERE tenant_id = $1 AND invoice_id = $2 AND provider_transaction_id = $3 AND status = 'SETTLED' AND payment_type = 'PAYMENT'
     ORDER BY created_at LIMIT 1 FOR UPDATE`,
    [invoiceId, providerTransactionId],
  );
}

/** Marks a recorded payment as taken back (FAILED with the reason): it no longer counts as paid. */
export async function failPaymentTransaction(db: Queryable, tenantId: string, id: string, error: string): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE payment_transactions SET status = 'FAILED', error = $3 WHERE tenant_id = $1 AND id = $2`, [id, error]);
}

/** The payment recorded from this bank line, with its invoice, if any. */
export async function findPaymentOfBankLine(db: Queryable, tenantId: string, bankLineKey: string): Promise<{ id: string; invoice_id: string } | undefined> {
  return scoped(db, tenantId).one<{ id: string; invoice_id: string }>(
    `SELECT id, invoice_id FROM payment_transactions WHERE tenant_id = $1 AND bank_line_key = $2`,
    [bankLineKey],
  );
}

/** Finalized-or-later invoices whose payment reference is one of `references` (upper case), locked, at most `limit`. */
export async function lockInvoicesByReference(db: Queryable, tenantId: string, references: readonly string[], limit: number): Promise<InvoiceRow[]> {
  return scoped(db, tenantId).query<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND reference IS NOT NULL AND upper(reference) = ANY($2::text[])
     ORDER BY id LIMIT $3 FOR UPDATE`,
    [references, limit],
  );
}

/**
 * Every column of an invoice row with its SQL type, in table order: the one list that reads,
 * inserts and the multi-row statements (jsonb_to_recordset needs the types) are built from.
 */
const INVOICE_COLUMN_TYPES = {
  id: 'text', invoicing_entity_id: 'text', customer_id: 'text', subscription_id: 'text', invoice_type: 'text', status: 'text',
  payment_status: 'text', invoice_number: 'text', currency: 'text', invoice_date: 'date', period_start: 'date', period_end: 'date', due_date: 'date',
  net_terms: 'int', subtotal_minor: 'int8', subtotal_recurring_minor: 'int8', discount_minor: 'int8', tax_minor: 'int8', total_minor: 'int8',
  applied_credits_minor: 'int8', amount_due_minor: 'int8', amount_paid_minor: 'int8', credit_carried_forward_minor: 'int8',
  prepaid_credits_minor: 'int8', prepaid_credits: 'jsonb', tax_inclusive: 'bool',
  customer_details: 'jsonb', seller_details: 'jsonb', coupons: 'jsonb', memo: 'text', purchase_order: 'text', reference: 'text', plan_name: 'text',
  finalize_after: 'timestamptz', pdf_document_id: 'text', created_at: 'timestamptz', updated_at: 'timestamptz', finalized_at: 'timestamptz',
  paid_at: 'timestamptz', voided_at: 'timestamptz', marked_as_uncollectible_at: 'timestamptz', usage_threshold: 'jsonb', auto_charge: 'bool',
} as const satisfies Record<Exclude<keyof InvoiceRow, 'custom_properties'>, string>;
/** Billing-run columns stored beside the row (migration 0401), never read back as part of it. */
const BILLING_COLUMN_TYPES = { billing_occasion: 'jsonb', content_hash: 'text', usage_threshold_index: 'int', usage_recorded_at: 'timestamptz' } as const;

// custom_properties is read with the row but written only by its own statements (insert defaults, updateInvoiceProperties)
export const INVOICE_COLUMNS = `${Object.keys(INVOICE_COLUMN_TYPES).join(', ')}, custom_properties`;
/** The invoice row plus the billing columns: names, and the `AS r(...)` record definition of jsonb_to_recordset. */
const STORED_TYPES = { ...INVOICE_COLUMN_TYPES, ...BILLING_COLUMN_TYPES };
export const INVOICE_STORED_NAMES = Object.keys(STORED_TYPES).join(', ');
export const INVOICE_STORED_RECORD = invoiceRecordDefinition(Object.keys(STORED_TYPES) as (keyof typeof STORED_TYPES)[]);

/** The `AS r(...)` record definition of jsonb_to_recordset for these stored columns. */
export function invoiceRecordDefinition(names: readonly (keyof typeof STORED_TYPES)[]): string {
  return names.map((name) => `${name} ${STORED_TYPES[name]}`).join(', ');
}

const LINE_COLUMNS = `id, invoice_id, line_no, name, description, category, quantity, unit_price, start_date, end_date, amount_minor,
  discount_minor, taxable_minor, tax_rate, tax_treatment, tax_country, tax_minor, total_minor, metric_id`;

/** The columns of an invoice that change after it is created: what `updateInvoice` and `updateInvoicesBulk` write back. */
export const INVOICE_MUTABLE_COLUMNS = [
  'status', 'payment_status', 'invoice_number', 'due_date', 'subtotal_minor', 'subtotal_recurring_minor', 'discount_minor', 'tax_minor', 'total_minor',
  'applied_credits_minor', 'amount_due_minor', 'amount_paid_minor', 'credit_carried_forward_minor', 'coupons', 'reference', 'finalize_after',
  'pdf_document_id', 'updated_at', 'finalized_at', 'paid_at', 'voided_at', 'marked_as_uncollectible_at', 'customer_details', 'seller_details',
  'prepaid_credits_minor', 'prepaid_credits',
] as const satisfies readonly (keyof typeof INVOICE_COLUMN_TYPES)[];

const UPDATE_INVOICE = `UPDATE invoices SET ${INVOICE_MUTABLE_COLUMNS.map((column, index) => `${column} = $${index + 3}`).join(', ')} WHERE tenant_id = $1 AND id = $2`;

/** Writes every mutable column of an invoice back (status, amounts, dates, number...). */
export async function updateInvoice(db: Queryable, tenantId: string, row: InvoiceRow): Promise<void> {
  await scoped(db, tenantId).query(UPDATE_INVOICE, [
    row.id, ...INVOICE_MUTABLE_COLUMNS.map((column) => (INVOICE_COLUMN_TYPES[column] === 'jsonb' ? JSON.stringify(row[column]) : row[column])),
  ]);
}

export async function findInvoice(db: Queryable, tenantId: string, invoiceId: string, lock = false): Promise<InvoiceRow | undefined> {
  return scoped(db, tenantId).one<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [invoiceId],
  );
}

/** A subscription's first invoice (earliest invoice date, not voided), locked: the hosted checkout records its first payment there. */
export async function firstInvoiceOfSubscription(db: Queryable, tenantId: string, subscriptionId: string): Promise<InvoiceRow | undefined> {
  return scoped(db, tenantId).one<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND subscription_id = $2 AND status <> 'VOID' ORDER BY invoice_date, created_at, id LIMIT 1 FOR UPDATE`,
    [subscriptionId],
  );
}

export async function findPeriodInvoice(
  db: Queryable, tenantId: string, subscriptionId: string, periodStart: string, periodEnd: string, invoiceType: InvoiceType,
): Promise<InvoiceRow | undefined> {
  return scoped(db, tenantId).one<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND subscription_id = $2 AND period_start = $3 AND period_end = $4
       AND invoice_type = $5`,
    [subscriptionId, periodStart, periodEnd, invoiceType],
  );
}

export interface NewLine {
  line: InvoiceLineRow;
  subLines: InvoiceSubLineRow[];
}

export async function loadDetail(db: Queryable, tenantId: string, invoice: InvoiceRow): Promise<InvoiceDetail> {
  const [detail] = await loadDetails(db, tenantId, [invoice]);
  return detail!;
}

/** Lines, sub-lines, breakdown, payments and e-invoicing outcome of several invoices in five statements (lists show them too). */
export async function loadDetails(db: Queryable, tenantId: string, invoices: InvoiceRow[]): Promise<InvoiceDetail[]> {
  if (invoices.length === 0) return [];
  const s = scoped(db, tenantId);
  const ids = invoices.map((invoice) => invoice.id);
  const lines = await s.query<InvoiceLineRow>(
    `SELECT ${LINE_COLUMNS} FROM invoice_lines WHERE tenant_id = $1 AND invoice_id = ANY($2) ORDER BY invoice_id, line_no`,
    [ids],
  );
  const subLines = await s.query<InvoiceSubLineRow>(
    `SELECT id, invoice_line_id, position, name, quantity, unit_price, total_minor, attributes
     FROM invoice_sub_lines WHERE tenant_id = $1 AND invoice_id = ANY($2) ORDER BY invoice_line_id, position`,
    [ids],
  );
  const breakdown = await s.query<TaxBreakdownDbRow & { invoice_id: string }>(
    `SELECT invoice_id, position, name, treatment, tax_rate, country, taxable_minor, tax_minor
     FROM invoice_tax_breakdown WHERE tenant_id = $1 AND invoice_id = ANY($2) ORDER BY invoice_id, position`,
    [ids],
  );
  const transactions = await s.query<PaymentTransactionRow>(
    `SELECT id, invoice_id, amount_minor, currency, status, payment_type, provider_transaction_id, error, processed_at, created_at
     FROM payment_transactions WHERE tenant_id = $1 AND invoice_id = ANY($2) ORDER BY invoice_id, created_at, id`,
    [ids],
  );
  const eInvoices = await s.query<EInvoiceRow>(
    `SELECT object_id, object_kind, format, status, errors, xml_document_id, created_at FROM e_invoices WHERE tenant_id = $1 AND object_id = ANY($2)`,
    [ids],
  );
  const subsByLine = new Map<string, InvoiceSubLineRow[]>();
  for (const sub of subLines) subsByLine.set(sub.invoice_line_id, [...(subsByLine.get(sub.invoice_line_id) ?? []), sub]);
  return invoices.map((invoice) => ({
    invoice,
    lines: lines.filter((line) => line.invoice_id === invoice.id).map((line) => ({ ...line, sub_lines: subsByLine.get(line.id) ?? [] })),
    taxBreakdown: breakdown.filter((row) => row.invoice_id === invoice.id).map(({ invoice_id: _invoiceId, ...row }) => row),
    transactions: transactions.filter((row) => row.invoice_id === invoice.id),
    eInvoice: eInvoices.find((row) => row.object_id === invoice.id) ?? null,
  }));
}

export interface InvoiceFilter {
  customerId?: string;
  subscriptionId?: string;
  statuses?: InvoiceStatus[];
  /** Values the invoice's custom properties must contain (`@>`, GIN index of migration 0420). */
  properties?: CustomPropertyValues | null;
}

/** Writes an invoice's custom property values and nothing else: no amount, status or number moves. */
export async function updateInvoiceProperties(db: Queryable, tenantId: string, invoiceId: string, values: CustomPropertyValues, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE invoices SET custom_properties = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`, [invoiceId, JSON.stringify(values), at]);
}

export type InvoiceOrderColumn = 'invoice_number' | 'customer_name' | 'amount' | 'invoice_date' | 'status' | 'payment_status';

const ORDER_SQL: Record<InvoiceOrderColumn, string> = {
  invoice_number: 'invoice_number',
  customer_name: `(customer_details->>'name')`,
  amount: 'total_minor',
  invoice_date: 'invoice_date',
  status: 'status',
  payment_status: 'payment_status',
};

export async function listInvoices(
  db: Queryable, tenantId: string, filter: InvoiceFilter, order: OrderBy<InvoiceOrderColumn>, page: PageRequest,
): Promise<{ rows: InvoiceRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR customer_id = $2 OR customer_details->>'alias' = $2)
    AND ($3::text IS NULL OR subscription_id = $3) AND ($4::text[] IS NULL OR status = ANY($4))${filter.properties ? ' AND custom_properties @> $5::jsonb' : ''}`;
  const params: unknown[] = [filter.customerId ?? null, filter.subscriptionId ?? null, filter.statuses?.length ? filter.statuses : null];
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<InvoiceRow>({ columns: INVOICE_COLUMNS, from: 'invoices', where, orderBy: `${ORDER_SQL[order.column]} ${direction} NULLS LAST, id ${direction}` }, params, page);
}

/** Drafts whose grace period is over, oldest first; SKIP LOCKED lets several workers share them. */
export async function dueDraftIds(db: Queryable, now: Date, limit: number): Promise<{ tenant_id: string; id: string }[]> {
  // Cross-tenant on purpose: the finalizer job serves every tenant, then works per tenant.
  const result = await db.query<{ tenant_id: string; id: string }>(
    `SELECT tenant_id, id FROM invoices WHERE status = 'DRAFT' AND finalize_after IS NOT NULL AND finalize_after <= $1
     ORDER BY finalize_after, id LIMIT $2`,
    [now, limit],
  );
  return result.rows;
}

/** (tenant, entity) pairs with drafts past their grace period, of the customers on one test clock (null: on none). */
export async function dueDraftEntities(db: Queryable, now: Date, testClockId: string | null): Promise<{ tenant_id: string; invoicing_entity_id: string }[]> {
  // Cross-tenant on purpose: the finalizer job serves every tenant, then works per tenant and entity.
  const result = await db.query<{ tenant_id: string; invoicing_entity_id: string }>(
    `SELECT DISTINCT tenant_id, invoicing_entity_id FROM invoices WHERE status = 'DRAFT' AND finalize_after IS NOT NULL AND finalize_after <= $1
       AND ${onTestClockSql('invoices', '$2')}
     ORDER BY 1, 2`,
    [now, testClockId],
  );
  return result.rows;
}

/** The earliest time a draft of a test clock's customers finalizes by itself, or null: the clock's advance stops there. */
export async function nextDraftFinalization(db: Queryable, tenantId: string, testClockId: string): Promise<Date | null> {
  const row = await scoped(db, tenantId).one<{ at: Date | null }>(
    `SELECT min(finalize_after) AS at FROM invoices WHERE tenant_id = $1 AND status = 'DRAFT' AND finalize_after IS NOT NULL AND ${onTestClockSql('invoices', '$2')}`,
    [testClockId],
  );
  return row?.at ?? null;
}

/**
 * Deletes the invoices of these customers with their lines, breakdowns and payments (a test
 * clock's deletion, after their credit notes); returns the deleted ids, whose PDFs go with
 * `deleteDocumentsOf`.
 */
/** Ids of these customers' invoices (a test clock's deletion removes what other modules keep about them first). */
export async function invoiceIdsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(`SELECT id FROM invoices WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
  return rows.map((row) => row.id);
}

export async function deleteInvoicesOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<string[]> {
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM payment_transactions WHERE tenant_id = $1 AND invoice_id IN (SELECT id FROM invoices WHERE tenant_id = $1 AND customer_id = ANY($2::text[]))`, [customerIds]);
  const rows = await s.query<{ id: string }>(`DELETE FROM invoices WHERE tenant_id = $1 AND customer_id = ANY($2::text[]) RETURNING id`, [customerIds]);
  return rows.map((row) => row.id);
}

/** Deletes the stored PDFs of these invoices and credit notes (once nothing points at them). */
export async function deleteDocumentsOf(db: Queryable, tenantId: string, objectIds: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM documents WHERE tenant_id = $1 AND object_id = ANY($2::text[])`, [objectIds]);
}

/**
 * The next drafts of one entity after `afterId` (id order), row-locked; drafts another
 * transaction holds (being finalized) are skipped, so a change of the entity never waits on a
 * finalizer that waits on the entity.
 */
export async function lockDraftsOfEntity(db: Queryable, tenantId: string, entityId: string, afterId: string, limit: number): Promise<InvoiceRow[]> {
  return scoped(db, tenantId).query<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND invoicing_entity_id = $2 AND status = 'DRAFT' AND id > $3
     ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED`,
    [entityId, afterId, limit],
  );
}

/** Where a batch of due drafts ended: the next batch starts after it (invoice-date order). */
export interface DueDraftKey {
  invoice_date: string;
  id: string;
}

/** A due draft as the finalizer picks it: its keyset position and its customer. */
export interface DueDraft extends DueDraftKey {
  customer_id: string;
}

/**
 * Due drafts of one entity and of the customers on one test clock (null: on none), oldest invoice
 * date first, after `after` when given, without locks (the finalizer cuts its batch from them,
 * then locks it with `lockDraftsStillDue`). Keyset batches walk the entity's draft index (tenant,
 * entity, invoice date, id) from where the last one stopped, so a batch reads about its own drafts
 * whatever the number of drafts still waiting.
 */
export async function dueDraftsOfEntity(
  db: Queryable, tenantId: string, entityId: string, now: Date, limit: number, testClockId: string | null, after: DueDraftKey | null = null,
): Promise<DueDraft[]> {
  const params: unknown[] = [entityId, now, limit];
  const param = (value: unknown) => `$${params.push(value) + 1}`; // $1 is the tenant
  const population = inTestClockPopulationSql('invoices', testClockId === null ? null : param(testClockId));
  const keyset = after ? `AND (invoice_date, id) > (${param(after.invoice_date)}::date, ${param(after.id)}::text)` : '';
  return scoped(db, tenantId).query<DueDraft>(
    `SELECT id, customer_id, invoice_date FROM invoices WHERE tenant_id = $1 AND invoicing_entity_id = $2 AND status = 'DRAFT' ${keyset}
       AND finalize_after IS NOT NULL AND finalize_after <= $3 AND ${population} ORDER BY invoice_date, id LIMIT $4`,
    params,
  );
}

/** These drafts, row-locked, in invoice-date order, leaving out any finalized, voided or deleted since they were picked. */
export async function lockDraftsStillDue(db: Queryable, tenantId: string, ids: readonly string[], now: Date): Promise<InvoiceRow[]> {
  return scoped(db, tenantId).query<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND id = ANY($2::text[]) AND status = 'DRAFT'
       AND finalize_after IS NOT NULL AND finalize_after <= $3 ORDER BY invoice_date, id FOR UPDATE`,
    [ids, now],
  );
}

/**
 * Runs `work` holding the finalizer lock of one entity and one population of customers (a test
 * clock's, or those on none): a session advisory lock on a connection of its own, so one process
 * at a time numbers that entity's due drafts and they are numbered in invoice-date order. Another
 * process's pass waits for this one to end; a process that dies releases it with its connection.
 */
export async function withEntityFinalizerLock<T>(pool: Pool, tenantId: string, entityId: string, testClockId: string | null, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const key = `finalizer:${tenantId}:${entityId}:${testClockId ?? ''}`;
  let unlocked = false;
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      unlocked = true;
    }
  } finally {
    // a connection that may still hold the lock is closed, never handed to another caller
    client.release(!unlocked);
  }
}

export interface DocumentRow {
  id: string;
  kind: 'INVOICE_PDF' | 'CREDIT_NOTE_PDF' | 'INVOICE_XML' | 'CREDIT_NOTE_XML';
  object_id: string;
  content_type: string;
  sha256: string;
  content: Buffer;
  created_at: Date;
}

export async function insertDocument(db: Queryable, tenantId: string, doc: DocumentRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO documents (tenant_id, id, kind, object_id, content_type, sha256, content, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [doc.id, doc.kind, doc.object_id, doc.content_type, doc.sha256, doc.content, doc.created_at],
  );
}

export async function findDocument(db: Queryable, tenantId: string, documentId: string): Promise<DocumentRow | undefined> {
  return scoped(db, tenantId).one<DocumentRow>(
    `SELECT id, kind, object_id, content_type, sha256, content, created_at FROM documents WHERE tenant_id = $1 AND id = $2`,
    [documentId],
  );
}
