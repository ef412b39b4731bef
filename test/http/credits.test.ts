// Prepaid credit grants through the API: creation, validation, ledger, balance, void, and what
// they pay at finalization (docs/credits-and-alerts.md, "Prepaid credits").
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { invoicePdfModel } from '../../src/modules/invoices/documents.js';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from './invoices-support.js';
import { backdatedSubscription, sendCalls } from '../scenarios/billing-support.js';

const harness = useHarness();

async function grant(h: Harness, customerId: string, body: Record<string, unknown>) {
  const res = await h.request('POST', `/api/v1/customers/${customerId}/credit-grants`, { body: { name: 'Welcome credits', type: 'PROMOTIONAL', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Record<string, any>;
}
const balance = async (h: Harness, customerId: string) => (await h.request('GET', `/api/v1/customers/${customerId}/credit-balance`)).json();
const ledger = async (h: Harness, customerId: string, query: Record<string, string> = {}) =>
  (await h.request('GET', `/api/v1/customers/${customerId}/credit-ledger`, { query: { per_page: '100', ...query } })).json().data as Record<string, any>[];

describe('credit grants', () => {
  it('grants promotional credits at once, as a GRANT ledger entry that the balance sums', async () => {
    const h = harness();
    const customer = await createCustomer(h, { alias: 'credits-1' });
    const g = await grant(h, 'credits-1', { amount: '25.00', priority: 5, expires_at: '2026-12-31T00:00:00Z' });
    expect(g).toMatchObject({ type: 'PROMOTIONAL', status: 'ACTIVE', source: 'API', currency: 'EUR', amount: '25.00', remaining: '25.00', priority: 5, applies_to: 'ALL', invoice_id: null });
    await grant(h, customer.id, { credit_unit: { name: 'credits', amount: '1000', rate: '0.0125' } });
    expect(await balance(h, customer.id)).toMatchObject({ customer_id: customer.id, currency: 'EUR', balance: '37.50', projected_balance: '37.50', accrued_usage: '0.00', pending_top_ups: '0.00' });
    expect((await ledger(h, customer.id)).map((e) => [e.type, e.amount])).toEqual([['GRANT', '12.50'], ['GRANT', '25.00']]);
    const listed = (await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants`)).json();
    expect(listed.pagination_meta.total_items).toBe(2);
    expect(listed.data.find((x: Record<string, unknown>) => x.credit_unit !== null)).toMatchObject({ credit_unit: { name: 'credits', amount: '1000', rate: '0.0125', remaining: '1000' }, amount: '12.50' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants/${g.id}`)).json()).toMatchObject({ id: g.id, remaining: '25.00' });
  }, 90_000);

  it.each([
    { body: { amount: '10.00', credit_unit: { name: 'c', amount: '1', rate: '1' } }, message: /exactly one of amount/ },
    { body: {}, message: /exactly one of amount/ },
    { body: { amount: '10.005' }, message: /amount must be a decimal string with at most 2 decimals for EUR/ },
    { body: { amount: '0.00' }, message: /above zero/ },
    { body: { credit_unit: { name: 'c', amount: '-5', rate: '1' } }, message: /credit_unit.amount must be above zero/ },
    { body: { amount: '1.00', applies_to: 'METRICS' }, message: /metric_ids must name at least one metric/ },
    { body: { amount: '1.00', applies_to: 'METRICS', metric_ids: ['bm_nope'] }, message: /metric_ids\[0\] 'bm_nope' is not a billable metric/ },
    { body: { amount: '1.00', metric_ids: ['bm_nope'] }, message: /metric_ids is only for applies_to METRICS/ },
    { body: { amount: '1.00', effective_at: 'tomorrow' }, message: /effective_at must be an RFC 3339 date-time/ },
    { body: { amount: '1.00', effective_at: '2026-05-01T00:00:00Z', expires_at: '2026-04-01T00:00:00Z' }, message: /expires_at must be after effective_at/ },
    { body: { amount: '1.00', type: 'FREE' }, message: /type/ },
    { body: { amount: 10 }, message: /amount/ },
  ])('refuses $body with a 400 naming the field, and writes nothing', async ({ body, message }) => {
    const h = harness();
    const customer = await createCustomer(h);
    const res = await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'x', type: 'PROMOTIONAL', ...body } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(message) });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants`)).json().data).toEqual([]);
  });

  it('values JPY and KWD grants in their own minor units', async () => {
    const h = harness();
    const yen = await createCustomer(h, { currency: 'JPY' });
    expect(await grant(h, yen.id, { credit_unit: { name: 'pts', amount: '3', rate: '0.5' } })).toMatchObject({ amount: '2' });
    expect((await h.request('POST', `/api/v1/customers/${yen.id}/credit-grants`, { body: { name: 'x', type: 'PROMOTIONAL', amount: '10.5' } })).statusCode).toBe(400);
    const dinar = await createCustomer(h, { currency: 'KWD' });
    expect(await grant(h, dinar.id, { amount: '1.250' })).toMatchObject({ amount: '1.250', remaining: '1.250' });
    expect(await balance(h, dinar.id)).toMatchObject({ currency: 'KWD', balance: '1.250' });
  });

  it('answers 404 for another tenant\'s customer or grant', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const g = await grant(h, customer.id, { amount: '5.00' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-balance`, { key: h.other.apiKey })).statusCode).toBe(404);
    const other = await createCustomer(h);
    expect((await h.request('GET', `/api/v1/customers/${other.id}/credit-grants/${g.id}`)).statusCode).toBe(404);
  });

  it('voids what is left of a grant (a VOID entry), once', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const g = await grant(h, customer.id, { amount: '8.00' });
    const voided = await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants/${g.id}/void`);
    expect(voided.json()).toMatchObject({ status: 'VOID', remaining: '0.00', voided_at: expect.any(String) });
    expect((await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants/${g.id}/void`)).statusCode).toBe(409);
    expect((await ledger(h, customer.id)).map((e) => [e.type, e.amount])).toEqual([['VOID', '-8.00'], ['GRANT', '8.00']]);
    expect((await balance(h, customer.id)).balance).toBe('0.00');
  });

  it('records an expiry of the remainder once the expiry has passed', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    await grant(h, customer.id, { amount: '8.00', expires_at: '2026-03-20T00:00:00Z' });
    expect((await balance(h, customer.id)).balance).toBe('8.00');
    h.clock.set(new Date('2026-03-20T00:00:00Z'));
    expect((await balance(h, customer.id)).balance).toBe('0.00');
    expect((await ledger(h, customer.id, { type: 'EXPIRY' })).map((e) => [e.amount, e.effective_at])).toEqual([['-8.00', '2026-03-20T00:00:00.000Z']]);
    h.clock.set(new Date('2026-03-15T12:00:00.000Z'));
  });
});

describe('test clocks', () => {
  it('deletes a test clock whose customer holds grants, ledger entries and a top-up', async () => {
    const h = harness();
    const clock = (await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-01-01T00:00:00Z', name: 'credits' } })).json();
    const customer = await createCustomer(h, { test_clock_id: clock.id });
    // the customer's credits run on its clock's time
    expect(await grant(h, customer.id, { amount: '5.00', expires_at: '2026-02-01T00:00:00Z' })).toMatchObject({ effective_at: '2026-01-01T00:00:00.000Z', created_at: '2026-01-01T00:00:00.000Z' });
    expect(await balance(h, customer.id)).toMatchObject({ balance: '5.00', as_of: '2026-01-01T00:00:00.000Z' });
    await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants`, { body: { name: 'Pack', type: 'PAID', amount: '20.00' } });
    await h.request('PUT', `/api/v1/customers/${customer.id}/credit-top-up`, { body: { enabled: false, threshold: '1.00', amount: '5.00' } });
    const deleted = await h.request('DELETE', `/api/v1/test-clocks/${clock.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-balance`)).statusCode).toBe(404);
  });
});

describe('consumption at finalization', () => {
  it('pays lines after tax, one deduction line per grant, before the cash balance; a void gives the credits back', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    // usage-only credits first (priority 1), then credits for anything (priority 2); 10.00 of cash balance
    const usageOnly = await grant(h, customer.id, { name: 'Usage credits', amount: '30.00', priority: 1, applies_to: 'USAGE' });
    const any = await grant(h, customer.id, { name: 'Launch credits', amount: '50.00', priority: 2 });
    await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '10.00' } });
    // 100.00 platform + 20.00 usage, 20 % VAT: 120.00 + 24.00 = 144.00
    const draft = await createDraft(h, customer.id);
    const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    expect(res.statusCode, res.body).toBe(200);
    const invoice = res.json();
    expect(invoice).toMatchObject({
      subtotal: '120.00', tax_amount: '24.00', total: '144.00', prepaid_credits: '74.00', applied_credits: '10.00', amount_due: '60.00',
      prepaid_credit_lines: [{ grant_id: usageOnly.id, name: 'Usage credits', amount: '24.00' }, { grant_id: any.id, name: 'Launch credits', amount: '50.00' }],
    });
    // the tax is the invoice's own: credits are a means of payment
    expect(invoice.tax_breakdown).toEqual([expect.objectContaining({ taxable_amount: '120.00', tax_amount: '24.00' })]);
    const usageLine = invoice.line_items.find((l: Record<string, string>) => l.name === 'API calls');
    const consumption = await ledger(h, customer.id, { type: 'CONSUMPTION' });
    expect(consumption.map((e) => [e.grant_id, e.amount, e.invoice_id])).toEqual([[any.id, '-50.00', draft.invoice.id], [usageOnly.id, '-24.00', draft.invoice.id]]);
    expect(consumption[1]!.invoice_line_id).toBe(usageLine.id);
    expect((await balance(h, customer.id)).balance).toBe('6.00');
    // the PDF prints the deduction block under the total, before the cash balance
    const pdf = await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/download`);
    expect(pdf.statusCode).toBe(200);
    expect(invoicePdfModel(await h.service.invoicing.invoices.get(h.tenant.id, draft.invoice.id)).totals).toEqual([
      ['Subtotal', '120.00 EUR'], ['VAT 20% (FR) on 120.00 EUR', '24.00 EUR'], ['Total', '144.00 EUR'],
      ['Prepaid credits: Usage credits', '-24.00 EUR'], ['Prepaid credits: Launch credits', '-50.00 EUR'], ['Paid from balance', '-10.00 EUR'], ['Amount due', '60.00 EUR'],
    ]);

    const voided = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    expect((await ledger(h, customer.id, { type: 'REFUND' })).map((e) => e.amount).sort()).toEqual(['24.00', '50.00']);
    expect((await balance(h, customer.id)).balance).toBe('80.00');
  }, 90_000);

  it('records the expiry of a grant expired before the finalization, which then pays nothing', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    await grant(h, customer.id, { name: 'Short', amount: '40.00', expires_at: '2026-03-20T00:00:00Z' });
    await grant(h, customer.id, { name: 'Long', amount: '5.00', priority: 500 });
    const draft = await createDraft(h, customer.id, { lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec('10') }], tax: { treatment: 'NO_TAX', rate: new Dec(0), country: null } });
    h.clock.set(new Date('2026-03-20T00:00:00Z'));
    try {
      const invoice = (await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).json();
      expect(invoice).toMatchObject({ prepaid_credits: '5.00', prepaid_credit_lines: [expect.objectContaining({ name: 'Long', amount: '5.00' })], amount_due: '5.00' });
      expect((await ledger(h, customer.id)).map((e) => [e.type, e.amount])).toEqual([['CONSUMPTION', '-5.00'], ['EXPIRY', '-40.00'], ['GRANT', '5.00'], ['GRANT', '40.00']]);
    } finally {
      h.clock.set(new Date('2026-03-15T12:00:00.000Z'));
    }
  });

  it('pays a KWD invoice to the fils, and a JPY one to the yen', async () => {
    const h = harness();
    const noTax = { treatment: 'NO_TAX' as const, rate: new Dec(0), country: null };
    const dinar = await createCustomer(h, { currency: 'KWD' });
    await grant(h, dinar.id, { amount: '1.250' });
    const kwd = await createDraft(h, dinar.id, { currency: 'KWD', lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec('2.0005') }], tax: noTax });
    expect((await h.request('POST', `/api/v1/invoices/${kwd.invoice.id}/finalize`)).json()).toMatchObject({ total: '2.001', prepaid_credits: '1.250', amount_due: '0.751' });
    const yen = await createCustomer(h, { currency: 'JPY' });
    await grant(h, yen.id, { credit_unit: { name: 'pts', amount: '999', rate: '0.5' } });
    const jpy = await createDraft(h, yen.id, { currency: 'JPY', lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec('1000') }], tax: noTax });
    expect((await h.request('POST', `/api/v1/invoices/${jpy.invoice.id}/finalize`)).json()).toMatchObject({ total: '1000', prepaid_credits: '500', amount_due: '500' });
    expect((await balance(h, yen.id)).balance).toBe('0');
  });

  it('leaves an invoice in another currency, and a grant not yet effective, alone', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    await grant(h, customer.id, { amount: '50.00', effective_at: '2026-04-01T00:00:00Z' });
    const usd = await createDraft(h, customer.id, { currency: 'USD' });
    expect((await h.request('POST', `/api/v1/invoices/${usd.invoice.id}/finalize`)).json()).toMatchObject({ prepaid_credits: '0.00', amount_due: '144.00' });
    const eur = await createDraft(h, customer.id, { lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec('10') }] });
    expect((await h.request('POST', `/api/v1/invoices/${eur.invoice.id}/finalize`)).json()).toMatchObject({ prepaid_credits: '0.00', prepaid_credit_lines: [] });
    expect((await balance(h, customer.id)).balance).toBe('0.00');
  });
});

describe('live balance', () => {
  it('projects the balance less the usage accrued in the current period, as ingested', async () => {
    const h = harness();
    const { customerId } = await backdatedSubscription(h, { skipPastInvoices: true });
    await grant(h, customerId, { amount: '100.00' });
    expect(await balance(h, customerId)).toMatchObject({ balance: '100.00', accrued_usage: '0.00', projected_balance: '100.00' });
    // 50 calls at 0.10, 20 % VAT: 6.00 accrued
    await sendCalls(h, customerId, '2026-03-14', 50, 'proj');
    // right after the ingestion's 2xx: usage is read from rollups plus the raw events not folded yet
    expect(await balance(h, customerId)).toMatchObject({ balance: '100.00', accrued_usage: '6.00', projected_balance: '94.00' });
    await sendCalls(h, customerId, '2026-03-15', 60, 'proj');
    // 110 calls: 100 at 0.10 + 10 at 0.05 = 10.50, 12.60 with VAT
    expect(await balance(h, customerId)).toMatchObject({ accrued_usage: '12.60', projected_balance: '87.40' });
  });
});
