// The per-invoice auto_charge (docs/payments.md, "auto_charge"): null follows the customer's
// payment setting; a subscription with charge_automatically false carries false onto its
// invoices, which finalization then does not charge; an invoice may also say true against a
// customer who turned auto_charge off.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';
import { backdatedSubscription, invoicesOf } from './billing-support.js';

const harness = useHarness();

async function settle(h: Harness): Promise<void> {
  for (let round = 0; round < 5; round++) await h.drainJobs();
}

const transactions = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, unknown>[];

async function saveCard(h: Harness, customerId: string) {
  expect((await h.request('POST', `/api/v1/customers/${customerId}/payment-methods`, { body: { card_number: '4242424242424242' } })).statusCode).toBe(201);
}

/** Finalizes the subscription's first invoice from the billing run and lets payments act on it. */
async function finalizeFirst(h: Harness, subscriptionId: string): Promise<Record<string, unknown>> {
  await h.service.tasks['billing.run']!({ once: true });
  const [first] = await invoicesOf(h, subscriptionId);
  expect(first, 'the billing run made an invoice').toBeDefined();
  if (first!.status === 'DRAFT') expect((await h.request('POST', `/api/v1/invoices/${first!.id}/finalize`)).statusCode).toBe(200);
  await settle(h);
  return (await h.request('GET', `/api/v1/invoices/${first!.id}`)).json();
}

describe('per-invoice auto_charge', () => {
  it('a subscription charges automatically by default: its invoices follow the customer (null) and are charged', async () => {
    const h = harness();
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Follows SARL' });
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json().charge_automatically).toBe(true);
    await saveCard(h, customerId);
    const invoice = await finalizeFirst(h, subscriptionId);
    expect(invoice).toMatchObject({ auto_charge: null, payment_status: 'PAID' });
    expect(await transactions(h, invoice.id as string)).toEqual([expect.objectContaining({ occasion: 'FINALIZATION', status: 'SUCCEEDED' })]);
  });

  it('charge_automatically false carries auto_charge false onto the invoices, and finalization charges nothing', async () => {
    const h = harness();
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Opted Out SARL' });
    const patched = await h.request('PATCH', `/api/v1/subscriptions/${subscriptionId}`, { body: { charge_automatically: false } });
    expect(patched.statusCode, patched.body).toBe(200);
    await saveCard(h, customerId);
    const invoice = await finalizeFirst(h, subscriptionId);
    expect(invoice).toMatchObject({ auto_charge: false, status: 'FINALIZED', payment_status: 'UNPAID', payment_url: expect.stringContaining('/pay/') });
    expect(await transactions(h, invoice.id as string)).toEqual([]);
  });

  it('an invoice saying true is charged although the customer turned auto_charge off; null then follows the customer', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    await saveCard(h, customer.id);
    expect((await h.request('PATCH', `/api/v1/customers/${customer.id}/payment-settings`, { body: { auto_charge: false } })).statusCode).toBe(200);

    const forced = await createDraft(h, customer.id, { autoCharge: true });
    const following = await createDraft(h, customer.id);
    for (const draft of [forced, following]) expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
    await settle(h);
    expect(await transactions(h, forced.invoice.id)).toEqual([expect.objectContaining({ status: 'SUCCEEDED' })]);
    expect((await h.request('GET', `/api/v1/invoices/${forced.invoice.id}`)).json()).toMatchObject({ auto_charge: true, payment_status: 'PAID' });
    expect(await transactions(h, following.invoice.id)).toEqual([]);
    expect((await h.request('GET', `/api/v1/invoices/${following.invoice.id}`)).json()).toMatchObject({ auto_charge: null, payment_status: 'UNPAID' });
  });
});
