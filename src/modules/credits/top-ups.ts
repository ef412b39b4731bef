// Paid grants are bought through an invoice, and become usable when it is paid; automatic
// top-ups buy one when the balance falls below the customer's threshold.
import { today, MS_PER_DAY, type Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { Dec, minorToDecimal } from '../../kernel/money.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { assembleInvoice } from '../../domain/index.js';
import { ensureDefaultEntity, finalizeInTx, findEntity, insertDraft } from '../invoices/index.js';
import { findCustomer, type CustomerRow } from '../customers/index.js';
import { activateGrant, expireDue, lockLedger } from './ledger.js';
import * as repo from './repository.js';
import type { GrantRow } from './repository.js';
import { grantEventData } from './events.js';

/**
 * The locks of a purchase, in the order finalization takes them: the customer's invoicing entity,
 * then the customer (the ledger lock). Buying a grant finalizes its invoice, which locks the
 * entity; taking the customer first could deadlock with a batch finalization, which holds the
 * entity and then locks each customer.
 */
export async function lockForPurchase(tx: Queryable, tenantId: string, clock: Clock, customerId: string): Promise<CustomerRow | undefined> {
  const customer = await findCustomer(tx, tenantId, customerId);
  if (!customer) return undefined;
  const entity = customer.invoicing_entity_id ? await findEntity(tx, tenantId, customer.invoicing_entity_id, true) : undefined;
  if (!entity) await findEntity(tx, tenantId, (await ensureDefaultEntity(tx, tenantId, clock)).id, true);
  return lockLedger(tx, tenantId, customer.id);
}

/**
 * Writes a grant, in the caller's tx (a paid one: the caller holds lockForPurchase). A promotional grant is usable at once (its GRANT entry); a
 * paid one is sold on a one-off invoice, finalized now (payments charges it when auto_charge is
 * on), and stays PENDING_PAYMENT until that invoice is paid. The invoice carries no VAT: the
 * credits are a means of payment, and VAT is charged on the invoices they pay
 * (docs/credits-and-alerts.md). Returns false when the grant's unique keys say it exists already.
 */
export async function writeGrant(tx: Queryable, tenantId: string, clock: Clock, grant: GrantRow): Promise<boolean> {
  if (!(await repo.insertGrant(tx, tenantId, grant))) return false;
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'credit_grant.created', objectId: grant.id, data: grantEventData(grant) });
  if (grant.grant_type === 'PROMOTIONAL') {
    await activateGrant(tx, tenantId, clock, grant);
    return true;
  }
  const amount = minorToDecimal(grant.amount_minor, grant.currency);
  const units = grant.unit_amount === null ? null : { amount: new Dec(grant.unit_amount), rate: new Dec(grant.unit_rate!) };
  const draft = await insertDraft(tx, tenantId, clock, {
    customerId: grant.customer_id,
    invoiceType: 'ONE_OFF',
    invoiceDate: today(clock),
    autoAdvance: false,
    memo: 'Prepaid credits: a payment on account, outside the scope of VAT here; VAT is charged on the invoices the credits pay.',
    computed: assembleInvoice({
      currency: grant.currency,
      taxInclusive: false,
      lines: [{
        name: `Prepaid credits: ${grant.name}`,
        category: 'ONE_TIME',
        amount,
        quantity: units ? units.amount : new Dec(1),
        unitPrice: units ? units.rate : amount,
      }],
      tax: { treatment: 'NO_TAX', rate: new Dec(0), country: null },
    }),
  });
  await repo.setGrantInvoice(tx, tenantId, grant.id, draft.id);
  // no prepaid credits: credits never pay the invoice that sells them
  const invoice = await finalizeInTx(tx, tenantId, clock, draft.id, undefined, undefined);
  // the cash balance may have paid it whole at finalization
  if (invoice.payment_status === 'PAID') await activateGrant(tx, tenantId, clock, { ...grant, invoice_id: draft.id });
  return true;
}

/**
 * The automatic top-up check of one customer, in the caller's tx: when enabled and the ledger
 * balance (expiries due recorded first) is below the threshold, buys one paid grant of the set
 * amount, unless a top-up is already waiting for payment. The trigger is keyed on the last ledger
 * entry (`seq:N`): checks racing or replayed at the same ledger position find the same grant (a
 * unique index), and the customer lock makes them queue. Returns the grant bought, if any.
 */
export async function checkAutoTopUp(tx: Queryable, tenantId: string, clock: Clock, customerId: string): Promise<GrantRow | undefined> {
  const customer = await lockForPurchase(tx, tenantId, clock, customerId);
  const settings = customer ? await repo.findTopUpSettings(tx, tenantId, customer.id) : undefined;
  if (!customer || !settings?.enabled) return undefined;
  const now = clock.now();
  await expireDue(tx, tenantId, customer.id, now);
  const { balance_minor: balance, last_seq: lastSeq } = await repo.ledgerBalance(tx, tenantId, customer.id, now);
  if (balance >= settings.threshold_minor) return undefined;
  if (await repo.pendingTopUp(tx, tenantId, customer.id)) return undefined;
  const triggerKey = `seq:${lastSeq}`;
  if (await repo.findGrantByTrigger(tx, tenantId, customer.id, triggerKey)) return undefined;
  const grant: GrantRow = {
    id: newGrantId(now), customer_id: customer.id, name: 'Automatic top-up', currency: customer.currency, amount_minor: settings.amount_minor,
    unit_name: null, unit_amount: null, unit_rate: null, grant_type: 'PAID', priority: settings.priority, effective_at: now,
    expires_at: settings.expires_after_days === null ? null : new Date(now.getTime() + settings.expires_after_days * MS_PER_DAY),
    applies_to: 'ALL', metric_ids: [], status: 'PENDING_PAYMENT', source: 'AUTO_TOP_UP', invoice_id: null, trigger_key: triggerKey,
    created_at: now, updated_at: now, voided_at: null,
  };
  return (await writeGrant(tx, tenantId, clock, grant)) ? grant : undefined;
}

export const newGrantId = (now: Date) => newId('creditGrant', now.getTime());
