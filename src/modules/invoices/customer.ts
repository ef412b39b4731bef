import type { Queryable } from '../../db/pool.js';
import type { Clock } from '../../kernel/clock.js';
import { badRequest } from '../../kernel/errors.js';
import { findCustomer, moveCustomerBalance, type CustomerRow } from '../customers/index.js';
import { InvoicesFailure } from './errors.js';

/** What an invoice copies of its customer at creation (reference CustomerDetails). */
export function customerSnapshot(customer: CustomerRow, at: Date): Record<string, unknown> {
  return {
    id: customer.id,
    name: customer.name,
    alias: customer.alias,
    email: customer.billing_email,
    vat_number: customer.vat_number,
    billing_address: customer.billing_address,
    snapshot_at: at.toISOString(),
  };
}

export async function requireCustomer(db: Queryable, tenantId: string, idOrAlias: string, field: string, lock = false): Promise<CustomerRow> {
  const customer = await findCustomer(db, tenantId, idOrAlias, { lock });
  if (!customer) throw badRequest(`${field} '${idOrAlias}' is not a customer of this tenant`);
  return customer;
}

/**
 * Consumes up to `wantedMinor` of the customer's credit for an invoice, in the caller's tx.
 * Balances are held in the customer's currency; an invoice in another currency uses none
 * (no conversion, so no rounding of someone else's money).
 */
export async function consumeBalance(
  db: Queryable, tenantId: string, clock: Clock, customerId: string, currency: string, wantedMinor: bigint, invoiceId: string,
): Promise<bigint> {
  if (wantedMinor <= 0n) return 0n;
  const customer = await findCustomer(db, tenantId, customerId, { lock: true });
  if (!customer || customer.currency !== currency || customer.balance_minor <= 0n) return 0n;
  const usedMinor = customer.balance_minor < wantedMinor ? customer.balance_minor : wantedMinor;
  await moveCustomerBalance(db, tenantId, { customerId, amountMinor: -usedMinor, reason: 'INVOICE_PAYMENT', invoiceId, at: clock.now() });
  return usedMinor;
}

/** Adds credit to a customer's balance (credit notes, negative invoices); a negative amount takes it back (NEGATIVE_BALANCE when it was spent). */
export async function creditBalance(
  db: Queryable, tenantId: string, clock: Clock, customerId: string, amountMinor: bigint, reason: string, invoiceId: string, note?: string,
): Promise<void> {
  if (amountMinor === 0n) return;
  const after = await moveCustomerBalance(db, tenantId, { customerId, amountMinor, reason, invoiceId, note: note ?? null, at: clock.now() });
  if (after === undefined) throw new InvoicesFailure('NEGATIVE_BALANCE', 'the customer balance cannot become negative');
}
