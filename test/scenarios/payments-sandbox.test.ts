// The charge of finalized invoices through the built-in sandbox provider (docs/payments.md).
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';
import { CHARGE_TASK, RECONCILE_TASK } from '../../src/modules/payments/index.js';
import { SANDBOX_DELAY_MS } from '../../src/adapters/payments/sandbox.js';

const harness = useHarness();

async function customerWithCard(h: Harness, card: string) {
  const customer = await createCustomer(h);
  const res = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: card } });
  expect(res.statusCode, res.body).toBe(201);
  return { customer, method: res.json() as { id: string; is_default: boolean; card_last4: string } };
}

/** A 144.00 EUR invoice finalized through the API, then the outbox and jobs run. */
async function finalizedInvoice(h: Harness, customerId: string) {
  const draft = await createDraft(h, customerId);
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  await h.drainJobs();
  return draft.invoice.id;
}

const transactions = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, unknown>[];
const invoice = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`)).json();

describe('charging finalized invoices (sandbox)', () => {
  it('charges the default card at finalization and the invoice becomes PAID', async () => {
    const h = harness();
    const { customer, method } = await customerWithCard(h, '4242424242424242');
    expect(method).toMatchObject({ is_default: true, card_last4: '4242' });
    const invoiceId = await finalizedInvoice(h, customer.id);
    const [tx, ...more] = await transactions(h, invoiceId);
    expect(more).toHaveLength(0);
    expect(tx).toMatchObject({ status: 'SUCCEEDED', amount: '144.00', currency: 'EUR', provider: 'sandbox', payment_method_id: method.id, error: null, processed_at: expect.any(String) });
    const paid = await invoice(h, invoiceId);
    expect(paid).toMatchObject({ payment_status: 'PAID' });
    // the same path as manual payments: one SETTLED transaction on the invoice, with the provider's id
    expect(paid.transactions).toEqual([expect.objectContaining({ status: 'SETTLED', amount: '144.00', provider_transaction_id: tx!.provider_transaction_id })]);
  });

  it('records a decline as FAILED and leaves the invoice UNPAID', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4000000000000002');
    const invoiceId = await finalizedInvoice(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'FAILED', error: 'card_declined', error_message: 'Your card was declined.' })]);
    expect((await invoice(h, invoiceId)).payment_status).toBe('UNPAID');
  });

  it('marks a card needing authentication REQUIRES_ACTION', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4000002500003155');
    const invoiceId = await finalizedInvoice(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'REQUIRES_ACTION', error: 'authentication_required' })]);
    expect((await invoice(h, invoiceId)).payment_status).toBe('UNPAID');
  });

  it('leaves the delayed card PENDING, and the reconciler settles it once the delay has passed', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4000000000000077');
    const invoiceId = await finalizedInvoice(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'PENDING', provider_transaction_id: expect.stringMatching(/^pi_sbx_/) })]);
    h.clock.advance(Math.max(SANDBOX_DELAY_MS, 5 * 60_000));
    await h.service.tasks[RECONCILE_TASK]!({ once: true });
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED' })]);
    expect((await invoice(h, invoiceId)).payment_status).toBe('PAID');
  });

  it('charges nothing when auto_charge is off, or without a card', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4242424242424242');
    const off = await h.request('PATCH', `/api/v1/customers/${customer.id}/payment-settings`, { body: { auto_charge: false } });
    expect(off.json()).toMatchObject({ auto_charge: false });
    const invoiceId = await finalizedInvoice(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([]);
    expect((await invoice(h, invoiceId)).payment_status).toBe('UNPAID');
    const bare = await createCustomer(h);
    expect(await transactions(h, await finalizedInvoice(h, bare.id))).toEqual([]);
  });

  it('charges only what the customer balance left due', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4242424242424242');
    const credit = await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '44.00', note: 'goodwill' } });
    expect(credit.statusCode, credit.body).toBeLessThan(300);
    const invoiceId = await finalizedInvoice(h, customer.id);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ amount: '100.00', status: 'SUCCEEDED' })]);
  });

  it('never charges twice: a crash between the answer and our write is reconciled with the same key', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4242424242424242');
    const charging = h.service.payments.charging;
    const answers: string[] = [];
    charging.hooks.afterProviderAnswer = (_attempt, payment) => {
      answers.push(payment.id);
      if (answers.length === 1) throw new Error('process killed after the provider answered');
    };
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    await h.drainJobs();
    try {
      // the job died after the charge: the attempt is still PENDING, nothing recorded
      const [stuck] = await transactions(h, draft.invoice.id);
      expect(stuck).toMatchObject({ status: 'PENDING', provider_transaction_id: null });
      expect((await invoice(h, draft.invoice.id)).payment_status).toBe('UNPAID');
      // a later run of the job, then the reconciler at restart: same key, same payment
      await h.service.tasks[CHARGE_TASK]!({ tenant_id: h.tenant.id, attempt_id: stuck!.id });
      h.clock.advance(10 * 60_000);
      await h.service.tasks[RECONCILE_TASK]!({ once: true });
      expect(answers).toHaveLength(2);
      expect(new Set(answers).size).toBe(1);
      expect(await transactions(h, draft.invoice.id)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', provider_transaction_id: answers[0] })]);
      const paid = await invoice(h, draft.invoice.id);
      expect(paid.payment_status).toBe('PAID');
      expect(paid.transactions).toHaveLength(1);
    } finally {
      charging.hooks.afterProviderAnswer = undefined;
    }
  });

  it('applies a sandbox webhook once per event id, in any order, also when replayed', async () => {
    const h = harness();
    const { customer } = await customerWithCard(h, '4000000000000077');
    const invoiceId = await finalizedInvoice(h, customer.id);
    const [pending] = await transactions(h, invoiceId);
    const paymentId = pending!.provider_transaction_id as string;
    const { charging, providers } = h.service.payments;
    const eventOf = async (id: string) => (await providers.sandbox.parseWebhook(...(({ body, headers }) => [body, headers] as const)(providers.sandbox.signEvent({ id, type: 'payment.updated', payment_id: paymentId }))))[0]!;
    // the "still processing" event, read before the delay passed, arrives after the success event
    const processing = await eventOf('evt_sbx_1');
    h.clock.advance(SANDBOX_DELAY_MS);
    const succeeded = await eventOf('evt_sbx_2');
    expect(await charging.applyEvent(h.tenant.id, 'sandbox', succeeded)).toBe(true);
    expect(await charging.applyEvent(h.tenant.id, 'sandbox', processing)).toBe(true);
    expect(await charging.applyEvent(h.tenant.id, 'sandbox', succeeded)).toBe(false);
    expect(await transactions(h, invoiceId)).toEqual([expect.objectContaining({ status: 'SUCCEEDED' })]);
    const paid = await invoice(h, invoiceId);
    expect(paid.payment_status).toBe('PAID');
    expect(paid.transactions).toHaveLength(1);
  });
});

describe('payment methods and settings', () => {
  it('refuses an unknown test card, a missing card and another tenant\'s customer', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const bad = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: '4111111111111111' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('invalid_number') });
    const missing = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: {} });
    expect(missing.json().message).toContain('card_number');
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/payment-methods`)).json().data).toEqual([]);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/payment-methods`, { key: h.other.apiKey })).statusCode).toBe(404);
  });

  it('lists methods with the default, switches it, and removes one', async () => {
    const h = harness();
    const { customer, method } = await customerWithCard(h, '4242424242424242');
    const second = (await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: '5555555555554444', set_default: true } })).json();
    const list = (await h.request('GET', `/api/v1/customers/${customer.id}/payment-methods`)).json().data;
    // both were saved at the same (test) instant, so their order in the list is not part of the contract
    const pairs = list.map((m: { id: string; is_default: boolean }) => [m.id, m.is_default]);
    expect(pairs).toHaveLength(2);
    expect(pairs).toEqual(expect.arrayContaining([[method.id, false], [second.id, true]]));
    const foreign = await h.request('PATCH', `/api/v1/customers/${customer.id}/payment-settings`, { body: { default_payment_method_id: 'pm_nope' } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toContain('default_payment_method_id');
    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}/payment-methods/${second.id}`)).statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/payment-settings`)).json()).toEqual({ auto_charge: true, default_payment_method_id: null });
  });
});
