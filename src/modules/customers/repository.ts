import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';

export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}

export interface ShippingAddress {
  same_as_billing: boolean;
  address: Address | null;
}

/** A tax rate set on the customer; `rate` is a fraction as a decimal string ("0.2" = 20 %). */
export interface CustomTax {
  name: string;
  rate: string;
  tax_code: string;
}

export interface CustomerRow {
  id: string;
  name: string;
  alias: string | null;
  billing_email: string | null;
  invoicing_emails: string[];
  phone: string | null;
  currency: string;
  billing_address: Address | null;
  shipping_address: ShippingAddress | null;
  vat_number: string | null;
  is_tax_exempt: boolean;
  reverse_charge: boolean;
  custom_taxes: CustomTax[];
  /** Values by key, checked by custom-properties' port on every write; keys without a definition are free-form strings. */
  custom_properties: CustomPropertyValues;
  /** Always set: the entity named at creation, or the tenant's default then. */
  invoicing_entity_id: string;
  connected_account_id: string | null;
  /** The test clock the customer (and everything of it) runs on, set at creation only; null: the service clock. */
  test_clock_id: string | null;
  /** Credit held by the customer, minor units of `currency`. */
  balance_minor: bigint;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

export type CustomerOrderColumn = 'name' | 'email' | 'alias' | 'created_at';

/**
 * Customers as other modules' statements may join them (subscriptions show and sort by the
 * customer's name, and run on its test clock): a read-only relation with the columns this module
 * publishes.
 */
export const CUSTOMER_NAMES_RELATION = '(SELECT tenant_id, id, name, alias, test_clock_id FROM customers)';

/**
 * SQL that is true when the customer of a row (`rowSql`: the table or alias of a row holding
 * `tenant_id` and `customer_id`) runs on the test clock given by the text parameter
 * `clockParamSql`, or, when that parameter is NULL, on no test clock. Clock-driven statements of
 * other modules (status moves, billing runs, finalization) select their population with it: the
 * periodic runs pass NULL, a test clock's advance passes its id. The look-up names the tenant, so
 * it is one probe of the customers' primary key (tenant_id, id); by id alone it was a scan of all
 * customers for every row tested (docs/performance.md, "Bill run").
 */
export function onTestClockSql(rowSql: string, clockParamSql: string): string {
  return `(SELECT tcc.test_clock_id FROM customers tcc WHERE tcc.tenant_id = ${rowSql}.tenant_id AND tcc.id = ${rowSql}.customer_id) IS NOT DISTINCT FROM ${clockParamSql}::text`;
}

/**
 * `onTestClockSql` with the population known when the statement is written: the customers on no
 * test clock (`clockParamSql` null: an anti-join) or on the clock of that parameter (a semi-join).
 * The planner estimates these from the customers' statistics, where it gives the comparison with
 * a subquery a fixed 0.5 %: a statement that reads rows in index order up to a LIMIT (finalization
 * batches) then expects almost all rows to pass and keeps the index order instead of sorting every
 * candidate row (docs/performance.md, "Bill run").
 */
export function inTestClockPopulationSql(rowSql: string, clockParamSql: string | null): string {
  const customer = `FROM customers tcc WHERE tcc.tenant_id = ${rowSql}.tenant_id AND tcc.id = ${rowSql}.customer_id`;
  return clockParamSql === null ? `NOT EXISTS (SELECT 1 ${customer} AND tcc.test_clock_id IS NOT NULL)` : `EXISTS (SELECT 1 ${customer} AND tcc.test_clock_id = ${clockParamSql}::text)`;
}

/** The customers of one test clock with their aliases (usage events may name a customer by alias). */
export async function customersOfTestClock(db: Queryable, tenantId: string, testClockId: string): Promise<{ id: string; alias: string | null }[]> {
  return scoped(db, tenantId).query<{ id: string; alias: string | null }>(`SELECT id, alias FROM customers WHERE tenant_id = $1 AND test_clock_id = $2 ORDER BY id`, [testClockId]);
}

/** Deletes customers and their balance ledger (a test clock's deletion: its customers' other rows are gone by then). */
export async function deleteCustomers(db: Queryable, tenantId: string, ids: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM customer_balance_transactions WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [ids]);
  await scoped(db, tenantId).query(`DELETE FROM customers WHERE tenant_id = $1 AND id = ANY($2::text[])`, [ids]);
}

const COLUMNS = `id, name, alias, billing_email, invoicing_emails, phone, currency, billing_address, shipping_address,
  vat_number, is_tax_exempt, reverse_charge, custom_taxes, custom_properties, invoicing_entity_id, connected_account_id,
  test_clock_id, balance_minor, created_at, updated_at, archived_at`;

const ORDER_COLUMN: Record<CustomerOrderColumn, string> = {
  name: 'lower(name)',
  email: 'billing_email',
  alias: 'alias',
  created_at: 'created_at',
};

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function insertCustomer(db: Queryable, tenantId: string, row: CustomerRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO customers (tenant_id, id, name, alias, billing_email, invoicing_emails, phone, currency, billing_address,
       shipping_address, vat_number, is_tax_exempt, reverse_charge, custom_taxes, custom_properties, invoicing_entity_id,
       connected_account_id, test_clock_id, balance_minor, created_at, updated_at, archived_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
    [
      row.id, row.name, row.alias, row.billing_email, json(row.invoicing_emails), row.phone, row.currency,
      json(row.billing_address), json(row.shipping_address), row.vat_number, row.is_tax_exempt, row.reverse_charge,
      json(row.custom_taxes), json(row.custom_properties), row.invoicing_entity_id, row.connected_account_id,
      row.test_clock_id, row.balance_minor, row.created_at, row.updated_at, row.archived_at,
    ],
  );
}

/** Writes every editable column (PUT and PATCH both end here with the merged row). */
export async function updateCustomer(db: Queryable, tenantId: string, row: CustomerRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE customers SET name = $3, alias = $4, billing_email = $5, invoicing_emails = $6, phone = $7, currency = $8,
       billing_address = $9, shipping_address = $10, vat_number = $11, is_tax_exempt = $12, reverse_charge = $13,
       custom_taxes = $14, custom_properties = $15, invoicing_entity_id = $16, updated_at = $17, archived_at = $18
     WHERE tenant_id = $1 AND id = $2`,
    [
      row.id, row.name, row.alias, row.billing_email, json(row.invoicing_emails), row.phone, row.currency,
      json(row.billing_address), json(row.shipping_address), row.vat_number, row.is_tax_exempt, row.reverse_charge,
      json(row.custom_taxes), json(row.custom_properties), row.invoicing_entity_id, row.updated_at, row.archived_at,
    ],
  );
}

/** By id first, then by alias (an alias may never shadow another customer's id). */
export async function findCustomer(db: Queryable, tenantId: string, idOrAlias: string, lock = false): Promise<CustomerRow | undefined> {
  return scoped(db, tenantId).one<CustomerRow>(`${customerOfRefSql('$2', COLUMNS)}${lock ? ' FOR UPDATE' : ''}`, [idOrAlias]);
}

/**
 * The statement reading the customer a reference (the parameter `refParam`, an id or an alias)
 * names, an id match first, as `findCustomer` matches it: for statements of other modules that
 * read a customer with their own rows in one round trip. Binds the tenant as $1.
 */
export function customerOfRefSql(refParam: string, columns: string): string {
  return `SELECT ${columns} FROM customers WHERE tenant_id = $1 AND (id = ${refParam} OR alias = ${refParam}) ORDER BY (id = ${refParam}) DESC LIMIT 1`;
}

/**
 * The customer each reference (id or alias, as `findCustomer` matches it: an id match first)
 * names, in one statement for many references (usage ingestion resolves a batch's references
 * at once); references no customer has are left out.
 */
export async function resolveCustomerRefs(db: Queryable, tenantId: string, refs: readonly string[]): Promise<{ ref: string; id: string; test_clock_id: string | null }[]> {
  return scoped(db, tenantId).query(
    `SELECT r.ref, c.id, c.test_clock_id FROM unnest($2::text[]) AS r(ref)
     CROSS JOIN LATERAL (SELECT id, test_clock_id FROM customers WHERE tenant_id = $1 AND (id = r.ref OR alias = r.ref) ORDER BY (id = r.ref) DESC LIMIT 1) c`,
    [refs],
  );
}

/** Several customers by id in one statement (billing runs); missing ids are left out. */
export async function findCustomersByIds(db: Queryable, tenantId: string, ids: readonly string[]): Promise<CustomerRow[]> {
  return scoped(db, tenantId).query<CustomerRow>(`SELECT ${COLUMNS} FROM customers WHERE tenant_id = $1 AND id = ANY($2::text[])`, [ids]);
}

/** Customers not archived that belong to an invoicing entity (an entity with some cannot be archived). */
export async function countActiveCustomersOfEntity(db: Queryable, tenantId: string, entityId: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ n: bigint }>(
    `SELECT count(*) AS n FROM customers WHERE tenant_id = $1 AND invoicing_entity_id = $2 AND archived_at IS NULL`,
    [entityId],
  );
  return Number(row?.n ?? 0n);
}

export async function listCustomers(
  db: Queryable,
  tenantId: string,
  filter: { search?: string; archived?: boolean; properties?: CustomPropertyValues | null },
  order: OrderBy<CustomerOrderColumn>,
  page: PageRequest,
): Promise<{ rows: CustomerRow[]; total: number }> {
  // `archived` absent: active customers only; true: archived only; false: active only.
  const where = `tenant_id = $1
    AND ($2::text IS NULL OR name ILIKE '%' || $2 || '%' OR alias ILIKE '%' || $2 || '%' OR billing_email ILIKE '%' || $2 || '%' OR id = $2)
    AND (archived_at IS NOT NULL) = $3${filter.properties ? ' AND custom_properties @> $4::jsonb' : ''}`;
  const params: unknown[] = [filter.search ?? null, filter.archived ?? false];
  // `@>` is what the GIN index (jsonb_path_ops) of migration 0210 serves
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<CustomerRow>({ columns: COLUMNS, from: 'customers', where, orderBy: `${ORDER_COLUMN[order.column]} ${direction} NULLS LAST, id ${direction}` }, params, page);
}

/**
 * Moves the balance by `amountMinor` (positive = credit added, negative = consumed) and records
 * the movement. Returns the new balance, or undefined when it would go below zero.
 */
export async function moveBalance(
  db: Queryable,
  tenantId: string,
  move: { id: string; customerId: string; amountMinor: bigint; reason: string; invoiceId: string | null; note: string | null; at: Date },
): Promise<bigint | undefined> {
  const updated = await scoped(db, tenantId).one<{ balance_minor: bigint }>(
    `UPDATE customers SET balance_minor = balance_minor + $3, updated_at = $4
     WHERE tenant_id = $1 AND id = $2 AND balance_minor + $3 >= 0 RETURNING balance_minor`,
    [move.customerId, move.amountMinor, move.at],
  );
  if (!updated) return undefined;
  await scoped(db, tenantId).query(
    `INSERT INTO customer_balance_transactions (tenant_id, id, customer_id, amount_minor, balance_after_minor, reason, invoice_id, note, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [move.id, move.customerId, move.amountMinor, updated.balance_minor, move.reason, move.invoiceId, move.note, move.at],
  );
  return updated.balance_minor;
}
