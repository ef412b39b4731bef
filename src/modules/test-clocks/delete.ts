// Deleting a test clock deletes its objects (docs/test-clocks.md): its customers and everything
// stored under them, each through the module that owns it, in the caller's transaction, children
// before what they point at.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { deleteOutboxEventsOf } from '../../db/outbox.js';
import { customersOfTestClock, deleteCustomers } from '../customers/index.js';
import { deleteRedemptionsOfCustomers } from '../coupons/index.js';
import { deleteSubscriptionsOfCustomers } from '../subscriptions/index.js';
import { deleteSessionsOfCustomers } from '../checkout/index.js';
import { deleteUsageOfCustomers } from '../usage/index.js';
import { deleteDocumentsOf, deleteInvoicesOfCustomers, invoiceIdsOfCustomers } from '../invoices/index.js';
import { deleteCreditNotesOfCustomers } from '../credit-notes/index.js';
import { deleteEmailsOfCustomers } from '../emails/index.js';
import { deleteTokensOfCustomers } from '../portal/index.js';
import { deletePaymentsOfCustomers } from '../payments/index.js';
import { deleteCreditsOfCustomers } from '../credits/index.js';

export interface DeletedObjects {
  customers: number;
  subscriptions: number;
  invoices: number;
  credit_notes: number;
}

/** Deletes the objects of a test clock (not the clock itself) and the outbox events about them. */
export async function deleteObjectsOfTestClock(tx: Queryable, tenantId: string, testClockId: string): Promise<DeletedObjects> {
  const customers = await customersOfTestClock(tx, tenantId, testClockId);
  const ids = customers.map((c) => c.id);
  if (ids.length === 0) return { customers: 0, subscriptions: 0, invoices: 0, credit_notes: 0 };
  await deleteSessionsOfCustomers(tx, tenantId, ids);
  // pay links, dunnings, refunds and charges point at the invoices, so they go first
  const payments = await deletePaymentsOfCustomers(tx, tenantId, ids, await invoiceIdsOfCustomers(tx, tenantId, ids));
  const creditNotes = await deleteCreditNotesOfCustomers(tx, tenantId, ids);
  const grants = await deleteCreditsOfCustomers(tx, tenantId, ids);
  const invoices = await deleteInvoicesOfCustomers(tx, tenantId, ids);
  await deleteDocumentsOf(tx, tenantId, [...invoices, ...creditNotes]);
  const subscriptions = await deleteSubscriptionsOfCustomers(tx, tenantId, ids);
  await deleteRedemptionsOfCustomers(tx, tenantId, ids);
  await deleteEmailsOfCustomers(tx, tenantId, ids);
  await deleteTokensOfCustomers(tx, tenantId, ids);
  // usage events name a customer by id, or by alias (events sent before the customer existed)
  await deleteUsageOfCustomers(tx, tenantId, [...ids, ...customers.flatMap((c) => (c.alias ? [c.alias] : []))]);
  await deleteOutboxEventsOf(scoped(tx, tenantId), [...ids, ...subscriptions, ...invoices, ...creditNotes, ...payments, ...grants]);
  await deleteCustomers(tx, tenantId, ids);
  return { customers: ids.length, subscriptions: subscriptions.length, invoices: invoices.length, credit_notes: creditNotes.length };
}
