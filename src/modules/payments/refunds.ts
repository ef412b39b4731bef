// The money loop, part 4 (docs/payments.md, "Refunds"): a finalized REFUND credit note gives its
// refunded amount back through the provider that took the payment, partly or in full. Each refund
// carries an idempotency key derived from its id, and one note refunds one payment at most once
// (unique key), so a replayed event, a retried job or a crash never refunds twice.
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { OutboxRecord } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import { findCreditNote, setRefundStatus } from '../credit-notes/index.js';
import type { Providers } from './providers.js';
import * as repo from './repository.js';
import type { RefundRow } from './repository.js';

export const REFUND_TASK = 'payments.refund';

export const refundIdempotencyKeyOf = (refundId: string) => `refund:${refundId}`;

/** The credit note's refund_status from its provider refunds. */
function noteStatusOf(refunds: RefundRow[]): 'PENDING' | 'REFUNDED' | 'FAILED' {
  if (refunds.some((r) => r.status === 'FAILED')) return 'FAILED';
  return refunds.every((r) => r.status === 'SUCCEEDED') ? 'REFUNDED' : 'PENDING';
}

export function createRefunds(deps: { pool: Pool; clock: Clock; providers: Providers }) {
  const { pool, clock, providers } = deps;

  /**
   * In the relay's tx, on `credit_note.finalized` of a REFUND note: the refunded amount is split
   * over the invoice's SUCCEEDED provider payments, newest first, each up to what is not refunded
   * yet; one refund row per payment, charged by the refund job. Nothing paid through a provider:
   * the note is MANUAL.
   */
  async function onCreditNoteFinalized(tx: Queryable, event: OutboxRecord): Promise<void> {
    const tenantId = event.tenant_id;
    const note = await findCreditNote(tx, tenantId, event.object_id ?? '', true);
    if (!note || note.status !== 'FINALIZED' || note.credit_type !== 'REFUND' || note.refunded_minor <= 0n || note.refund_status !== 'PENDING') return;
    if ((await repo.refundsOfCreditNote(tx, tenantId, note.id)).length > 0) return;
    const paid = (await repo.listAttemptsOfInvoice(tx, tenantId, note.invoice_id)).filter((a) => a.status === 'SUCCEEDED' && a.provider_payment_id).reverse();
    const refunded = await repo.refundedByAttempt(tx, tenantId, paid.map((a) => a.id));
    let leftMinor = note.refunded_minor;
    const now = clock.now();
    const rows: RefundRow[] = [];
    for (const attempt of paid) {
      const refundableMinor = attempt.amount_minor - (refunded.get(attempt.id) ?? 0n);
      const amountMinor = refundableMinor < leftMinor ? refundableMinor : leftMinor;
      if (amountMinor <= 0n) continue;
      const id = newId('paymentRefund', now.getTime());
      rows.push({
        id, tenant_id: tenantId, credit_note_id: note.id, attempt_id: attempt.id, provider: attempt.provider, amount_minor: amountMinor, currency: note.currency,
        status: 'PENDING', idempotency_key: refundIdempotencyKeyOf(id), provider_refund_id: null, requested_at: null, created_at: now, updated_at: now,
      });
      leftMinor -= amountMinor;
      if (leftMinor === 0n) break;
    }
    // paid by hand (mark-paid), or more refunded than the provider took: the merchant pays out
    if (rows.length === 0 || leftMinor > 0n) {
      await setRefundStatus(tx, tenantId, note.id, 'MANUAL', now);
      return;
    }
    for (const row of rows) {
      if (await repo.insertRefund(tx, row)) await enqueueJob(tx, REFUND_TASK, { tenant_id: tenantId, refund_id: row.id }, { jobKey: `${REFUND_TASK}:${row.id}` });
    }
  }

  /** Job payments.refund: asks the provider (same key every time) and records the answer; safe to run again. */
  async function refund(tenantId: string, refundId: string): Promise<RefundRow | undefined> {
    const row = await withTx(pool, async (tx) => {
      const found = await repo.findRefund(tx, tenantId, refundId, true);
      if (!found || found.status !== 'PENDING') return undefined;
      if (!found.requested_at) {
        found.requested_at = clock.now();
        found.updated_at = found.requested_at;
        await repo.updateRefund(tx, found);
      }
      return found;
    });
    if (!row) return repo.findRefund(pool, tenantId, refundId);
    const attempt = (await repo.findAttempt(pool, tenantId, row.attempt_id))!;
    const provider = await providers.byName(pool, tenantId, row.provider);
    if (!provider) return row;
    const answer = await provider.refund({ paymentId: attempt.provider_payment_id!, amountMinor: row.amount_minor, idempotencyKey: row.idempotency_key });
    return withTx(pool, async (tx) => {
      const locked = (await repo.findRefund(tx, tenantId, refundId, true))!;
      if (locked.status !== 'PENDING') return locked;
      const now = clock.now();
      const next: RefundRow = { ...locked, status: answer.status, provider_refund_id: answer.id, updated_at: now };
      await repo.updateRefund(tx, next);
      const all = await repo.refundsOfCreditNote(tx, tenantId, locked.credit_note_id);
      await setRefundStatus(tx, tenantId, locked.credit_note_id, noteStatusOf(all), now);
      return next;
    });
  }

  return { onCreditNoteFinalized, refund, refundsOf: (tenantId: string, creditNoteId: string) => repo.refundsOfCreditNote(pool, tenantId, creditNoteId) };
}

export type Refunds = ReturnType<typeof createRefunds>;
