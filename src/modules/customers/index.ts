// What other modules may use from customers.
import type { Queryable } from '../../db/pool.js';
import { newId } from '../../kernel/ids.js';
import * as repo from './repository.js';
import type { CustomerRow } from './repository.js';

export type { CustomersService, CustomerSubscriptionCheck, CustomerEntityCheck } from './service.js';
export { createCustomersModule } from './module.js';
export type { CustomerRow, Address, ShippingAddress, CustomTax } from './repository.js';
export { CUSTOMER_NAMES_RELATION, customerOfRefSql, inTestClockPopulationSql, onTestClockSql } from './repository.js';
export { clockOfCustomer } from './test-clocks.js';
export type { TestClockTime } from './test-clocks.js';

/**
 * The customer with this id or alias in the tenant, or undefined; runs on the caller's
 * transaction (pass `lock` to hold the row until it commits, e.g. before consuming balance).
 */
export function findCustomer(db: Queryable, tenantId: string, idOrAlias: string, options: { lock?: boolean } = {}): Promise<CustomerRow | undefined> {
  return repo.findCustomer(db, tenantId, idOrAlias, options.lock ?? false);
}

/** The customer id and test clock each id or alias names (matched as `findCustomer` does), in one statement; unknown references are left out. */
export function resolveCustomerRefs(db: Queryable, tenantId: string, refs: readonly string[]): Promise<{ ref: string; id: string; test_clock_id: string | null }[]> {
  return repo.resolveCustomerRefs(db, tenantId, refs);
}

/** Several customers by id (not alias), in one statement; missing ids are left out. */
export function findCustomers(db: Queryable, tenantId: string, ids: readonly string[]): Promise<CustomerRow[]> {
  return repo.findCustomersByIds(db, tenantId, ids);
}

/**
 * Moves a customer's credit balance inside the caller's transaction: a negative `amountMinor`
 * consumes credit (e.g. an invoice paying with it), a positive one adds credit (e.g. a credit
 * note). Returns the new balance in minor units, or undefined if it would become negative
 * (nothing is written then). `reason` is a short code such as INVOICE_PAYMENT or CREDIT_NOTE.
 */
export function moveCustomerBalance(
  db: Queryable,
  tenantId: string,
  move: { id?: string; customerId: string; amountMinor: bigint; reason: string; invoiceId?: string | null; note?: string | null; at: Date },
): Promise<bigint | undefined> {
  return repo.moveBalance(db, tenantId, { ...move, id: move.id ?? newId('customerBalanceTransaction', move.at.getTime()), invoiceId: move.invoiceId ?? null, note: move.note ?? null });
}

/** How many customers that are not archived belong to this invoicing entity, in the caller's transaction. */
export function countActiveCustomersOfEntity(db: Queryable, tenantId: string, entityId: string): Promise<number> {
  return repo.countActiveCustomersOfEntity(db, tenantId, entityId);
}

/** The customers of one test clock, with their aliases (usage events may name a customer by alias). */
export function customersOfTestClock(db: Queryable, tenantId: string, testClockId: string): Promise<{ id: string; alias: string | null }[]> {
  return repo.customersOfTestClock(db, tenantId, testClockId);
}

/** Deletes customers and their balance ledger, in the caller's transaction (a test clock's deletion, once their other rows are gone). */
export function deleteCustomers(db: Queryable, tenantId: string, ids: readonly string[]): Promise<void> {
  return repo.deleteCustomers(db, tenantId, ids);
}
