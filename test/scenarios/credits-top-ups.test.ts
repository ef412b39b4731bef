// Paid grants and automatic top-ups: bought on an invoice, usable only once it is paid; a storm of
// replayed top-up triggers buys one top-up (docs/credits-and-alerts.md, "Prepaid credits").
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { BALANCE_MOVED_TASK } from '../../src/modules/credits/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft, outbox } from '../http/invoices-support.js';

const harness = useHarness();

const balance = async (h: Harness, customerId: string) => (await h.request('GET', `/api/v1/customers/${customerId}/credit-balance`)).json();
const grants = async (h: Harness, customerId: string) =>
  (await h.request('GET', `/api/v1/customers/${customerId}/credit-grants`, { query: { per_page: '100' } })).json().data as Record<string, any>[];
const invoice = async (h: Harness, invoiceId: string) => (await h.request('GET', `/api/v1/invoices/${invoiceId}`)).json();
const oneOffInvoices = async (h: Harness, customerId: string) =>
  ((await h.request('GET', '/api/v1/invoices', { query: { customer_id: customerId, per_page: '100' } })).json().data as Record<string, any>[])
    .filter((i) => i.invoice_type === 'ONE_OFF');

/** A finalized 15.00 invoice without tax (a one-time line), the outbox and jobs run. */
async function spend(h: Harness, customerId: string, amount = '15') {
  const draft = await createDraft(h, customerId, { lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec(amount) }], tax: { treatment: 'NO_TAX', rate: new Dec(0), country: null } });
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('paid top-ups', () => {
  it('sells a paid grant on a one-off invoice without VAT; the credits count only once that invoice is paid', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Pack of 1000', type: 'PAID', credit_unit: { name: 'credits', amount: '1000', rate: '0.05' } } });
    expect(res.statusCode, res.body).toBe(201);
    const grant = res.json();
    expect(grant).toMatchObject({ type: 'PAID', status: 'PENDING_PAYMENT', amount: '50.00', remaining: '0.00', invoice_id: expect.stringMatching(/^inv_/) });
    const sold = await invoice(h, grant.invoice_id);
    expect(sold).toMatchObject({ status: 'FINALIZED', payment_status: 'UNPAID', invoice_type: 'ONE_OFF', subtotal: '50.00', tax_amount: '0.00', total: '50.00', amount_due: '50.00', prepaid_credits: '0.00' });
    expect(sold.line_items).toEqual([expect.objectContaining({ name: 'Prepaid credits: Pack of 1000', quantity: '1000', unit_price: '0.05', amount_total: '50.00' })]);
    await h.drainJobs();
    expect(await balance(h, customer.id)).toMatchObject({ balance: '0.00', pending_top_ups: '50.00' });

    // unpaid credits pay nothing
    expect(await spend(h, customer.id)).toMatchObject({ prepaid_credits: '0.00', amount_due: '15.00' });

    const paid = await h.request('POST', `/api/v1/invoices/${grant.invoice_id}/mark-paid`, { body: {} });
    expect(paid.statusCode, paid.body).toBe(200);
    await h.drainJobs();
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants/${grant.id}`)).json()).toMatchObject({ status: 'ACTIVE', remaining: '50.00' });
    expect(await balance(h, customer.id)).toMatchObject({ balance: '50.00', pending_top_ups: '0.00' });
    expect((await outbox(h, grant.id)).map((e) => e.event_type)).toEqual(['credit_grant.created', 'credit_grant.activated']);

    // paid credits now pay the next invoice; the top-up invoice itself was never paid with credits
    expect(await spend(h, customer.id)).toMatchObject({ prepaid_credits: '15.00', amount_due: '0.00', payment_status: 'PAID' });
    expect((await balance(h, customer.id)).balance).toBe('35.00');
  }, 90_000);

  it('voids a pending paid grant when its invoice is voided', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const grant = (await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Pack', type: 'PAID', amount: '20.00' } })).json();
    expect((await h.request('POST', `/api/v1/invoices/${grant.invoice_id}/void`)).statusCode).toBe(200);
    await h.drainJobs();
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants/${grant.id}`)).json()).toMatchObject({ status: 'VOID' });
    expect(await balance(h, customer.id)).toMatchObject({ balance: '0.00', pending_top_ups: '0.00' });
  });
});

describe('automatic top-up', () => {
  it('buys one top-up under a storm of replayed triggers, charges it, and credits it once paid', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const card = await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: '4242424242424242' } });
    expect(card.statusCode, card.body).toBe(201);
    await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Welcome', type: 'PROMOTIONAL', amount: '20.00' } });
    const settings = { enabled: true, threshold: '10.00', amount: '50.00' };
    const put = await h.request('PUT', `/api/v1/customers/${customer.id}/credit-top-up`, { body: settings });
    expect(put.json()).toMatchObject({ enabled: true, currency: 'EUR', threshold: '10.00', amount: '50.00', priority: 100, expires_after_days: null });
    // 20.00 is above the threshold: nothing bought
    expect(await oneOffInvoices(h, customer.id)).toEqual([]);

    // 15.00 consumed: the balance (5.00) falls below 10.00
    expect(await spend(h, customer.id)).toMatchObject({ prepaid_credits: '15.00' });
    // the storm: the trigger replayed by workers and settings retried by a client, all at once
    const task = h.service.tasks[BALANCE_MOVED_TASK]!;
    await Promise.all([
      ...Array.from({ length: 20 }, () => task({ tenant_id: h.tenant.id, customer_id: customer.id })),
      ...Array.from({ length: 5 }, () => h.request('PUT', `/api/v1/customers/${customer.id}/credit-top-up`, { body: settings })),
    ]);
    await h.drainJobs();
    const topUps = (await grants(h, customer.id)).filter((g) => g.source === 'AUTO_TOP_UP');
    expect(topUps).toHaveLength(1);
    const bought = await oneOffInvoices(h, customer.id);
    expect(bought).toHaveLength(1);
    expect(bought[0]).toMatchObject({ id: topUps[0]!.invoice_id, total: '50.00', payment_status: 'PAID' });
    // charged through the card at finalization; the paid invoice made the grant usable
    await expect.poll(async () => (await balance(h, customer.id)).balance).toBe('55.00');
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants/${topUps[0]!.id}`)).json()).toMatchObject({ status: 'ACTIVE', remaining: '50.00', type: 'PAID' });

    // above the threshold again: more triggers buy nothing
    await Promise.all(Array.from({ length: 5 }, () => task({ tenant_id: h.tenant.id, customer_id: customer.id })));
    expect(await oneOffInvoices(h, customer.id)).toHaveLength(1);
  }, 90_000);

  it('waits for an unpaid top-up instead of buying another', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    // no card: the top-up invoice stays unpaid
    await h.request('PUT', `/api/v1/customers/${customer.id}/credit-top-up`, { body: { enabled: true, threshold: '10.00', amount: '25.00' } });
    expect(await oneOffInvoices(h, customer.id)).toHaveLength(1);
    await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Promo', type: 'PROMOTIONAL', amount: '12.00' } });
    await spend(h, customer.id, '5');
    await h.drainJobs();
    expect(await oneOffInvoices(h, customer.id)).toHaveLength(1);
    expect(await balance(h, customer.id)).toMatchObject({ balance: '7.00', pending_top_ups: '25.00' });
  });

  it.each([
    { body: { enabled: true, threshold: '10', amount: '0.00' }, message: /amount must be above zero/ },
    { body: { enabled: true, threshold: '1.234', amount: '5.00' }, message: /threshold must be a decimal string with at most 2 decimals/ },
    { body: { enabled: true, threshold: '-1.00', amount: '5.00' }, message: /threshold must be zero or more/ },
    { body: { enabled: true, amount: '5.00' }, message: /threshold/ },
  ])('refuses top-up settings $body', async ({ body, message }) => {
    const h = harness();
    const customer = await createCustomer(h);
    const res = await h.request('PUT', `/api/v1/customers/${customer.id}/credit-top-up`, { body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toMatch(message);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-top-up`)).statusCode).toBe(404);
  });
});
