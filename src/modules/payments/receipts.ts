// What the receipt e-mails need from payments (docs/webhooks-emails.md, "Receipts"): a provider
// payment has its own receipt (on `payment.succeeded`, one per payment transaction), so the
// invoice-level receipt of `invoice.paid` is left out when a provider payment is what settled it.
import type { Queryable } from '../../db/pool.js';
import { findInvoice, loadDetail } from '../invoices/index.js';
import * as repo from './repository.js';

/** Whether the invoice's latest settled payment is a SUCCEEDED provider payment of ours. */
export async function settledByProviderPayment(db: Queryable, tenantId: string, invoiceId: string): Promise<boolean> {
  const invoice = await findInvoice(db, tenantId, invoiceId);
  if (!invoice) return false;
  const payments = (await loadDetail(db, tenantId, invoice)).transactions.filter((t) => t.status === 'SETTLED' && t.payment_type === 'PAYMENT');
  const reference = payments.at(-1)?.provider_transaction_id;
  if (!reference) return false;
  return (await repo.listAttemptsOfInvoice(db, tenantId, invoiceId)).some((a) => a.status === 'SUCCEEDED' && a.provider_payment_id === reference);
}
