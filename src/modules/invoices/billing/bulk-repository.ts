// Multi-row statements for the billing run and the batch finalizer: one statement per table per
// batch (rows passed as one JSON array and unpacked by jsonb_to_recordset), instead of one
// round trip per invoice and line (events: writeOutboxEvents in db/outbox.ts).
import type { Queryable } from '../../../db/pool.js';
import { jsonWithBigints } from '../../../kernel/money.js';
import { scoped } from '../../../db/tenant-scope.js';
import { thresholdWindowKey, type ThresholdBilled } from '../../../domain/index.js';
import { defaultValuesSql, type CustomPropertyValues } from '../../custom-properties/index.js';
import { INVOICE_MUTABLE_COLUMNS, INVOICE_STORED_NAMES, INVOICE_STORED_RECORD, invoiceRecordDefinition, type InvoiceRow, type NewLine, type TaxBreakdownDbRow } from '../repository.js';

/**
 * Inserts drafts. `onConflict: 'skip'` (the billing run) leaves out a row that collides with an
 * existing one on a unique index (same subscription date or period); 'fail' (a single draft)
 * lets the unique violation throw, as the scheduler relies on. Returns the ids actually inserted, with the custom property values they got.
 */
export async function insertInvoicesBulk(
  db: Queryable, tenantId: string, rows: (InvoiceRow & { billing_occasion: unknown; content_hash: string | null; usage_threshold_index?: number | null; usage_recorded_at?: Date | null })[], onConflict: 'skip' | 'fail' = 'skip',
): Promise<Map<string, CustomPropertyValues>> {
  if (rows.length === 0) return new Map();
  // new invoices take the defaults of the tenant's INVOICE custom properties (one subquery for the batch)
  const inserted = await scoped(db, tenantId).query<{ id: string; custom_properties: CustomPropertyValues }>(
    `INSERT INTO invoices (tenant_id, ${INVOICE_STORED_NAMES}, custom_properties)
     SELECT $1, ${INVOICE_STORED_NAMES}, ${defaultValuesSql('INVOICE')} FROM jsonb_to_recordset($2::jsonb) AS r(${INVOICE_STORED_RECORD})
     ${onConflict === 'skip' ? 'ON CONFLICT DO NOTHING ' : ''}RETURNING id, custom_properties`,
    [jsonWithBigints(rows)],
  );
  return new Map(inserted.map((row) => [row.id, row.custom_properties]));
}

export async function insertContentBulk(db: Queryable, tenantId: string, lines: NewLine[], breakdown: (TaxBreakdownDbRow & { invoice_id: string })[]): Promise<void> {
  const s = scoped(db, tenantId);
  if (lines.length > 0) {
    await s.query(
      `INSERT INTO invoice_lines (tenant_id, id, invoice_id, line_no, name, description, category, quantity, unit_price, start_date, end_date,
         amount_minor, discount_minor, taxable_minor, tax_rate, tax_treatment, tax_country, tax_minor, total_minor, metric_id, component_id)
       SELECT $1, r.* FROM jsonb_to_recordset($2::jsonb) AS r(id text, invoice_id text, line_no int, name text, description text, category text,
         quantity numeric, unit_price numeric, start_date date, end_date date, amount_minor int8, discount_minor int8, taxable_minor int8,
         tax_rate numeric, tax_treatment text, tax_country text, tax_minor int8, total_minor int8, metric_id text, component_id text)`,
      [jsonWithBigints(lines.map((l) => l.line))],
    );
    const subLines = lines.flatMap(({ line, subLines }) => subLines.map((sub) => ({ ...sub, invoice_id: line.invoice_id })));
    if (subLines.length > 0) {
      await s.query(
        `INSERT INTO invoice_sub_lines (tenant_id, id, invoice_line_id, invoice_id, position, name, quantity, unit_price, total_minor, attributes)
         SELECT $1, r.* FROM jsonb_to_recordset($2::jsonb) AS r(id text, invoice_line_id text, invoice_id text, position int, name text,
           quantity numeric, unit_price numeric, total_minor int8, attributes jsonb)`,
        [jsonWithBigints(subLines.map((sub) => ({ id: sub.id, invoice_line_id: sub.invoice_line_id, invoice_id: sub.invoice_id, position: sub.position, name: sub.name, quantity: sub.quantity, unit_price: sub.unit_price, total_minor: sub.total_minor, attributes: sub.attributes })))],
      );
    }
  }
  if (breakdown.length > 0) {
    await s.query(
      `INSERT INTO invoice_tax_breakdown (tenant_id, invoice_id, position, name, treatment, tax_rate, country, taxable_minor, tax_minor)
       SELECT $1, r.* FROM jsonb_to_recordset($2::jsonb) AS r(invoice_id text, position int, name text, treatment text, tax_rate numeric,
         country text, taxable_minor int8, tax_minor int8)`,
      [jsonWithBigints(breakdown.map((b) => ({ invoice_id: b.invoice_id, position: b.position, name: b.name, treatment: b.treatment, tax_rate: b.tax_rate, country: b.country, taxable_minor: b.taxable_minor, tax_minor: b.tax_minor })))],
    );
  }
}

/** Drops lines, sub-lines and breakdown of drafts about to be recomputed. */
export async function deleteContentBulk(db: Queryable, tenantId: string, invoiceIds: string[]): Promise<void> {
  if (invoiceIds.length === 0) return;
  const s = scoped(db, tenantId);
  await s.query(`DELETE FROM invoice_tax_breakdown WHERE tenant_id = $1 AND invoice_id = ANY($2)`, [invoiceIds]);
  await s.query(`DELETE FROM invoice_sub_lines WHERE tenant_id = $1 AND invoice_id = ANY($2)`, [invoiceIds]);
  await s.query(`DELETE FROM invoice_lines WHERE tenant_id = $1 AND invoice_id = ANY($2)`, [invoiceIds]);
}

const UPDATE_INVOICES = `UPDATE invoices i SET ${INVOICE_MUTABLE_COLUMNS.map((column) => `${column} = r.${column}`).join(', ')},
    content_hash = coalesce(r.content_hash, i.content_hash)
  FROM jsonb_to_recordset($2::jsonb) AS r(${invoiceRecordDefinition(['id', ...INVOICE_MUTABLE_COLUMNS, 'content_hash'])})
  WHERE i.tenant_id = $1 AND i.id = r.id`;

/**
 * Writes back every mutable column of many invoices (the batch version of `updateInvoice`), and
 * the content hash of those that carry one. Only those columns travel: the rest of a row (custom
 * properties, plan, periods...) would make the statement's JSON about twice as long for nothing.
 */
export async function updateInvoicesBulk(db: Queryable, tenantId: string, rows: (InvoiceRow & { content_hash?: string })[]): Promise<void> {
  if (rows.length === 0) return;
  const sent = rows.map((row) => {
    const values: Record<string, unknown> = { id: row.id, content_hash: row.content_hash ?? null };
    for (const column of INVOICE_MUTABLE_COLUMNS) values[column] = row[column];
    return values;
  });
  await scoped(db, tenantId).query(UPDATE_INVOICES, [jsonWithBigints(sent)]);
}

/** Invoices stored for these subscriptions (any status), for `invoicesDue` and coupon counting. */
export async function invoicesOfSubscriptions(db: Queryable, tenantId: string, subscriptionIds: string[]) {
  return scoped(db, tenantId).query<{ id: string; subscription_id: string; invoice_date: string; status: string; coupons: { coupon_id: string }[] }>(
    `SELECT id, subscription_id, invoice_date::text AS invoice_date, status, coupons FROM invoices
     WHERE tenant_id = $1 AND subscription_id = ANY($2) AND invoice_type IN ('RECURRING', 'ADJUSTMENT')`,
    [subscriptionIds],
  );
}

/**
 * The stored engine occasions (and content hashes) of the drafts among these invoices that are
 * computed again: not those whose usage was recorded when they were created (`usage_recorded_at`).
 */
export async function occasionsOf(db: Queryable, tenantId: string, invoiceIds: string[]): Promise<Map<string, { occasion: unknown; contentHash: string | null }>> {
  const rows = await scoped(db, tenantId).query<{ id: string; billing_occasion: unknown; content_hash: string | null }>(
    `SELECT id, billing_occasion, content_hash FROM invoices
     WHERE tenant_id = $1 AND id = ANY($2) AND billing_occasion IS NOT NULL AND usage_recorded_at IS NULL`,
    [invoiceIds],
  );
  return new Map(rows.map((row) => [row.id, { occasion: row.billing_occasion, contentHash: row.content_hash }]));
}

/**
 * Takes the billing lock of each subscription for the caller's transaction, without waiting:
 * returns the ids it got. Another process billing a subscription holds its lock, so the two never
 * compute the same subscription at once (the unique indexes stay the last word).
 */
export async function tryLockSubscriptions(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<Set<string>> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `SELECT s.id FROM unnest($2::text[]) AS s(id) WHERE $1::text IS NOT NULL /* tenant_id */
       AND pg_try_advisory_xact_lock(hashtextextended('billing:' || $1 || ':' || s.id, 0))`,
    [subscriptionIds],
  );
  return new Set(rows.map((row) => row.id));
}


/**
 * Per subscription and usage window (`thresholdWindowKey`: fee and first day), the sums of the
 * lines its threshold invoices billed, void ones left out: what the period-end invoice deducts
 * and the next threshold invoice bills on top of (docs/credits-and-alerts.md).
 */
export async function thresholdBilledOf(db: Queryable, tenantId: string, subscriptionIds: readonly string[]): Promise<Map<string, Map<string, ThresholdBilled>>> {
  const out = new Map<string, Map<string, ThresholdBilled>>();
  if (subscriptionIds.length === 0) return out;
  const rows = await scoped(db, tenantId).query<{ subscription_id: string; component_id: string; start_date: string; quoted: string; net: string; tax: string; quantity: string }>(
    `SELECT i.subscription_id, l.component_id, l.start_date::text AS start_date,
            sum(CASE WHEN i.tax_inclusive THEN l.total_minor ELSE l.amount_minor END)::text AS quoted,
            sum(l.taxable_minor)::text AS net, sum(l.tax_minor)::text AS tax, coalesce(sum(l.quantity), 0)::text AS quantity
     FROM invoices i JOIN invoice_lines l ON l.tenant_id = i.tenant_id AND l.invoice_id = i.id
     WHERE i.tenant_id = $1 AND i.subscription_id = ANY($2) AND i.invoice_type = 'USAGE_THRESHOLD' AND i.status <> 'VOID' AND l.component_id IS NOT NULL
     GROUP BY i.subscription_id, l.component_id, l.start_date`,
    [subscriptionIds],
  );
  for (const row of rows) {
    const windows = out.get(row.subscription_id) ?? out.set(row.subscription_id, new Map()).get(row.subscription_id)!;
    windows.set(thresholdWindowKey(row.component_id, row.start_date), { quotedMinor: BigInt(row.quoted), netMinor: BigInt(row.net), taxMinor: BigInt(row.tax), quantity: row.quantity });
  }
  return out;
}

/** The highest crossing already invoiced for a subscription's period (void invoices included: a crossing fires once), 0 when none. */
export async function lastThresholdCrossing(db: Queryable, tenantId: string, subscriptionId: string, periodStart: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ crossing: number | null }>(
    `SELECT max(usage_threshold_index) AS crossing FROM invoices
     WHERE tenant_id = $1 AND subscription_id = $2 AND period_start = $3 AND invoice_type = 'USAGE_THRESHOLD'`,
    [subscriptionId, periodStart],
  );
  return row?.crossing ?? 0;
}

/** Takes a subscription's billing lock (the run's, see tryLockSubscriptions), waiting for it. */
export async function lockSubscription(db: Queryable, tenantId: string, subscriptionId: string): Promise<void> {
  await scoped(db, tenantId).query(`SELECT pg_advisory_xact_lock(hashtextextended('billing:' || $1 || ':' || $2, 0)) /* tenant_id */`, [subscriptionId]);
}
