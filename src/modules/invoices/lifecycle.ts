import { newId } from '../../kernel/ids.js';
import type { Clock } from '../../kernel/clock.js';
import type { EventType } from '../../kernel/event-types.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { jsonWithBigints, parseAmountMinor } from '../../kernel/money.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent, writeOutboxEvents, type OutboxEvent } from '../../db/outbox.js';
import { addDays } from '../../domain/index.js';
import { findEntity, takeDocumentNumbers, type InvoicingEntityRow } from './entities.js';
import { consumeBalance, creditBalance } from './customer.js';
import { findCustomers } from '../customers/index.js';
import { invoiceEventData } from './events.js';
import * as repo from './repository.js';
import { updateInvoicesBulk } from './billing/bulk-repository.js';
import type { InvoiceRow, PrepaidCreditLine } from './repository.js';

export const RENDER_PDF_TASK = 'invoices.render_pdf';

/**
 * Recomputes drafts of one tenant about to be finalized from current data (usage arrived since,
 * late usage of earlier periods) in the caller's tx, same order in and out, and records the usage
 * they bill with the usage module; supplied by billing. One draft is refreshed as a batch of one.
 */
export type DraftRefresher = (tx: Queryable, tenantId: string, drafts: readonly InvoiceRow[]) => Promise<InvoiceRow[]>;

/**
 * Prepaid credits (the credits module, a later one; wired by the composition root). `pay` runs at
 * finalization, in its tx, before the cash balance: it pays up to `payableMinor` of the invoice
 * from the customer's grants and says what each grant paid. `restore` gives back to the grants
 * what a voided invoice took from them.
 */
export interface PrepaidCredits {
  pay(tx: Queryable, tenantId: string, invoice: InvoiceRow, payableMinor: bigint, now: Date): Promise<{ paidMinor: bigint; lines: PrepaidCreditLine[] }>;
  /** Which of these customers hold a grant in force (`pay` pays nothing for the others): one read for a batch. */
  holders(tx: Queryable, tenantId: string, customerIds: readonly string[]): Promise<Set<string>>;
  restore(tx: Queryable, tenantId: string, invoice: InvoiceRow, now: Date): Promise<void>;
}

/** Drafts finalized per transaction by the grace-period finalizer. */
export const FINALIZE_BATCH_SIZE = 1000;

/**
 * How long a batch of the finalizer, its drafts refreshed, waits for the batch before it to
 * commit before it rolls back and is done again after it (see finalizeEntityDrafts). A batch
 * takes well under a second; only a lock cycle the database cannot see makes it wait longer.
 */
const PREVIOUS_BATCH_WAIT_MS = 5_000;

/** A finalizer batch whose drafts are refreshed; `committed` settles with how many it finalized. */
interface Batch {
  /** Where the batch started (it starts there again when it has to be done again). */
  after: repo.DueDraftKey | null;
  last: repo.DueDraftKey;
  customers: Set<string>;
  count: number;
  committed: Promise<number>;
}

/** Ends a finalizer batch without error: it rolls back and is done again after the batch before it. */
class BatchToRetry extends Error {}

async function committedWithin(batch: Batch, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BatchToRetry(`the batch before waited over ${ms} ms`)), ms);
  });
  try {
    await Promise.race([batch.committed, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** An entity as a refresh uses it (seller details, tax country, terms): all but the counters, which the batch before moves. */
function entityDetails(entity: InvoicingEntityRow): string {
  const { next_invoice_number: _invoiceCounter, next_credit_note_number: _creditNoteCounter, ...details } = entity;
  return jsonWithBigints(details);
}

async function emit(tx: Queryable, tenantId: string, clock: Clock, type: EventType, invoice: InvoiceRow): Promise<void> {
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type, objectId: invoice.id, data: invoiceEventData(invoice) });
}

/** Payment reference: the number without separators, as bank transfers mangle them. */
export function paymentReference(invoiceNumber: string): string {
  return invoiceNumber.replace(/[^A-Za-z0-9]/g, '');
}

/** The FINALIZED version of a draft: number, payment reference, due date, prepaid credits and balance applied. */
export function finalizedRow(
  invoice: InvoiceRow, number: string, appliedMinor: bigint, carriedMinor: bigint, now: Date, prepaid: { paidMinor: bigint; lines: PrepaidCreditLine[] } = { paidMinor: 0n, lines: [] },
): InvoiceRow {
  const payableMinor = invoice.total_minor > 0n ? invoice.total_minor : 0n;
  const amountDueMinor = payableMinor - prepaid.paidMinor - appliedMinor;
  return {
    ...invoice,
    prepaid_credits_minor: prepaid.paidMinor,
    prepaid_credits: prepaid.lines,
    status: 'FINALIZED',
    invoice_number: number,
    reference: paymentReference(number),
    due_date: addDays(invoice.invoice_date, invoice.net_terms),
    applied_credits_minor: appliedMinor,
    amount_due_minor: amountDueMinor,
    credit_carried_forward_minor: carriedMinor,
    finalize_after: null,
    finalized_at: now,
    updated_at: now,
    // nothing left to pay (100 % coupon, credit, zero usage): settled at once
    ...(amountDueMinor === 0n ? { payment_status: 'PAID' as const, paid_at: now } : {}),
  };
}

/**
 * DRAFT -> FINALIZED in the caller's tx, as a batch of one of `finalizeLocked`. Finalizing a
 * finalized invoice returns it unchanged. `credits` is required so that no caller forgets the
 * prepaid credits: only the invoice that sells a grant passes undefined (credits never pay it).
 * Inside this module, the lifecycle's `finalizeInTx` binds both.
 */
export async function finalizeInTx(
  tx: Queryable, tenantId: string, clock: Clock, invoiceId: string, refresh: DraftRefresher | undefined, credits: PrepaidCredits | undefined,
): Promise<InvoiceRow> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice) throw notFound('invoice');
  if (invoice.status === 'FINALIZED') return invoice;
  if (invoice.status !== 'DRAFT') throw conflict(`invoice is ${invoice.status}; only a DRAFT can be finalized`);
  const drafts = refresh ? await refresh(tx, tenantId, [invoice]) : [invoice];
  return (await finalizeLocked(tx, tenantId, clock, clock.now(), invoice.invoicing_entity_id, drafts, await prepareFinalization(tx, tenantId, drafts, credits), credits))[0]!;
}

/** What finalizing some drafts reads and queues before their numbers (see prepareFinalization). */
interface PreparedFinalization {
  /** Customers holding cash balance: only they need the locked balance read. */
  withCredit: Set<string>;
  /** Customers holding a prepaid grant in force: only they go through `pay`. */
  grantHolders: Set<string>;
}

/**
 * The part of finalizing drafts that does not need their numbers, in the caller's tx: which
 * customers hold credit or a grant (credit arriving after this goes to a later invoice), and the
 * PDF jobs (they run once the tx commits). The batch finalizer does it before it waits for its turn.
 */
async function prepareFinalization(tx: Queryable, tenantId: string, drafts: readonly InvoiceRow[], credits?: PrepaidCredits): Promise<PreparedFinalization> {
  const customerIds = [...new Set(drafts.map((d) => d.customer_id))];
  const withCredit = new Set((await findCustomers(tx, tenantId, customerIds)).filter((c) => c.balance_minor > 0n).map((c) => c.id));
  const grantHolders = credits ? await credits.holders(tx, tenantId, customerIds) : new Set<string>();
  await enqueueJobsBulk(tx, RENDER_PDF_TASK, drafts.map((draft) => ({ payload: { tenant_id: tenantId, invoice_id: draft.id }, jobKey: `${RENDER_PDF_TASK}:${draft.id}` })));
  return { withCredit, grantHolders };
}

/**
 * DRAFT -> FINALIZED for refreshed drafts of one entity the caller holds row-locked, prepared
 * (prepareFinalization), in its tx: a range of gapless numbers reserved with one counter update
 * (the counter row lock makes concurrent finalizations queue instead of sharing a number) and
 * handed out in the drafts' order, due dates, prepaid credits and balance applied, then the
 * events; multi-row statements.
 */
async function finalizeLocked(
  tx: Queryable, tenantId: string, clock: Clock, now: Date, entityId: string, drafts: readonly InvoiceRow[], prepared: PreparedFinalization, credits?: PrepaidCredits,
): Promise<InvoiceRow[]> {
  const numbers = await takeDocumentNumbers(tx, tenantId, entityId, 'invoice', drafts.length);
  const noBalance = new Set(drafts.map((d) => d.customer_id).filter((id) => !prepared.withCredit.has(id)));
  const rows: InvoiceRow[] = [];
  for (const [index, invoice] of drafts.entries()) {
    const number = numbers[index]!;
    // prepaid credit grants first, then the cash balance, then what is left is charged
    const prepaid = credits && invoice.total_minor > 0n && prepared.grantHolders.has(invoice.customer_id) ? await credits.pay(tx, tenantId, invoice, invoice.total_minor, now) : undefined;
    const payableMinor = (invoice.total_minor > 0n ? invoice.total_minor : 0n) - (prepaid?.paidMinor ?? 0n);
    let appliedMinor = 0n;
    if (payableMinor > 0n && !noBalance.has(invoice.customer_id)) {
      appliedMinor = await consumeBalance(tx, tenantId, clock, invoice.customer_id, invoice.currency, payableMinor, invoice.id);
      if (appliedMinor < payableMinor) noBalance.add(invoice.customer_id);
    }
    const carriedMinor = invoice.total_minor < 0n ? -invoice.total_minor : 0n;
    if (carriedMinor > 0n) {
      await creditBalance(tx, tenantId, clock, invoice.customer_id, carriedMinor, 'NEGATIVE_INVOICE', invoice.id);
      noBalance.delete(invoice.customer_id);
    }
    rows.push(finalizedRow(invoice, number, appliedMinor, carriedMinor, now, prepaid));
  }
  await updateInvoicesBulk(tx, tenantId, rows);
  await writeOutboxEvents(scoped(tx, tenantId), clock, rows.flatMap<OutboxEvent>((row) => [
    { type: 'invoice.finalized', objectId: row.id, data: invoiceEventData(row) },
    ...(row.payment_status === 'PAID' ? [{ type: 'invoice.paid' as const, objectId: row.id, data: invoiceEventData(row) }] : []),
  ]));
  return rows;
}

/**
 * Lowers (negative delta) or restores what a finalized invoice asks for, in the caller's tx with
 * the invoice row locked, keeping its payment status right; emits `invoice.paid` when this
 * settles it. Credit notes cancel and restore invoice debt through this.
 */
export async function adjustAmountDue(tx: Queryable, tenantId: string, clock: Clock, invoice: InvoiceRow, deltaMinor: bigint): Promise<void> {
  const amountDueMinor = invoice.amount_due_minor + deltaMinor;
  const now = clock.now();
  const paid = invoice.amount_paid_minor >= amountDueMinor;
  const paymentStatus = paid ? 'PAID' : invoice.amount_paid_minor > 0n ? 'PARTIALLY_PAID' : 'UNPAID';
  await scoped(tx, tenantId).query(
    `UPDATE invoices SET amount_due_minor = $3, payment_status = $4, paid_at = $5, updated_at = $6 WHERE tenant_id = $1 AND id = $2`,
    [invoice.id, amountDueMinor, paymentStatus, paid ? (invoice.paid_at ?? now) : null, now],
  );
  if (paid && invoice.payment_status !== 'PAID') {
    await emit(tx, tenantId, clock, 'invoice.paid', { ...invoice, amount_due_minor: amountDueMinor, payment_status: 'PAID' });
  }
}

/** Many jobs in one statement (graphile-worker `add_jobs`), in the caller's transaction. */
async function enqueueJobsBulk(db: Queryable, task: string, jobs: { payload: Record<string, unknown>; jobKey: string }[]): Promise<void> {
  if (jobs.length === 0) return;
  await db.query(
    `SELECT graphile_worker.add_jobs(array(SELECT json_populate_recordset(null::graphile_worker.job_spec, $1::json)))`,
    [JSON.stringify(jobs.map((job) => ({ identifier: task, payload: job.payload, max_attempts: 25, job_key: job.jobKey })))],
  );
}

/**
 * Adds a SETTLED payment of `amountMinor` to a finalized invoice the caller holds locked, in its
 * tx: the payment transaction row, `amount_paid`, the payment status (PARTIALLY_PAID, or PAID with
 * `invoice.paid`). The one path of manual payments (mark paid, bank transfers) and provider
 * payments. `bankLineKey` marks a bank transfer's line (recorded once per tenant).
 */
export async function applyPayment(
  tx: Queryable, tenantId: string, clock: Clock, invoice: InvoiceRow, amountMinor: bigint, reference: string | null, paidAt: Date | undefined,
  bankLineKey: string | null = null,
): Promise<InvoiceRow> {
  const now = clock.now();
  const paidMinor = invoice.amount_paid_minor + amountMinor;
  const fullyPaid = paidMinor >= invoice.amount_due_minor;
  const next: InvoiceRow = {
    ...invoice,
    amount_paid_minor: paidMinor,
    payment_status: fullyPaid ? 'PAID' : 'PARTIALLY_PAID',
    paid_at: fullyPaid ? (invoice.paid_at ?? paidAt ?? now) : invoice.paid_at,
    updated_at: now,
  };
  await repo.updateInvoice(tx, tenantId, next);
  await repo.insertPaymentTransaction(tx, tenantId, {
    id: newId('payment', now.getTime()),
    invoice_id: invoice.id,
    amount_minor: amountMinor,
    currency: invoice.currency,
    status: 'SETTLED',
    payment_type: 'PAYMENT',
    provider_transaction_id: reference,
    error: null,
    processed_at: paidAt ?? now,
    created_at: now,
  }, bankLineKey);
  if (fullyPaid && invoice.payment_status !== 'PAID') await emit(tx, tenantId, clock, 'invoice.paid', next);
  return next;
}

/**
 * Records money a payment provider took for a finalized (or since uncollectible) invoice, in the
 * caller's tx (payments module). Unlike mark paid it never refuses an amount: the money was
 * taken. What goes beyond the amount still due (a payment arriving after the invoice was settled
 * otherwise, or a checkout charge made before finalization applied credit) becomes customer
 * balance when the currencies match, as Stripe credits overpayments; otherwise the invoice shows
 * it as paid beyond what is due. Returns the invoice as updated.
 */
export async function recordProviderPayment(
  tx: Queryable, tenantId: string, clock: Clock, invoiceId: string, payment: { amountMinor: bigint; reference: string; paidAt: Date },
): Promise<InvoiceRow> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice) throw notFound('invoice');
  const stillDueMinor = invoice.amount_due_minor > invoice.amount_paid_minor ? invoice.amount_due_minor - invoice.amount_paid_minor : 0n;
  const excessMinor = payment.amountMinor - stillDueMinor;
  if (excessMinor > 0n) {
    const [customer] = await findCustomers(tx, tenantId, [invoice.customer_id]);
    if (customer?.currency === invoice.currency) {
      await creditBalance(tx, tenantId, clock, invoice.customer_id, excessMinor, 'OVERPAYMENT', invoice.id, `paid beyond what was due by ${payment.reference}`);
      if (stillDueMinor === 0n) return invoice;
      return applyPayment(tx, tenantId, clock, invoice, stillDueMinor, payment.reference, payment.paidAt);
    }
  }
  return applyPayment(tx, tenantId, clock, invoice, payment.amountMinor, payment.reference, payment.paidAt);
}

/**
 * Undoes a provider payment the payer's bank took back (a chargeback), in the caller's tx
 * (payments module): its transaction becomes FAILED with `reason`, `amount_paid` goes down and the
 * payment status follows (UNPAID or PARTIALLY_PAID; `paid_at` cleared). Returns the invoice as
 * updated, or undefined when that payment is not (or no longer) recorded: a replay changes nothing.
 */
export async function reverseProviderPayment(
  tx: Queryable, tenantId: string, clock: Clock, invoiceId: string, reversal: { reference: string; reason: string },
): Promise<InvoiceRow | undefined> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice) throw notFound('invoice');
  const payment = await repo.lockSettledPayment(tx, tenantId, invoice.id, reversal.reference);
  if (!payment) return undefined;
  await repo.failPaymentTransaction(tx, tenantId, payment.id, reversal.reason);
  const paidMinor = invoice.amount_paid_minor - payment.amount_minor;
  const stillPaid = paidMinor >= invoice.amount_due_minor;
  const next: InvoiceRow = {
    ...invoice,
    amount_paid_minor: paidMinor,
    payment_status: stillPaid ? 'PAID' : paidMinor > 0n ? 'PARTIALLY_PAID' : 'UNPAID',
    paid_at: stillPaid ? invoice.paid_at : null,
    updated_at: clock.now(),
  };
  await repo.updateInvoice(tx, tenantId, next);
  return next;
}

/** Writes off a FINALIZED, not fully paid invoice (final), in the caller's tx (also dunning's final action). */
export async function markUncollectibleInTx(tx: Queryable, tenantId: string, clock: Clock, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
  if (!invoice) throw notFound('invoice');
  if (invoice.status === 'UNCOLLECTIBLE') return invoice;
  if (invoice.status !== 'FINALIZED') throw conflict(`invoice is ${invoice.status}; only a FINALIZED invoice can be marked uncollectible`);
  if (invoice.payment_status === 'PAID') throw conflict('invoice is PAID; nothing left to collect');
  const now = clock.now();
  const next: InvoiceRow = { ...invoice, status: 'UNCOLLECTIBLE', marked_as_uncollectible_at: now, updated_at: now };
  await repo.updateInvoice(tx, tenantId, next);
  return next;
}

export interface MarkPaidInput {
  /** Decimal string; defaults to what is still due. */
  amount?: string;
  paid_at?: string;
  /** The merchant's own reference of the payment (bank transfer id...), shown on the transaction. */
  reference?: string;
}

/** How many credit notes of an invoice are not voided, in the caller's tx (passed in: credit notes come after invoices). */
export type OpenCreditNotes = (db: Queryable, tenantId: string, invoiceId: string) => Promise<number>;

export function createInvoiceLifecycle(deps: {
  pool: Pool;
  clock: Clock;
  openCreditNotes: OpenCreditNotes;
  refresh?: DraftRefresher;
  credits?: PrepaidCredits;
  /** The drafts the grace-period finalizer serves: those of this test clock's customers (at a step of its advance); absent, those on no test clock. */
  testClockId?: string;
  /** The finalizer's batches: drafts per transaction (FINALIZE_BATCH_SIZE) and the bound of a batch's wait for the one before (PREVIOUS_BATCH_WAIT_MS). */
  batchSize?: number;
  batchWaitMs?: number;
}) {
  const { pool, clock } = deps;
  const batchSize = deps.batchSize ?? FINALIZE_BATCH_SIZE;
  const batchWaitMs = deps.batchWaitMs ?? PREVIOUS_BATCH_WAIT_MS;

  async function locked(tx: Queryable, tenantId: string, invoiceId: string): Promise<InvoiceRow> {
    const invoice = await repo.findInvoice(tx, tenantId, invoiceId, true);
    if (!invoice) throw notFound('invoice');
    return invoice;
  }

  async function finalize(tenantId: string, invoiceId: string): Promise<InvoiceRow> {
    return withTx(pool, (tx) => finalizeInTx(tx, tenantId, clock, invoiceId, deps.refresh, deps.credits));
  }

  /** Finalizes in the caller's tx as `finalize` does: refreshed, prepaid credits, then the cash balance (the checkout's first invoice). */
  function finalizeInCallerTx(tx: Queryable, tenantId: string, invoiceId: string): Promise<InvoiceRow> {
    return finalizeInTx(tx, tenantId, clock, invoiceId, deps.refresh, deps.credits);
  }

  /**
   * VOID: a draft is discarded; a finalized invoice is cancelled if nothing was paid and no
   * credit note is open against it. Balance it consumed goes back to the customer. Unlike the
   * reference, voiding never credits the unpaid total to the balance.
   */
  async function voidInvoice(tenantId: string, invoiceId: string): Promise<InvoiceRow> {
    return withTx(pool, async (tx) => {
      const invoice = await locked(tx, tenantId, invoiceId);
      if (invoice.status === 'VOID') return invoice;
      if (invoice.status === 'UNCOLLECTIBLE') throw conflict('invoice is UNCOLLECTIBLE; that status is final');
      if (invoice.payment_status !== 'UNPAID' && invoice.amount_paid_minor > 0n) {
        throw conflict(`invoice is ${invoice.payment_status}; issue a credit note instead of voiding it`);
      }
      if ((await deps.openCreditNotes(tx, tenantId, invoice.id)) > 0) throw conflict('invoice has credit notes; void them before voiding the invoice');
      if (invoice.applied_credits_minor > 0n) {
        await creditBalance(tx, tenantId, clock, invoice.customer_id, invoice.applied_credits_minor, 'INVOICE_VOIDED', invoice.id);
      }
      if (invoice.prepaid_credits_minor > 0n) await deps.credits?.restore(tx, tenantId, invoice, clock.now());
      if (invoice.credit_carried_forward_minor > 0n) {
        await creditBalance(tx, tenantId, clock, invoice.customer_id, -invoice.credit_carried_forward_minor, 'INVOICE_VOIDED', invoice.id);
      }
      const now = clock.now();
      const next: InvoiceRow = { ...invoice, status: 'VOID', voided_at: now, updated_at: now, finalize_after: null, amount_due_minor: 0n };
      await repo.updateInvoice(tx, tenantId, next);
      await emit(tx, tenantId, clock, 'invoice.voided', next);
      return next;
    });
  }

  async function markUncollectible(tenantId: string, invoiceId: string): Promise<InvoiceRow> {
    return withTx(pool, (tx) => markUncollectibleInTx(tx, tenantId, clock, invoiceId));
  }

  /** Records a payment received outside the service (bank transfer, cheque). */
  async function markPaid(tenantId: string, invoiceId: string, input: MarkPaidInput): Promise<InvoiceRow> {
    const paidAt = input.paid_at === undefined ? undefined : new Date(input.paid_at);
    if (paidAt !== undefined && Number.isNaN(paidAt.getTime())) throw badRequest('paid_at must be an RFC 3339 date-time');
    return withTx(pool, async (tx) => {
      const invoice = await locked(tx, tenantId, invoiceId);
      if (invoice.status !== 'FINALIZED') throw conflict(`invoice is ${invoice.status}; only a FINALIZED invoice can be marked paid`);
      if (invoice.payment_status === 'PAID') throw conflict('invoice is already PAID');
      const remainingMinor = invoice.amount_due_minor - invoice.amount_paid_minor;
      let amountMinor = remainingMinor;
      if (input.amount !== undefined) {
        try {
          amountMinor = parseAmountMinor(input.amount, invoice.currency);
        } catch {
          throw badRequest(`amount must be a decimal string with at most the ${invoice.currency} minor-unit digits, got '${input.amount}'`);
        }
        if (amountMinor <= 0n) throw badRequest('amount must be above zero');
        if (amountMinor > remainingMinor) throw badRequest(`amount must not exceed what is still due`);
      }
      return applyPayment(tx, tenantId, clock, invoice, amountMinor, input.reference ?? null, paidAt);
    });
  }

  /**
   * The grace-period finalizer: drafts whose `finalize_after` has passed on the clock, entity by
   * entity, in batches of FINALIZE_BATCH_SIZE per transaction. One process at a time works on an
   * entity's drafts (`withEntityFinalizerLock`); each batch reserves a range of numbers with one
   * counter update and hands them out in invoice-date order, so numbers stay gapless and dated.
   * Returns how many it finalized.
   */
  async function finalizeDueDrafts(limit = 10_000): Promise<number> {
    let finalized = 0;
    const testClockId = deps.testClockId ?? null;
    for (const { tenant_id: tenantId, invoicing_entity_id: entityId } of await repo.dueDraftEntities(pool, clock.now(), testClockId)) {
      if (finalized >= limit) break;
      finalized += await repo.withEntityFinalizerLock(pool, tenantId, entityId, testClockId, () => finalizeEntityDrafts(tenantId, entityId, limit - finalized));
    }
    return finalized;
  }

  /**
   * One entity's due drafts, two batches in flight: while a batch takes its numbers and writes,
   * the next one locks and refreshes its drafts (the refresh is most of a batch's work), then
   * waits for it to commit before it takes the entity lock and its own numbers.
   *
   * Why this cannot hang: everything a finalizing refresh locks belongs to the draft's customer
   * (its subscriptions' billed and late periods) and a batch locks its customers' balances and
   * grants only after the batch before it committed, so a batch is cut before its first draft
   * whose customer is in the batch in flight, and the earlier batch never waits for the later
   * one. The later one's wait happens in the service, where PostgreSQL cannot see it, so a cycle
   * through a third transaction (one holding the entity row and waiting for a lock the later
   * batch holds) would go unseen: that wait is bounded (PREVIOUS_BATCH_WAIT_MS), after which the
   * later batch rolls back and is done again after the earlier one. So is a batch whose entity
   * changed (seller details, tax country) between its refresh and its numbers.
   */
  async function finalizeEntityDrafts(tenantId: string, entityId: string, limit: number): Promise<number> {
    let finalized = 0;
    let after: repo.DueDraftKey | null = null;
    let inFlight: Batch | null = null;
    for (;;) {
      let next: Batch | null = null;
      let failure: unknown;
      try {
        const room = limit - finalized - (inFlight?.count ?? 0);
        if (room > 0) next = await startBatch(tenantId, entityId, Math.min(batchSize, room), after, inFlight);
      } catch (error) {
        failure = error;
      }
      if (inFlight) {
        try {
          finalized += await inFlight.committed;
        } catch (error) {
          await next?.committed.catch(() => undefined); // it waited for this one: it rolls back too
          if (!(error instanceof BatchToRetry)) throw error;
          // again from that batch's first draft, with nothing in flight
          after = inFlight.after;
          inFlight = null;
          continue;
        }
      }
      if (failure !== undefined) throw failure;
      if (next === null) return finalized;
      after = next.last;
      inFlight = next;
    }
  }

  /**
   * Picks, locks and refreshes the next batch of drafts in a new transaction and answers once
   * they are refreshed (null when no draft is due after `after`); the transaction goes on to
   * prepare them (prepareFinalization), wait for `previous` to commit, then number and finalize
   * them (`committed`: how many).
   */
  async function startBatch(tenantId: string, entityId: string, size: number, after: repo.DueDraftKey | null, previous: Batch | null): Promise<Batch | null> {
    const now = clock.now();
    const due = await repo.dueDraftsOfEntity(pool, tenantId, entityId, now, size, deps.testClockId ?? null, after);
    // cut before the first draft of a customer the batch in flight is finalizing
    const inFlight = previous?.customers;
    const cut = inFlight ? due.findIndex((draft) => inFlight.has(draft.customer_id)) : -1;
    let picked = cut === -1 ? due : due.slice(0, cut);
    if (picked.length === 0 && due.length > 0) {
      await previous!.committed; // the very first draft is such a one: after that batch, without it
      previous = null;
      picked = due;
    }
    const last = picked.at(-1);
    if (last === undefined) return null;
    let refreshed!: () => void;
    const ready = new Promise<void>((resolve) => (refreshed = resolve));
    let count = 0;
    const waitFor = previous;
    const committed = withTx(pool, async (tx) => {
      const locked = await repo.lockDraftsStillDue(tx, tenantId, picked.map((draft) => draft.id), now);
      count = locked.length;
      if (count === 0) {
        refreshed(); // all finalized or deleted since they were picked: nothing to number
        return 0;
      }
      const entityRefreshedWith = await findEntity(tx, tenantId, entityId);
      const drafts = deps.refresh ? await deps.refresh(tx, tenantId, locked) : locked;
      refreshed();
      const prepared = await prepareFinalization(tx, tenantId, drafts, deps.credits);
      if (waitFor) await committedWithin(waitFor, batchWaitMs);
      const entity = await findEntity(tx, tenantId, entityId, true);
      if (!entity) return 0;
      if (!entityRefreshedWith || entityDetails(entity) !== entityDetails(entityRefreshedWith)) throw new BatchToRetry('the invoicing entity changed');
      return (await finalizeLocked(tx, tenantId, clock, now, entity.id, drafts, prepared, deps.credits)).length;
    });
    // answers when refreshed, or with the error that ended the batch before
    await Promise.race([ready, committed]);
    return { after, last: { invoice_date: last.invoice_date, id: last.id }, customers: new Set(picked.map((draft) => draft.customer_id)), count, committed };
  }

  return { finalize, finalizeInTx: finalizeInCallerTx, voidInvoice, markUncollectible, markPaid, finalizeDueDrafts };
}

export type InvoiceLifecycle = ReturnType<typeof createInvoiceLifecycle>;

