// The money loop, part 1 (docs/payments.md, "Charging"): a finalized invoice's amount still due
// is charged to the customer's default method. Every request of an attempt carries the attempt's
// idempotency key, so a retry, a reconciliation or a crash between the provider's answer and our
// write never takes the money twice.
import type { Clock } from '../../kernel/clock.js';
import { MS_PER_MINUTE } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent, type OutboxConsumer, type OutboxRecord } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { formatMinor } from '../../kernel/money.js';
import { enqueueJob } from '../../jobs/queue.js';
import { findInvoice, invoiceEventData, recordProviderPayment, reverseProviderPayment, type InvoiceRow } from '../invoices/index.js';
import type { ProviderPayment } from '../../adapters/payments/provider.js';
import type { Providers } from './providers.js';
import * as repo from './repository.js';
import type { AttemptRow, AttemptStatus } from './repository.js';

export const CHARGE_TASK = 'payments.charge';
export const RECONCILE_TASK = 'payments.reconcile';
/** An attempt asked of the provider this long ago without our record of the answer is reconciled. */
export const RECONCILE_AFTER_MS = 5 * MS_PER_MINUTE;

/** Where an attempt may go from where it is. SUCCEEDED is final; money taken always wins. */
const NEXT: Record<AttemptStatus, readonly AttemptStatus[]> = {
  PENDING: ['PENDING', 'SUCCEEDED', 'FAILED', 'REQUIRES_ACTION'],
  REQUIRES_ACTION: ['SUCCEEDED', 'FAILED'],
  FAILED: ['SUCCEEDED'],
  SUCCEEDED: [],
};

/** Test seams: `afterProviderAnswer` runs between the provider's answer and our write (a crash there is what reconciliation is for). */
export interface ChargingHooks {
  afterProviderAnswer?: (attempt: AttemptRow, payment: ProviderPayment) => void | Promise<void>;
}

export const idempotencyKeyOf = (attemptId: string) => `charge:${attemptId}`;

/** Whether an invoice is charged without the customer acting: its own `auto_charge` when set, else the customer's. */
export const chargesAutomatically = (invoice: Pick<InvoiceRow, 'auto_charge'>, settings: { auto_charge: boolean }) => invoice.auto_charge ?? settings.auto_charge;

/** `data` of payment.* events: one payment transaction (attempt) as the API shows it. */
export function paymentEventData(attempt: AttemptRow): Record<string, unknown> {
  return {
    payment_id: attempt.id, invoice_id: attempt.invoice_id, customer_id: attempt.customer_id, payment_method_id: attempt.payment_method_id,
    provider: attempt.provider, provider_payment_id: attempt.provider_payment_id, occasion: attempt.occasion, retry_number: attempt.retry_number,
    status: attempt.status, amount: formatMinor(attempt.amount_minor, attempt.currency), currency: attempt.currency,
    failure_code: attempt.failure_code, failure_message: attempt.failure_message, created_at: attempt.created_at.toISOString(),
  };
}

export function createCharging(deps: {
  pool: Pool; clock: Clock; providers: Providers;
  /** Dunning's turn after a charge failed or needs the customer (in the same tx). */
  onFailed?: (tx: Queryable, attempt: AttemptRow) => Promise<void>;
  /** Dunning's and refunds' turn on the other events (invoice.paid, invoice.voided, credit_note.finalized), in the relay's tx. */
  onOtherEvent?: (tx: Queryable, event: OutboxRecord) => Promise<void>;
  /** A CHECKOUT attempt succeeded (in the same tx): the hosted checkout completes its session (checkout-payments.ts). */
  onCheckoutPaid?: (tx: Queryable, attempt: AttemptRow) => Promise<void>;
  /** The invoice's pay link, carried by `invoice.payment_failed` after a chargeback (pay-links.ts). */
  payUrlFor?: (db: Queryable, invoice: InvoiceRow, tenantId: string) => Promise<string | null>;
}) {
  const { onOtherEvent } = deps;
  const { pool, clock, providers } = deps;
  const hooks: ChargingHooks = {};

  /**
   * In the relay's tx: on `invoice.finalized`, one FINALIZATION attempt when something is still
   * due, auto_charge is on (the invoice's, else the customer's) and the customer has a default method of the tenant's current
   * provider; the charge itself runs as a job after commit.
   */
  async function onInvoiceFinalized(tx: Queryable, event: OutboxRecord): Promise<void> {
    const tenantId = event.tenant_id;
    const invoice = await findInvoice(tx, tenantId, event.object_id ?? '');
    if (!invoice || invoice.status !== 'FINALIZED') return;
    const dueMinor = invoice.amount_due_minor - invoice.amount_paid_minor;
    if (dueMinor <= 0n) return;
    const settings = await repo.findCustomerSettings(tx, tenantId, invoice.customer_id);
    if (!chargesAutomatically(invoice, settings) || !settings.default_payment_method_id) return;
    const method = await repo.findPaymentMethod(tx, tenantId, settings.default_payment_method_id);
    const provider = await providers.forTenant(tx, tenantId);
    if (!method || !provider || provider.name !== method.provider) return;
    const now = clock.now();
    const id = newId('paymentAttempt', now.getTime());
    const inserted = await repo.insertAttempt(tx, {
      id, tenant_id: tenantId, invoice_id: invoice.id, customer_id: invoice.customer_id, payment_method_id: method.id, provider: method.provider,
      occasion: 'FINALIZATION', retry_number: 0, amount_minor: dueMinor, currency: invoice.currency, status: 'PENDING', idempotency_key: idempotencyKeyOf(id),
      provider_payment_id: null, failure_code: null, failure_message: null, requested_at: null, settled_at: null, created_at: now, updated_at: now,
    });
    if (inserted) await enqueueJob(tx, CHARGE_TASK, { tenant_id: tenantId, attempt_id: id }, { jobKey: `${CHARGE_TASK}:${id}` });
  }

  /**
   * Applies what the provider says about an attempt's payment, in the caller's tx with the
   * attempt locked; a SUCCEEDED payment is recorded on the invoice through the invoices module.
   * Answers arriving late or out of order never move an attempt backwards (NEXT).
   */
  async function applyPayment(tx: Queryable, attempt: AttemptRow, payment: ProviderPayment): Promise<AttemptRow> {
    if (attempt.status === 'SUCCEEDED' && payment.reversed) return chargeBack(tx, attempt, payment);
    if (!NEXT[attempt.status].includes(payment.status)) return attempt;
    const now = clock.now();
    const next: AttemptRow = {
      ...attempt,
      status: payment.status,
      provider_payment_id: payment.id,
      failure_code: payment.status === 'SUCCEEDED' || payment.status === 'PENDING' ? null : payment.failureCode,
      failure_message: payment.status === 'SUCCEEDED' || payment.status === 'PENDING' ? null : payment.failureMessage,
      settled_at: payment.status === 'SUCCEEDED' ? now : attempt.settled_at,
      updated_at: now,
    };
    await repo.updateAttempt(tx, next);
    if (payment.status === 'SUCCEEDED' && attempt.invoice_id !== null) {
      await recordProviderPayment(tx, attempt.tenant_id, clock, attempt.invoice_id, { amountMinor: attempt.amount_minor, reference: payment.id, paidAt: now });
    }
    // a checkout's first payment has no invoice yet: its session is completed (subscription, invoice, this payment recorded) by a job
    if (payment.status === 'SUCCEEDED' && attempt.occasion === 'CHECKOUT') await deps.onCheckoutPaid?.(tx, next);
    // events for a move into an outcome (PENDING -> PENDING, and REQUIRES_ACTION -> FAILED, say nothing new to the customer)
    const outcome = payment.status === 'SUCCEEDED' || (attempt.status === 'PENDING' && payment.status !== 'PENDING');
    if (outcome) {
      await writeOutboxEvent(scoped(tx, attempt.tenant_id), clock, { type: payment.status === 'SUCCEEDED' ? 'payment.succeeded' : 'payment.failed', objectId: attempt.id, data: paymentEventData(next) });
      if (payment.status !== 'SUCCEEDED') await deps.onFailed?.(tx, next);
    }
    return next;
  }

  /**
   * The payer's bank took back money we had (GoCardless `charged_back`): the one move out of
   * SUCCEEDED. The attempt becomes FAILED with the provider's cause, the invoice's payment is
   * undone (unpaid again), and `payment.failed` then `invoice.payment_failed` (the customer is
   * mailed the pay link) are written. Dunning is not started: retrying a disputed debit is the
   * merchant's decision. A replay finds the attempt FAILED and changes nothing.
   */
  async function chargeBack(tx: Queryable, attempt: AttemptRow, payment: ProviderPayment): Promise<AttemptRow> {
    const now = clock.now();
    const next: AttemptRow = { ...attempt, status: 'FAILED', failure_code: payment.failureCode ?? 'charged_back', failure_message: payment.failureMessage, updated_at: now };
    await repo.updateAttempt(tx, next);
    // a checkout's first payment not yet recorded on its invoice has nothing to undo there
    const invoice = attempt.invoice_id === null ? undefined : await reverseProviderPayment(tx, attempt.tenant_id, clock, attempt.invoice_id, { reference: payment.id, reason: `charged_back: ${payment.failureMessage ?? 'the payer\'s bank took the payment back'}` });
    const scope = scoped(tx, attempt.tenant_id);
    await writeOutboxEvent(scope, clock, { type: 'payment.failed', objectId: attempt.id, data: paymentEventData(next) });
    if (invoice) {
      await writeOutboxEvent(scope, clock, {
        type: 'invoice.payment_failed', objectId: invoice.id,
        data: {
          ...invoiceEventData(invoice), payment_id: attempt.id, failure_code: next.failure_code, failure_message: next.failure_message,
          amount_remaining: formatMinor(invoice.amount_due_minor - invoice.amount_paid_minor, invoice.currency),
          attempt_count: null, next_retry_at: null, final_action: null, pay_url: (await deps.payUrlFor?.(tx, invoice, attempt.tenant_id)) ?? null,
        },
      });
    }
    return next;
  }

  /** Asks the provider (charge, same key) and records the answer. Safe to run again at any point. */
  async function charge(tenantId: string, attemptId: string): Promise<AttemptRow | undefined> {
    const attempt = await withTx(pool, async (tx) => {
      const row = await repo.findAttempt(tx, tenantId, attemptId, true);
      if (!row || row.status !== 'PENDING') return undefined;
      // recorded before the request: from here on a missing answer is the reconciler's to find
      if (!row.requested_at) {
        row.requested_at = clock.now();
        row.updated_at = row.requested_at;
        await repo.updateAttempt(tx, row);
      }
      return row;
    });
    if (!attempt) return repo.findAttempt(pool, tenantId, attemptId);
    const provider = await providers.byName(pool, tenantId, attempt.provider);
    if (!provider) return attempt;
    const method = attempt.provider_payment_id ? null : (await repo.findPaymentMethod(pool, tenantId, attempt.payment_method_id!))!;
    const payment = !method
      ? await provider.getPayment(attempt.provider_payment_id!)
      : await provider.charge({
          paymentMethodId: method.provider_method_id,
          methodType: method.method_type,
          customerId: (await repo.findProviderCustomer(pool, tenantId, attempt.customer_id, attempt.provider))!,
          amountMinor: attempt.amount_minor,
          currency: attempt.currency,
          idempotencyKey: attempt.idempotency_key,
          description: attempt.invoice_id ? `Invoice ${attempt.invoice_id}` : 'Checkout: first payment',
          metadata: { tenant_id: tenantId, attempt_id: attempt.id, invoice_id: attempt.invoice_id ?? '' },
        });
    await hooks.afterProviderAnswer?.(attempt, payment);
    return withTx(pool, async (tx) => {
      const locked = (await repo.findAttempt(tx, tenantId, attemptId, true))!;
      return applyPayment(tx, locked, payment);
    });
  }

  /**
   * PENDING attempts asked of the provider RECONCILE_AFTER_MS ago or more (by the clock): a
   * process that died between the answer and the write, or a payment still processing. Each is
   * asked again with the same idempotency key (or looked up by its payment id), so the provider
   * answers what it did the first time. Returns how many it looked at.
   */
  async function reconcile(limit = 500): Promise<number> {
    const open = await repo.openAttempts(pool, new Date(clock.now().getTime() - RECONCILE_AFTER_MS), limit);
    for (const { tenant_id: tenantId, id } of open) await charge(tenantId, id);
    return open.length;
  }

  /**
   * Applies a verified provider event once per provider event id; false for a replay. An event
   * revoking a saved method (a mandate ended) detaches the methods saved on it, so they are not
   * charged again (and stop being the customer's default).
   */
  async function applyEvent(
    tenantId: string, provider: AttemptRow['provider'], event: { id: string; type: string; payment: ProviderPayment | null; revokedMethodId?: string | null },
  ): Promise<boolean> {
    return withTx(pool, async (tx) => {
      if (!(await repo.claimWebhookEvent(tx, tenantId, provider, event.id, event.type, clock.now()))) return false;
      if (event.revokedMethodId) {
        for (const method of await repo.methodsByProviderId(tx, tenantId, provider, event.revokedMethodId)) await repo.detachPaymentMethod(tx, tenantId, method.id, clock.now());
      }
      const payment = event.payment;
      if (!payment) return true;
      const byMetadata = payment.metadata.tenant_id === tenantId && payment.metadata.attempt_id ? await repo.findAttempt(tx, tenantId, payment.metadata.attempt_id, true) : undefined;
      const attempt = byMetadata ?? (await repo.findAttemptByProviderPayment(tx, tenantId, provider, payment.id));
      if (attempt && attempt.provider === provider) await applyPayment(tx, attempt, payment);
      return true;
    });
  }

  const outboxConsumer: OutboxConsumer = {
    name: 'payments',
    handle: async (tx, event) => {
      if (event.event_type === 'invoice.finalized') await onInvoiceFinalized(tx, event);
      else await onOtherEvent?.(tx, event);
    },
  };

  return { hooks, charge, reconcile, applyEvent, outboxConsumer };
}

export type Charging = ReturnType<typeof createCharging>;
