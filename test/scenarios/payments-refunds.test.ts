// Refunds through the provider from REFUND credit notes (docs/payments.md, "Refunds"): a partial
// refund on the sandbox and on Stripe (the real SDK against the local fake), replayed events,
// jobs run again and a lost write, and still exactly one provider refund.
import { describe, expect, it } from 'vitest';
import { withTx } from '../../src/db/tx.js';
import type { OutboxRecord } from '../../src/db/outbox.js';
import type { Harness } from '../harness/app.js';
import { useStripeHarness } from '../harness/stripe-harness.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';
import { REFUND_TASK } from '../../src/modules/payments/index.js';

const SECRET_KEY = 'sk_live_51HxRefundScenarioKey9f2A';
const stripe = useStripeHarness(SECRET_KEY);
const harness = stripe.harness;

async function settle(h: Harness): Promise<void> {
  for (let round = 0; round < 4; round++) await h.drainJobs();
}

/** A 144.00 EUR invoice charged in full with the customer's saved method, on the tenant of `key`. */
async function paidInvoice(h: Harness, key: string, tenantId: string, method: Record<string, string>) {
  const customer = await createCustomer(h, {}, key);
  const saved = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { key, body: method });
  expect(saved.statusCode, saved.body).toBe(201);
  const draft = await createDraft(h, customer.id, { tenantId });
  expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`, { key })).statusCode).toBe(200);
  await settle(h);
  const invoice = (await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`, { key })).json();
  expect(invoice.payment_status).toBe('PAID');
  return invoice as { id: string; line_items: { id: string }[] };
}

/** A finalized REFUND note of 50.00 + 20 % VAT = 60.00 on the invoice's first line (amount null: all that is left). */
async function refundNote(h: Harness, key: string, invoice: { id: string; line_items: { id: string }[] }, amount: string | null = '50.00') {
  const lines = amount === null ? {} : { lines: [{ invoice_line_id: invoice.line_items[0]!.id, amount }] };
  const created = await h.request('POST', '/api/v1/credit-notes', { key, body: { invoice_id: invoice.id, reason: 'Outage', credit_type: 'REFUND', ...lines } });
  expect(created.statusCode, created.body).toBe(201);
  const finalized = await h.request('POST', `/api/v1/credit-notes/${created.json().id}/finalize`, { key });
  expect(finalized.statusCode, finalized.body).toBe(200);
  return finalized.json() as { id: string; refunded_amount: string; refund_status: string };
}

const refundRows = async (h: Harness, noteId: string) =>
  (await h.db.pool.query('SELECT id, attempt_id, amount_minor, status, provider_refund_id, idempotency_key FROM payment_refunds WHERE credit_note_id = $1', [noteId])).rows;

/** Hands the note's credit_note.finalized event to the payments consumer again, as a replayed relay would. */
async function replayFinalized(h: Harness, noteId: string) {
  const { rows } = await h.db.pool.query<OutboxRecord>(`SELECT * FROM outbox_events WHERE object_id = $1 AND event_type = 'credit_note.finalized'`, [noteId]);
  await withTx(h.db.pool, (tx) => h.service.payments.refunds.onCreditNoteFinalized(tx, rows[0]!));
}

describe('refunds by credit note', () => {
  it('sandbox: refunds part of the payment once, then the rest, and the note follows (PENDING -> REFUNDED)', async () => {
    const h = harness();
    const invoice = await paidInvoice(h, h.tenant.apiKey, h.tenant.id, { card_number: '4242424242424242' });
    const note = await refundNote(h, h.tenant.apiKey, invoice);
    expect(note).toMatchObject({ refunded_amount: '60.00', refund_status: 'PENDING' });
    await settle(h);
    expect((await h.request('GET', `/api/v1/credit-notes/${note.id}`)).json()).toMatchObject({ refund_status: 'REFUNDED' });
    const [row, ...more] = await refundRows(h, note.id);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({ amount_minor: 6000n, status: 'SUCCEEDED', provider_refund_id: expect.stringMatching(/^re_sbx_/), idempotency_key: `refund:${row.id}` });
    // replayed event and job: no second refund row, the same provider refund
    await replayFinalized(h, note.id);
    await h.service.tasks[REFUND_TASK]!({ tenant_id: h.tenant.id, refund_id: row.id });
    await settle(h);
    expect(await refundRows(h, note.id)).toEqual([row]);
    // the rest of the payment (84.00 = 70.00 + VAT) can still be refunded: the sandbox took back exactly 60.00 before
    const rest = await refundNote(h, h.tenant.apiKey, invoice, null);
    await settle(h);
    expect((await h.request('GET', `/api/v1/credit-notes/${rest.id}`)).json()).toMatchObject({ refunded_amount: '84.00', refund_status: 'REFUNDED' });
  });

  it('an invoice paid by hand has nothing to refund through a provider: MANUAL', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/mark-paid`, { body: {} })).statusCode).toBe(200);
    await settle(h);
    const invoice = (await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json();
    const note = await refundNote(h, h.tenant.apiKey, invoice);
    await settle(h);
    expect((await h.request('GET', `/api/v1/credit-notes/${note.id}`)).json()).toMatchObject({ refund_status: 'MANUAL' });
    expect(await refundRows(h, note.id)).toEqual([]);
  });

  it('stripe: one refund at the provider, also after a replay and a lost write', async () => {
    const h = harness();
    const key = h.production.apiKey;
    const connected = await h.request('POST', '/api/v1/payment-providers', { key, body: { provider: 'stripe', secret_key: SECRET_KEY } });
    expect(connected.statusCode, connected.body).toBe(201);
    const invoice = await paidInvoice(h, key, h.production.id, { provider_payment_method_id: 'pm_card_visa' });
    const before = stripe.fake.refunds;
    const note = await refundNote(h, key, invoice);
    await settle(h);
    expect((await h.request('GET', `/api/v1/credit-notes/${note.id}`, { key })).json()).toMatchObject({ refunded_amount: '60.00', refund_status: 'REFUNDED' });
    expect(stripe.fake.refunds - before).toBe(1);
    const [row] = await refundRows(h, note.id);
    expect(row).toMatchObject({ amount_minor: 6000n, status: 'SUCCEEDED', provider_refund_id: expect.stringMatching(/^re_/) });
    // the write after Stripe's answer is lost: the job asks again with the same key, Stripe replays its answer
    await h.db.pool.query(`UPDATE payment_refunds SET status = 'PENDING', provider_refund_id = NULL WHERE id = $1`, [row.id]);
    await h.service.tasks[REFUND_TASK]!({ tenant_id: h.production.id, refund_id: row.id });
    await replayFinalized(h, note.id);
    await settle(h);
    expect(stripe.fake.refunds - before).toBe(1);
    expect(await refundRows(h, note.id)).toEqual([row]);
  });
});
