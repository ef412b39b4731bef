// The ledger's writers, in the caller's transaction. Every write first locks the customer row
// (customers' findCustomer with lock), so the writers of one customer's ledger queue one behind
// the other and each reads remainders no one else is changing.
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import { consumeGrants, dueExpiries, type ConsumableGrant, type CreditApplicability } from '../../domain/index.js';
import { findCustomer, type CustomerRow } from '../customers/index.js';
import { loadDetail, type InvoiceDetail, type InvoiceRow, type PrepaidCreditLine } from '../invoices/index.js';
import * as repo from './repository.js';
import type { EntryType, GrantRow, GrantWithRemaining, NewEntry } from './repository.js';
import { grantEventData } from './events.js';

/**
 * The job queued by every change of a customer's ledger, run after that change committed: the
 * automatic top-up check, then the customer's alerts are evaluated (a CREDIT_BALANCE alert moves
 * with the balance, not only with usage).
 */
export const BALANCE_MOVED_TASK = 'credits.balance_moved';

export function applicabilityOf(grant: Pick<GrantRow, 'applies_to' | 'metric_ids'>): CreditApplicability {
  return grant.applies_to === 'METRICS' ? { kind: 'METRICS', metricIds: grant.metric_ids } : { kind: grant.applies_to };
}

export function consumable(grant: GrantWithRemaining): ConsumableGrant {
  return {
    id: grant.id, priority: grant.priority, effectiveAt: grant.effective_at, expiresAt: grant.expires_at,
    remainingMinor: grant.remaining_minor, applicability: applicabilityOf(grant),
  };
}

/** Holds the customer's row for the rest of the transaction: the one lock of its ledger. */
export async function lockLedger(tx: Queryable, tenantId: string, customerId: string): Promise<CustomerRow | undefined> {
  return findCustomer(tx, tenantId, customerId, { lock: true });
}

function entry(now: Date, grant: Pick<GrantRow, 'id' | 'customer_id' | 'currency'>, type: EntryType, amountMinor: bigint, extra: Partial<NewEntry> = {}): NewEntry {
  return {
    id: newId('creditLedgerEntry', now.getTime()), customer_id: grant.customer_id, grant_id: grant.id, entry_type: type, amount_minor: amountMinor,
    currency: grant.currency, invoice_id: null, invoice_line_id: null, effective_at: now, created_at: now, ...extra,
  };
}

/**
 * Every writer of ledger entries calls this in its transaction. The job becomes visible when the
 * transaction commits, so what it reads includes the change; one pending job per customer, so a
 * burst of consumptions asks once.
 */
export async function balanceMoved(tx: Queryable, tenantId: string, customerId: string): Promise<void> {
  await enqueueJob(tx, BALANCE_MOVED_TASK, { tenant_id: tenantId, customer_id: customerId }, { jobKey: `${BALANCE_MOVED_TASK}:${tenantId}:${customerId}` });
}

/**
 * Records the expiry of what is left of every grant whose expiry has come by `now` (caller holds
 * the ledger lock). Each expiry counts from the grant's `expires_at`. Returns how many.
 */
export async function expireDue(tx: Queryable, tenantId: string, customerId: string, now: Date): Promise<number> {
  const grants = await repo.activeGrants(tx, tenantId, customerId);
  const byId = new Map(grants.map((g) => [g.id, g]));
  const expiries = dueExpiries(grants.map(consumable), now);
  await repo.insertEntries(tx, tenantId, expiries.map((e) => entry(now, byId.get(e.grantId)!, 'EXPIRY', e.amountMinor, { effective_at: e.at })));
  if (expiries.length > 0) await balanceMoved(tx, tenantId, customerId);
  return expiries.length;
}

/** A line an invoice may pay with credits: its id, what it is, and its total tax included. */
type PayableInvoiceLine = Pick<InvoiceDetail['lines'][number], 'id' | 'category' | 'metric_id' | 'total_minor'>;

/** What the grants in force at `now` pay of these lines, up to `payableMinor`, one entry per grant and line (pure planning). */
function plan(grants: readonly GrantWithRemaining[], lines: readonly PayableInvoiceLine[], payableMinor: bigint, now: Date) {
  return consumeGrants(
    grants.map(consumable),
    lines.map((line) => ({ id: line.id, category: line.category, metricId: line.metric_id, totalMinor: line.total_minor })),
    now,
    payableMinor,
  );
}

/**
 * Pays an invoice being finalized from the customer's grants in force at `now` (the invoices
 * module's PrepaidCredits.pay, for every invoice finalization goes through: period, threshold,
 * one-off and checkout invoices alike): expiries due first, then one CONSUMPTION entry per grant
 * and line, and one deduction line per grant for the invoice. A top-up invoice (it sells a grant)
 * is never paid with credits, nor is an invoice in another currency than the customer's.
 */
export async function payInvoice(
  tx: Queryable, tenantId: string, invoice: InvoiceRow, payableMinor: bigint, now: Date,
): Promise<{ paidMinor: bigint; lines: PrepaidCreditLine[] }> {
  const none = { paidMinor: 0n, lines: [] };
  if (payableMinor <= 0n || !(await repo.hasActiveGrants(tx, tenantId, invoice.customer_id))) return none;
  if (await repo.findGrantOfInvoice(tx, tenantId, invoice.id)) return none;
  const customer = await lockLedger(tx, tenantId, invoice.customer_id);
  if (!customer || customer.currency !== invoice.currency) return none;
  await expireDue(tx, tenantId, customer.id, now);
  const grants = await repo.activeGrants(tx, tenantId, customer.id);
  if (!grants.some((g) => g.remaining_minor > 0n)) return none;
  const { lines } = await loadDetail(tx, tenantId, invoice);
  const consumed = plan(grants, lines, payableMinor, now);
  if (consumed.length === 0) return none;
  const byId = new Map(grants.map((g) => [g.id, g]));
  await repo.insertEntries(tx, tenantId, consumed.map((c) => entry(now, byId.get(c.grantId)!, 'CONSUMPTION', -c.amountMinor, { invoice_id: invoice.id, invoice_line_id: c.lineId })));
  // one deduction line per grant, in consumption order
  const perGrant = new Map<string, bigint>();
  for (const c of consumed) perGrant.set(c.grantId, (perGrant.get(c.grantId) ?? 0n) + c.amountMinor);
  const deductionLines = [...perGrant].map(([grantId, amount]) => ({ grant_id: grantId, name: byId.get(grantId)!.name, amount_minor: amount.toString() }));
  await balanceMoved(tx, tenantId, customer.id);
  return { paidMinor: [...perGrant.values()].reduce((a, b) => a + b, 0n), lines: deductionLines };
}

/**
 * What the customer's grants would pay of an invoice not written yet (the checkout page's first
 * invoice, previewed), were it finalized at `now`: read-only, the same plan as payInvoice. An
 * expiry due by `now` is not in force, so it pays nothing here either.
 */
export async function previewPrepaid(db: Queryable, tenantId: string, detail: Pick<InvoiceDetail, 'invoice' | 'lines'>, now: Date): Promise<bigint> {
  const { invoice } = detail;
  const payableMinor = invoice.total_minor;
  if (payableMinor <= 0n || !(await repo.hasActiveGrants(db, tenantId, invoice.customer_id))) return 0n;
  const customer = await findCustomer(db, tenantId, invoice.customer_id);
  if (!customer || customer.currency !== invoice.currency) return 0n;
  const grants = await repo.activeGrants(db, tenantId, customer.id);
  return plan(grants, detail.lines, payableMinor, now).reduce((sum, c) => sum + c.amountMinor, 0n);
}

/**
 * Gives back what a voided invoice took from each grant (REFUND entries), then takes it away again
 * where the grant has meanwhile expired or been voided, so those stay at zero.
 */
export async function restoreInvoice(tx: Queryable, tenantId: string, invoice: InvoiceRow, now: Date): Promise<void> {
  if (!(await lockLedger(tx, tenantId, invoice.customer_id))) return;
  const consumed = (await repo.invoiceConsumption(tx, tenantId, invoice.id)).filter((c) => c.net_minor < 0n);
  if (consumed.length === 0) return;
  const grants = await Promise.all(consumed.map((c) => repo.findGrant(tx, tenantId, c.grant_id)));
  await repo.insertEntries(tx, tenantId, consumed.map((c, i) => entry(now, grants[i]!, 'REFUND', -c.net_minor, { invoice_id: invoice.id })));
  const voided = consumed.flatMap((c, i) => (grants[i]!.status === 'VOID' ? [entry(now, grants[i]!, 'VOID', c.net_minor)] : []));
  await repo.insertEntries(tx, tenantId, voided);
  await expireDue(tx, tenantId, invoice.customer_id, now);
  await balanceMoved(tx, tenantId, invoice.customer_id);
}

/** Makes a grant usable: ACTIVE and its GRANT entry (counted from its effective date). Idempotent. */
export async function activateGrant(tx: Queryable, tenantId: string, clock: Clock, grant: GrantRow): Promise<void> {
  if (grant.status !== 'PENDING_PAYMENT' && grant.status !== 'ACTIVE') return;
  const existing = await repo.findGrant(tx, tenantId, grant.id);
  if (existing?.status === 'ACTIVE') return;
  const now = clock.now();
  await repo.setGrantStatus(tx, tenantId, grant.id, 'ACTIVE', now);
  await repo.insertEntries(tx, tenantId, [entry(now, grant, 'GRANT', grant.amount_minor, { effective_at: grant.effective_at, invoice_id: grant.invoice_id })]);
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'credit_grant.activated', objectId: grant.id, data: grantEventData({ ...grant, status: 'ACTIVE' }) });
  // a grant already expired when it became usable expires at once
  await expireDue(tx, tenantId, grant.customer_id, now);
  await balanceMoved(tx, tenantId, grant.customer_id);
}

/** VOID: a pending grant is dropped; an active one loses what is left of it (a VOID entry). */
export async function voidGrantInTx(tx: Queryable, tenantId: string, clock: Clock, grant: GrantWithRemaining): Promise<void> {
  if (grant.status === 'VOID') return;
  const now = clock.now();
  await repo.setGrantStatus(tx, tenantId, grant.id, 'VOID', now);
  if (grant.status === 'ACTIVE' && grant.remaining_minor > 0n) {
    await repo.insertEntries(tx, tenantId, [entry(now, grant, 'VOID', -grant.remaining_minor)]);
    await balanceMoved(tx, tenantId, grant.customer_id);
  }
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'credit_grant.voided', objectId: grant.id, data: grantEventData({ ...grant, status: 'VOID' }) });
}
