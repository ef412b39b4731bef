import { frozenClock, type Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { currencyExponent, parseAmountMinor, parseDecimal, sumMinor } from '../../kernel/money.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import type { CustomPropertiesPort, CustomPropertyValues } from '../custom-properties/index.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import * as repo from './repository.js';
import type { CustomerOrderColumn, CustomerRow, CustomTax } from './repository.js';
import type { CustomerCreateBody, CustomerPatchBody, CustomerUpdateBody } from './schemas.js';
import { customerEventData } from './events.js';
import { testClockForNewCustomer, type TestClockTime } from './test-clocks.js';

/**
 * Subscriptions sit after customers in the module order, so they tell us (through this
 * function, wired in main.ts) whether a customer still has a subscription that is not over.
 */
export type CustomerSubscriptionCheck = (db: Queryable, tenantId: string, customerId: string) => Promise<{ live: number; total: number }>;

/**
 * Invoicing entities belong to the invoices module, after customers in the module order: the
 * composition root passes this in. In the caller's transaction it answers the entity a customer
 * goes on: the one named (it must be an active entity of the tenant), or the tenant's default for
 * null; an unknown or archived one is a 400 naming `field`.
 */
export type CustomerEntityCheck = (db: Queryable, tenantId: string, requested: string | null, field: string) => Promise<string>;

/**
 * Connected accounts belong to the oauth module, after customers in the module order: the
 * composition root passes this in. Whether an id is a connected account of the tenant, so a
 * customer never points at another tenant's account (or at none).
 */
export type CustomerConnectedAccountCheck = (db: Queryable, tenantId: string, accountId: string) => Promise<boolean>;

export interface CustomerListQuery {
  page?: number;
  per_page?: number;
  order_by?: string;
  search?: string;
  archived?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkEmail(value: string | null | undefined, field: string): void {
  if (value !== null && value !== undefined && !EMAIL.test(value)) throw badRequest(`${field} '${value}' is not an e-mail address`);
}

function checkTaxes(taxes: CustomTax[]): CustomTax[] {
  return taxes.map((tax, index) => {
    let rate;
    try {
      rate = parseDecimal(tax.rate);
    } catch {
      throw badRequest(`custom_taxes[${index}].rate must be a decimal string such as "0.2"`);
    }
    if (rate.lt(0) || rate.gt(1)) throw badRequest(`custom_taxes[${index}].rate must be a fraction between 0 and 1`);
    return { name: tax.name, rate: tax.rate, tax_code: tax.tax_code };
  });
}

/** Checks a merged row before it is written: the invariants every operation shares. */
function validate(row: CustomerRow): void {
  if (!row.name.trim()) throw badRequest('name must not be empty');
  if (row.alias !== null && !row.alias.trim()) throw badRequest('alias must not be blank');
  currencyExponent(row.currency);
  checkEmail(row.billing_email, 'billing_email');
  row.invoicing_emails.forEach((email, index) => checkEmail(email, `invoicing_emails[${index}]`));
  row.custom_taxes = checkTaxes(row.custom_taxes);
  if (row.reverse_charge && !row.vat_number) throw badRequest('reverse_charge needs a vat_number');
  if (row.reverse_charge && row.is_tax_exempt) throw badRequest('is_tax_exempt and reverse_charge cannot both be true');
}

export function createCustomersService(deps: {
  pool: Pool; clock: Clock; properties: CustomPropertiesPort; subscriptions?: CustomerSubscriptionCheck; entities: CustomerEntityCheck; connectedAccounts: CustomerConnectedAccountCheck; testClockTime?: TestClockTime;
}) {
  const { pool, clock } = deps;
  const subscriptionsOf = (db: Queryable, tenantId: string, customerId: string) =>
    deps.subscriptions ? deps.subscriptions(db, tenantId, customerId) : Promise.resolve({ live: 0, total: 0 });

  async function requireCustomer(db: Queryable, tenantId: string, idOrAlias: string, lock = false): Promise<CustomerRow> {
    const row = await repo.findCustomer(db, tenantId, idOrAlias, lock);
    if (!row) throw notFound('customer');
    return row;
  }

  async function write(tx: Queryable, tenantId: string, row: CustomerRow, insert: boolean): Promise<void> {
    try {
      if (insert) await repo.insertCustomer(tx, tenantId, row);
      else await repo.updateCustomer(tx, tenantId, row);
    } catch (error) {
      if (isUniqueViolation(error, 'customers_alias_key')) throw conflict(`alias '${row.alias}' is already used by another customer`);
      throw error;
    }
  }

  /** The fields a create or a full replace (PUT) sets, with their defaults for what is left out. */
  function fieldsOf(input: CustomerCreateBody | CustomerUpdateBody) {
    return {
      name: input.name.trim(),
      alias: input.alias ?? null,
      billing_email: input.billing_email ?? null,
      invoicing_emails: input.invoicing_emails ?? [],
      phone: input.phone ?? null,
      currency: input.currency,
      billing_address: (input.billing_address as CustomerRow['billing_address']) ?? null,
      shipping_address: (input.shipping_address as CustomerRow['shipping_address']) ?? null,
      vat_number: input.vat_number ?? null,
      is_tax_exempt: input.is_tax_exempt ?? false,
      reverse_charge: input.reverse_charge ?? false,
      custom_taxes: input.custom_taxes ?? [],
      // checked and normalized by the custom-properties port in the write's transaction
      custom_properties: (input.custom_properties ?? {}) as CustomPropertyValues,
    };
  }

  async function createCustomer(tenantId: string, input: CustomerCreateBody): Promise<CustomerRow> {
    const testClockId = input.test_clock_id ?? null;
    // a customer on a test clock is created at the clock's frozen time, like everything of it after
    const at = testClockId === null ? deps.clock : frozenClock(await testClockForNewCustomer(pool, tenantId, testClockId, 'test_clock_id', deps.testClockTime));
    const now = at.now();
    const row: CustomerRow = {
      id: newId('customer', now.getTime()),
      ...fieldsOf(input),
      invoicing_entity_id: '', // resolved in the transaction below
      connected_account_id: input.connected_account_id ?? null,
      test_clock_id: testClockId,
      balance_minor: 0n,
      created_at: now,
      updated_at: now,
      archived_at: null,
    };
    validate(row);
    return withTx(pool, async (tx) => {
      row.custom_properties = await deps.properties.resolve(tx, tenantId, 'CUSTOMER', row.custom_properties, { creating: true });
      row.invoicing_entity_id = await deps.entities(tx, tenantId, input.invoicing_entity_id ?? null, 'invoicing_entity_id');
      if (row.connected_account_id !== null && !(await deps.connectedAccounts(tx, tenantId, row.connected_account_id))) {
        throw badRequest(`connected_account_id '${row.connected_account_id}' is not a connected account of this tenant (GET /api/v1/connected-accounts lists them), e.g. cacc_01KKRNW4G00DCDSVX0Q959VSN7`);
      }
      await write(tx, tenantId, row, true);
      await writeOutboxEvent(scoped(tx, tenantId), at, { type: 'customer.created', objectId: row.id, data: customerEventData(row) });
      return row;
    });
  }

  /**
   * Shared tail of PUT and PATCH: currency is frozen once the customer has billing history.
   * `entity`: undefined keeps the customer's invoicing entity, null moves it to the default, an id to that entity.
   */
  async function saveChanges(tenantId: string, idOrAlias: string, entity: string | null | undefined, merge: (current: CustomerRow) => CustomerRow): Promise<CustomerRow> {
    return withTx(pool, async (tx) => {
      const current = await requireCustomer(tx, tenantId, idOrAlias, true);
      const next = { ...merge(current), updated_at: clock.now() };
      validate(next);
      // stored values are checked too: a key defined since the last write must now hold a value of its type
      next.custom_properties = await deps.properties.resolve(tx, tenantId, 'CUSTOMER', next.custom_properties, { creating: false });
      if (entity !== undefined && entity !== current.invoicing_entity_id) next.invoicing_entity_id = await deps.entities(tx, tenantId, entity, 'invoicing_entity_id');
      if (next.currency !== current.currency) {
        const subscriptions = await subscriptionsOf(tx, tenantId, current.id);
        if (subscriptions.total > 0 || current.balance_minor !== 0n) {
          throw badRequest('currency cannot change once the customer has subscriptions or a balance');
        }
      }
      await write(tx, tenantId, next, false);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.updated', objectId: next.id, data: customerEventData(next) });
      return next;
    });
  }

  const replaceCustomer = (tenantId: string, idOrAlias: string, input: CustomerUpdateBody) =>
    saveChanges(tenantId, idOrAlias, input.invoicing_entity_id, (current) => ({ ...current, ...fieldsOf(input) }));

  const patchCustomer = (tenantId: string, idOrAlias: string, input: CustomerPatchBody) =>
    saveChanges(tenantId, idOrAlias, input.invoicing_entity_id, (current) => {
      const pick = <K extends keyof CustomerPatchBody & keyof CustomerRow>(key: K, fallback: CustomerRow[K]): CustomerRow[K] =>
        input[key] === undefined ? current[key] : ((input[key] ?? fallback) as CustomerRow[K]);
      return {
        ...current,
        // name and currency are required on a customer: null leaves them unchanged.
        name: input.name?.trim() || current.name,
        currency: input.currency ?? current.currency,
        alias: pick('alias', null),
        billing_email: pick('billing_email', null),
        invoicing_emails: pick('invoicing_emails', []),
        phone: pick('phone', null),
        billing_address: pick('billing_address', null),
        shipping_address: pick('shipping_address', null),
        vat_number: pick('vat_number', null),
        is_tax_exempt: pick('is_tax_exempt', false),
        reverse_charge: pick('reverse_charge', false),
        custom_taxes: pick('custom_taxes', []),
        custom_properties: (input.custom_properties === undefined ? current.custom_properties : (input.custom_properties ?? {})) as CustomPropertyValues,
      };
    });

  async function listCustomers(tenantId: string, query: CustomerListQuery): Promise<Page<CustomerRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy<CustomerOrderColumn>(query.order_by, ['name', 'email', 'alias', 'created_at'], { column: 'created_at', direction: 'desc' });
    const properties = await deps.properties.filter(pool, tenantId, 'CUSTOMER', query);
    const { rows, total } = await repo.listCustomers(pool, tenantId, { search: query.search || undefined, archived: query.archived, properties }, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** Archiving hides the customer and blocks new subscriptions; live subscriptions must end first. */
  async function archiveCustomer(tenantId: string, idOrAlias: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await requireCustomer(tx, tenantId, idOrAlias, true);
      if (current.archived_at) return;
      const { live } = await subscriptionsOf(tx, tenantId, current.id);
      if (live > 0) {
        throw conflict(`customer has ${live} subscription(s) that are not cancelled or ended; cancel them before archiving`);
      }
      const next = { ...current, archived_at: clock.now(), updated_at: clock.now() };
      await repo.updateCustomer(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.archived', objectId: next.id, data: customerEventData(next) });
    });
  }

  async function unarchiveCustomer(tenantId: string, idOrAlias: string): Promise<CustomerRow> {
    return withTx(pool, async (tx) => {
      const current = await requireCustomer(tx, tenantId, idOrAlias, true);
      if (!current.archived_at) throw badRequest('customer is not archived');
      // an archived entity has no active customers: the customer's must be active again first
      await deps.entities(tx, tenantId, current.invoicing_entity_id, "the customer's invoicing_entity_id");
      const next = { ...current, archived_at: null, updated_at: clock.now() };
      await repo.updateCustomer(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.unarchived', objectId: next.id, data: customerEventData(next) });
      return next;
    });
  }

  /** Adds credit to the customer's balance (a decimal string in the customer's currency). */
  async function topUpBalance(tenantId: string, idOrAlias: string, input: { amount: string; note?: string | null }): Promise<CustomerRow> {
    return withTx(pool, async (tx) => {
      const current = await requireCustomer(tx, tenantId, idOrAlias, true);
      let amountMinor: bigint;
      try {
        amountMinor = parseAmountMinor(input.amount, current.currency);
      } catch (error) {
        throw badRequest(`amount must be a decimal string with at most ${currencyExponent(current.currency)} decimals for ${current.currency}: ${(error as Error).message}`);
      }
      if (amountMinor === 0n) throw badRequest('amount must not be zero');
      try {
        sumMinor([current.balance_minor, amountMinor]); // the sum must fit the stored bigint too
      } catch {
        throw badRequest(`amount would take the balance past the largest storable amount for ${current.currency}; send a smaller amount, e.g. "25.00"`);
      }
      const balance = await repo.moveBalance(tx, tenantId, {
        id: newId('customerBalanceTransaction', clock.now().getTime()),
        customerId: current.id,
        amountMinor,
        reason: amountMinor > 0n ? 'TOP_UP' : 'MANUAL_DEBIT',
        invoiceId: null,
        note: input.note ?? null,
        at: clock.now(),
      });
      if (balance === undefined) throw badRequest('amount would make the balance negative');
      const next = { ...current, balance_minor: balance, updated_at: clock.now() };
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.updated', objectId: next.id, data: customerEventData(next) });
      return next;
    });
  }

  return {
    createCustomer,
    getCustomer: (tenantId: string, idOrAlias: string) => requireCustomer(pool, tenantId, idOrAlias),
    listCustomers,
    replaceCustomer,
    patchCustomer,
    archiveCustomer,
    unarchiveCustomer,
    topUpBalance,
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
