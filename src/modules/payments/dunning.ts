// The money loop, part 3 (docs/payments.md, "Dunning"): a failed automatic charge is tried again
// on the tenant's schedule, the customer is mailed a pay link after each failure, the
// subscription shows PAST_DUE until the invoice is paid, and after the last retry the final
// action is taken. Due times come from the pure `nextDunningStep` (src/domain/dunning.ts); the
// sweep reads `clock.now()`, so any injected clock drives it: the service clock for customers on no
// test clock, a test clock's time (at each stop of its advance) for that clock's customers.
import { frozenClock, type Clock } from '../../kernel/clock.js';
import { badRequest } from '../../kernel/errors.js';
import { formatMinor } from '../../kernel/money.js';
import { newId } from '../../kernel/ids.js';
import type { EventType } from '../../kernel/event-types.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent, type OutboxRecord } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import { DEFAULT_DUNNING_SCHEDULE, DUNNING_FINAL_ACTIONS, nextDunningStep, retryDaysProblem, type DunningFinalAction } from '../../domain/index.js';
import { findInvoice, invoiceEventData, markUncollectibleInTx, type InvoiceRow } from '../invoices/index.js';
import { cancelForNonPayment, setPastDue } from '../subscriptions/index.js';
import { findCustomer } from '../customers/index.js';
import type { Providers } from './providers.js';
import type { PayLinks } from './pay-links.js';
import { chargesAutomatically } from './charging.js';
import * as repo from './repository.js';
import type { AttemptRow, DunningRow, DunningSettingsRow } from './repository.js';

export const DUNNING_TASK = 'payments.dunning';
/** Wall-clock wait of the charge job of a retry an advance charges at once (its safety net). */
const CHARGE_NET_DELAY_MS = 5 * 60_000;

export interface DunningSettingsInput {
  retry_days?: unknown;
  final_action?: unknown;
}

/** Why a step of dunning failed: the attempt's answer, or no usable payment method at retry time. */
interface StepFailure {
  attempt: AttemptRow | null;
  code: string | null;
  message: string | null;
}

export function createDunning(deps: {
  pool: Pool; clock: Clock; providers: Providers;
  chargeTask: string; idempotencyKeyOf: (attemptId: string) => string;
  /** The one pay-link builder (pay-links.ts): the dunning e-mails carry the invoice's hosted pay page. */
  payUrlFor: PayLinks['payUrlFor'];
  /** The sweep serves this test clock's customers (its advance, with `clock` at a stop); absent, the customers on no clock. */
  testClockId?: string;
  /**
   * Charges a retry's attempt at once instead of leaving it to the queued charge job (which still
   * runs, and finds it done): an advance must know a retry's outcome before its next stop.
   */
  chargeNow?: (tenantId: string, attemptId: string) => Promise<unknown>;
}) {
  const { pool, clock, providers } = deps;

  async function getSettings(db: Queryable, tenantId: string): Promise<DunningSettingsRow> {
    return (await repo.findDunningSettings(db, tenantId)) ?? { retry_days: [...DEFAULT_DUNNING_SCHEDULE.retryDays], final_action: DEFAULT_DUNNING_SCHEDULE.finalAction };
  }

  async function updateSettings(tenantId: string, input: DunningSettingsInput): Promise<DunningSettingsRow> {
    return withTx(pool, async (tx) => {
      const current = await getSettings(tx, tenantId);
      const next: DunningSettingsRow = { ...current };
      if (input.retry_days !== undefined) {
        const days = input.retry_days;
        if (!Array.isArray(days) || days.some((d) => typeof d !== 'number')) throw badRequest('retry_days must be an array of days after the failed payment, e.g. [3, 5, 7]');
        const problem = retryDaysProblem(days as number[]);
        if (problem) throw badRequest(`retry_days: ${problem}; e.g. [3, 5, 7]`);
        next.retry_days = days as number[];
      }
      if (input.final_action !== undefined) {
        if (!DUNNING_FINAL_ACTIONS.includes(input.final_action as DunningFinalAction)) {
          throw badRequest(`final_action must be one of ${DUNNING_FINAL_ACTIONS.join(', ')}, e.g. "MARK_UNCOLLECTIBLE", got ${JSON.stringify(input.final_action)}`);
        }
        next.final_action = input.final_action as DunningFinalAction;
      }
      await repo.upsertDunningSettings(tx, tenantId, next, clock.now());
      return next;
    });
  }

  async function emitInvoiceEvent(tx: Queryable, tenantId: string, type: EventType, invoice: InvoiceRow, extra: Record<string, unknown>): Promise<void> {
    await writeOutboxEvent(scoped(tx, tenantId), clock, { type, objectId: invoice.id, data: { ...invoiceEventData(invoice), ...extra } });
  }

  /** The subscription is paid up again unless another of its invoices is still overdue. */
  async function releaseSubscription(tx: Queryable, row: DunningRow): Promise<void> {
    if (row.subscription_id && (await repo.countOverdueOfSubscription(tx, row.tenant_id, row.subscription_id, row.invoice_id)) === 0) {
      await setPastDue(tx, clock, row.tenant_id, row.subscription_id, false);
    }
  }

  /** After a failed step: the next retry's due time, or the final action; then the customer is told (invoice.payment_failed). */
  async function afterFailure(tx: Queryable, row: DunningRow, failure: StepFailure): Promise<void> {
    const schedule = { retryDays: row.retry_days, finalAction: row.final_action };
    const step = nextDunningStep(row.failed_at, schedule, row.retries_done);
    const now = clock.now();
    let finalAction: DunningFinalAction | null = null;
    if ('retry' in step) {
      Object.assign(row, { next_retry_at: step.dueAt, updated_at: now });
    } else {
      finalAction = step.finalAction;
      Object.assign(row, { status: 'EXHAUSTED', next_retry_at: null, updated_at: now });
    }
    await repo.updateDunning(tx, row);
    let invoice = (await findInvoice(tx, row.tenant_id, row.invoice_id))!;
    // written off only while still owed: a void or a payment that raced the last retry wins
    if (finalAction === 'MARK_UNCOLLECTIBLE' && invoice.status === 'FINALIZED' && invoice.payment_status !== 'PAID') {
      invoice = await markUncollectibleInTx(tx, row.tenant_id, clock, row.invoice_id);
      await releaseSubscription(tx, row);
    } else if (finalAction === 'CANCEL_SUBSCRIPTION' && row.subscription_id) {
      await cancelForNonPayment(tx, clock, row.tenant_id, row.subscription_id);
    }
    await emitInvoiceEvent(tx, row.tenant_id, 'invoice.payment_failed', invoice, {
      payment_id: failure.attempt?.id ?? null,
      failure_code: failure.code,
      failure_message: failure.message,
      amount_remaining: formatMinor(invoice.amount_due_minor - invoice.amount_paid_minor, invoice.currency),
      attempt_count: row.retries_done + 1,
      next_retry_at: row.next_retry_at?.toISOString() ?? null,
      final_action: finalAction,
      // null once nothing can be paid on the page (written off, paid, void)
      pay_url: await deps.payUrlFor(tx, invoice, row.tenant_id),
    });
  }

  /**
   * In the tx that recorded a FAILED or REQUIRES_ACTION answer. The finalization charge starts
   * the invoice's dunning (invoice.overdue, the subscription PAST_DUE); a retry's failure moves it
   * on. A late or repeated answer of an attempt already counted changes nothing.
   */
  async function onAttemptFailed(tx: Queryable, attempt: AttemptRow): Promise<void> {
    // a decline on the hosted pay page is the customer's own try: it neither starts nor moves dunning
    if (attempt.occasion === 'PAY_PAGE') return;
    // nor does a decline of a checkout's first payment: there is no subscription or invoice yet
    if (attempt.invoice_id === null) return;
    if (!deps.testClockId) {
      // a customer on a test clock: its dunning runs on the clock, although the charge job
      // answered at service time; a finalization charge counts from the invoice's finalization
      // on the clock (the charge follows it at once), a retry from when the advance made it
      const customer = await findCustomer(tx, attempt.tenant_id, attempt.customer_id);
      if (customer?.test_clock_id) {
        const finalizedAt = (await findInvoice(tx, attempt.tenant_id, attempt.invoice_id))?.finalized_at;
        const at = attempt.occasion === 'FINALIZATION' ? (finalizedAt ?? clock.now()) : attempt.created_at;
        return createDunning({ ...deps, clock: frozenClock(at), testClockId: customer.test_clock_id }).onAttemptFailed(tx, attempt);
      }
    }
    const failure: StepFailure = { attempt, code: attempt.failure_code, message: attempt.failure_message };
    if (attempt.occasion === 'FINALIZATION') {
      const invoice = await findInvoice(tx, attempt.tenant_id, attempt.invoice_id);
      if (!invoice || invoice.status !== 'FINALIZED' || invoice.payment_status === 'PAID') return;
      const settings = await getSettings(tx, attempt.tenant_id);
      const now = clock.now();
      const row: DunningRow = {
        tenant_id: attempt.tenant_id, invoice_id: invoice.id, customer_id: invoice.customer_id, subscription_id: invoice.subscription_id, status: 'ACTIVE',
        failed_at: now, retry_days: settings.retry_days, final_action: settings.final_action, retries_done: 0, next_retry_at: null, created_at: now, updated_at: now,
      };
      if (!(await repo.insertDunning(tx, row))) return;
      await emitInvoiceEvent(tx, row.tenant_id, 'invoice.overdue', invoice, { overdue_since: now.toISOString(), pay_url: await deps.payUrlFor(tx, invoice, row.tenant_id) });
      if (row.subscription_id) await setPastDue(tx, clock, row.tenant_id, row.subscription_id, true);
      await afterFailure(tx, row, failure);
      return;
    }
    const row = await repo.findDunning(tx, attempt.tenant_id, attempt.invoice_id, true);
    if (!row || row.status !== 'ACTIVE' || attempt.retry_number !== row.retries_done + 1) return;
    row.retries_done = attempt.retry_number;
    await afterFailure(tx, row, failure);
  }




  /** Outbox: a paid invoice ends its dunning (RECOVERED), a voided one stops it; the subscription recovers. */
  async function onInvoiceEvent(tx: Queryable, event: OutboxRecord): Promise<void> {
    if (event.event_type !== 'invoice.paid' && event.event_type !== 'invoice.voided') return;
    const row = await repo.findDunning(tx, event.tenant_id, event.object_id ?? '', true);
    if (!row || (row.status !== 'ACTIVE' && row.status !== 'EXHAUSTED')) return;
    Object.assign(row, { status: event.event_type === 'invoice.paid' ? 'RECOVERED' : 'STOPPED', next_retry_at: null, updated_at: clock.now() });
    await repo.updateDunning(tx, row);
    await releaseSubscription(tx, row);
  }

  /** One due retry, in its own tx: a RETRY attempt charged by the charge job (its id is returned), or a failed step when nothing can be charged. */
  async function retryOne(tenantId: string, invoiceId: string): Promise<string | undefined> {
    return withTx(pool, async (tx) => {
      const row = await repo.findDunning(tx, tenantId, invoiceId, true);
      const now = clock.now();
      if (!row || row.status !== 'ACTIVE' || !row.next_retry_at || row.next_retry_at > now) return;
      const invoice = await findInvoice(tx, tenantId, invoiceId);
      const dueMinor = invoice ? invoice.amount_due_minor - invoice.amount_paid_minor : 0n;
      if (!invoice || invoice.status !== 'FINALIZED' || dueMinor <= 0n) {
        // settled or written off by other means (mark-paid emits invoice.paid; this is the rest)
        Object.assign(row, { status: invoice?.payment_status === 'PAID' ? 'RECOVERED' : 'STOPPED', next_retry_at: null, updated_at: now });
        await repo.updateDunning(tx, row);
        await releaseSubscription(tx, row);
        return;
      }
      const retry = row.retries_done + 1;
      const settings = await repo.findCustomerSettings(tx, tenantId, invoice.customer_id);
      const method = chargesAutomatically(invoice, settings) && settings.default_payment_method_id ? await repo.findPaymentMethod(tx, tenantId, settings.default_payment_method_id) : undefined;
      const provider = await providers.forTenant(tx, tenantId);
      if (!method || !provider || provider.name !== method.provider) {
        row.retries_done = retry;
        await afterFailure(tx, row, { attempt: null, code: 'no_payment_method', message: 'The customer has no default payment method that can be charged automatically.' });
        return;
      }
      const id = newId('paymentAttempt', now.getTime());
      const inserted = await repo.insertAttempt(tx, {
        id, tenant_id: tenantId, invoice_id: invoice.id, customer_id: invoice.customer_id, payment_method_id: method.id, provider: method.provider,
        occasion: 'RETRY', retry_number: retry, amount_minor: dueMinor, currency: invoice.currency, status: 'PENDING', idempotency_key: deps.idempotencyKeyOf(id),
        provider_payment_id: null, failure_code: null, failure_message: null, requested_at: null, settled_at: null, created_at: now, updated_at: now,
      });
      // the retry is in flight: its answer (onAttemptFailed or invoice.paid) moves the dunning on
      Object.assign(row, { next_retry_at: null, updated_at: now });
      await repo.updateDunning(tx, row);
      if (!inserted) return undefined;
      // charged at once by an advance (chargeNow): the job is only its safety net should the
      // process die first, so it waits, and then finds the attempt answered (the answer must come
      // from this clock's dunning, not the service clock's)
      const runAt = deps.chargeNow ? new Date(Date.now() + CHARGE_NET_DELAY_MS) : undefined;
      await enqueueJob(tx, deps.chargeTask, { tenant_id: tenantId, attempt_id: id }, { jobKey: `${deps.chargeTask}:${id}`, ...(runAt ? { runAt } : {}) });
      return id;
    });
  }

  /**
   * The sweep: every retry due by `clock.now()` of the customers on no test clock (task
   * payments.dunning), or of `tenantId`'s customers on `testClockId` (an advance's stop). Returns
   * how many it looked at.
   */
  async function sweep(limit = 500, tenantId?: string): Promise<number> {
    const scope = deps.testClockId && tenantId ? { tenantId, testClockId: deps.testClockId } : null;
    if (deps.testClockId && !scope) return 0;
    const due = await repo.dueDunnings(pool, clock.now(), limit, scope);
    for (const { tenant_id: tenant, invoice_id: invoiceId } of due) {
      const attemptId = await retryOne(tenant, invoiceId);
      if (attemptId && deps.chargeNow) await deps.chargeNow(tenant, attemptId);
    }
    return due.length;
  }

  return { getSettings: (tenantId: string) => getSettings(pool, tenantId), updateSettings, onAttemptFailed, onInvoiceEvent, sweep };
}

export type Dunning = ReturnType<typeof createDunning>;
