import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { useHarness } from '../harness/app.js';
import { createCustomer, createDraft, outbox } from './invoices-support.js';

const harness = useHarness();

/** A finalized invoice: 100.00 + 20.00 at 20 % VAT, total 144.00. */
async function finalizedInvoice(customerName = 'ACME SAS') {
  const h = harness();
  const customer = await createCustomer(h, { name: customerName });
  const draft = await createDraft(h, customer.id);
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode).toBe(200);
  return { customer, invoice: res.json() as { id: string; line_items: { id: string; name: string }[] } };
}

describe('credit notes', () => {
  it('credits a whole unpaid invoice: cancels its debt, numbered at finalization, PDF, events', async () => {
    const h = harness();
    const { customer, invoice } = await finalizedInvoice();
    const created = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'Service outage', credit_type: 'CREDIT_TO_BALANCE' } });
    expect(created.statusCode, created.body).toBe(201);
    const note = created.json();
    expect(note).toMatchObject({ credit_note_number: 'draft', status: 'DRAFT', subtotal: '120.00', tax_amount: '24.00', total: '144.00', reason: 'Service outage', customer_id: customer.id });
    expect(note.id).toMatch(/^crn_/);
    expect(note.line_items.map((l: { amount_total: string }) => l.amount_total)).toEqual(['120.00', '24.00']);
    expect(note.tax_breakdown).toEqual([{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '120.00', tax_amount: '24.00', exemption_type: null }]);

    // nothing left to credit while the draft reserves it
    const again = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'x', credit_type: 'CREDIT_TO_BALANCE' } });
    expect(again.statusCode).toBe(409);

    const fin = await h.request('POST', `/api/v1/credit-notes/${note.id}/finalize`);
    expect(fin.json()).toMatchObject({ status: 'FINALIZED', credit_note_number: 'CN-0001', debt_cancelled_amount: '144.00', credited_amount: '0.00', refunded_amount: '0.00' });
    const inv = (await h.request('GET', `/api/v1/invoices/${invoice.id}`)).json();
    expect(inv).toMatchObject({ amount_due: '0.00', payment_status: 'PAID' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('0.00');
    expect((await outbox(h, note.id)).map((e) => e.event_type)).toEqual(['credit_note.created', 'credit_note.finalized']);
    expect((await outbox(h, note.id))[1]!.payload).toMatchObject({ credit_note_id: note.id, invoice_id: invoice.id, status: 'FINALIZED', total: '144.00', tax_amount: '24.00', credited_amount_cents: '0.00' });

    const pdf = await h.request('GET', `/api/v1/credit-notes/${note.id}/download`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const second = await h.request('GET', `/api/v1/credit-notes/${note.id}/download`);
    expect(second.rawPayload.equals(pdf.rawPayload)).toBe(true);

    // voiding restores the invoice's debt
    const voided = await h.request('POST', `/api/v1/credit-notes/${note.id}/void`);
    expect(voided.json()).toMatchObject({ status: 'VOIDED', voided_at: h.clock.now().toISOString() });
    expect((await h.request('GET', `/api/v1/invoices/${invoice.id}`)).json()).toMatchObject({ amount_due: '144.00', payment_status: 'UNPAID' });
    expect((await outbox(h, note.id)).map((e) => e.event_type)).toContain('credit_note.voided');
  });

  it('credits part of a paid line to the balance with tax in proportion, never beyond the line', async () => {
    const h = harness();
    const { customer, invoice } = await finalizedInvoice('Paid Co');
    await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: {} });
    const platform = invoice.line_items[0]!.id;
    const first = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'Goodwill', credit_type: 'CREDIT_TO_BALANCE', lines: [{ invoice_line_id: platform, amount: '33.33' }] } });
    expect(first.statusCode, first.body).toBe(201);
    // 20 % of 33.33 = 6.666 -> 6.67
    expect(first.json()).toMatchObject({ subtotal: '33.33', tax_amount: '6.67', total: '40.00' });
    const fin = await h.request('POST', `/api/v1/credit-notes/${first.json().id}/finalize`);
    expect(fin.json()).toMatchObject({ credit_note_number: 'CN-0002', debt_cancelled_amount: '0.00', credited_amount: '40.00' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('40.00');

    const over = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'x', credit_type: 'CREDIT_TO_BALANCE', lines: [{ invoice_line_id: platform, amount: '66.68' }] } });
    expect(over.statusCode).toBe(409);
    expect(over.json().message).toContain('left to credit');
    // the rest of the line: its tax is exactly what is left (20.00 - 6.67)
    const rest = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'rest', credit_type: 'REFUND', lines: [{ invoice_line_id: platform, amount: '66.67' }] } });
    expect(rest.json()).toMatchObject({ subtotal: '66.67', tax_amount: '13.33', total: '80.00' });
    const refunded = await h.request('POST', `/api/v1/credit-notes/${rest.json().id}/finalize`);
    expect(refunded.json()).toMatchObject({ credit_note_number: 'CN-0003', refunded_amount: '80.00' });
    expect((await h.request('POST', `/api/v1/credit-notes/${rest.json().id}/void`)).statusCode).toBe(409);
  });

  it('refuses to void a note whose credit the customer already spent, and changes nothing', async () => {
    const h = harness();
    const { customer, invoice } = await finalizedInvoice('Spender Co');
    await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: {} });
    const note = (await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'Goodwill', credit_type: 'CREDIT_TO_BALANCE' } })).json();
    expect((await h.request('POST', `/api/v1/credit-notes/${note.id}/finalize`)).json()).toMatchObject({ credited_amount: '144.00' });
    const spent = await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '-100.00' } });
    expect(spent.json().balance).toBe('44.00');
    const voided = await h.request('POST', `/api/v1/credit-notes/${note.id}/void`);
    expect(voided.statusCode).toBe(409);
    expect(voided.json()).toEqual({ code: 'CONFLICT', message: 'the customer already spent the credit of this note; it cannot be voided' });
    expect((await h.request('GET', `/api/v1/credit-notes/${note.id}`)).json().status).toBe('FINALIZED');
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('44.00');
  });

  it('validates input by field name', async () => {
    const h = harness();
    const { invoice } = await finalizedInvoice();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ invoice_id: invoice.id, reason: 'x', credit_type: 'GIFT' }, 400, 'credit_type'],
      [{ invoice_id: invoice.id, credit_type: 'REFUND' }, 400, 'reason'],
      [{ invoice_id: 'inv_nope', reason: 'x', credit_type: 'REFUND' }, 400, 'invoice_id'],
      [{ invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND', lines: [{ invoice_line_id: invoice.line_items[0]!.id, amount: 5 }] }, 400, 'lines[0].amount'],
      [{ invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND', lines: [{ invoice_line_id: invoice.line_items[0]!.id, amount: '5.001' }] }, 400, 'lines[0].amount'],
      [{ invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND', lines: [{ invoice_line_id: 'inl_x', amount: '5.00' }] }, 400, 'lines[0].invoice_line_id'],
      [{ invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND', lines: [{ invoice_line_id: invoice.line_items[0]!.id, amount: '0.00' }] }, 400, 'above zero'],
    ];
    for (const [body, status, field] of cases) {
      const res = await h.request('POST', '/api/v1/credit-notes', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().message).toContain(field);
    }
    // a refund beyond what was paid is refused at finalization
    const refund = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND', lines: [{ invoice_line_id: invoice.line_items[0]!.id, amount: '10.00' }] } });
    const partial = await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: { amount: '140.00' } });
    expect(partial.json().payment_status).toBe('PARTIALLY_PAID');
    // 12.00 credited: 4.00 cancels the debt left, 8.00 refunded (within the 140.00 paid)
    expect((await h.request('POST', `/api/v1/credit-notes/${refund.json().id}/finalize`)).json()).toMatchObject({ debt_cancelled_amount: '4.00', refunded_amount: '8.00' });
    expect((await h.request('GET', `/api/v1/invoices/${invoice.id}`)).json().payment_status).toBe('PAID');
  });

  it('refuses drafts, lists with filters and hides other tenants', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id, { lines: [{ name: 'x', category: 'ONE_TIME', amount: new Dec('10') }] });
    const onDraft = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: draft.invoice.id, reason: 'x', credit_type: 'CREDIT_TO_BALANCE' } });
    expect(onDraft.statusCode).toBe(409);
    const { invoice } = await finalizedInvoice();
    const note = (await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: invoice.id, reason: 'x', credit_type: 'CREDIT_TO_BALANCE' } })).json();
    const list = (await h.request('GET', `/api/v1/credit-notes?invoice_id=${invoice.id}`)).json();
    expect(list.data.map((n: { id: string }) => n.id)).toEqual([note.id]);
    expect(list.pagination_meta.total_items).toBe(1);
    expect((await h.request('GET', `/api/v1/credit-notes?invoice_id=${invoice.id}&statuses=FINALIZED`)).json().data).toEqual([]);
    expect((await h.request('GET', '/api/v1/credit-notes?statuses=OPEN')).json().message).toContain('statuses[0]');
    for (const [method, path] of [['GET', ''], ['GET', '/download'], ['POST', '/finalize'], ['POST', '/void']] as const) {
      const res = await h.request(method, `/api/v1/credit-notes/${note.id}${path}`, { key: h.other.apiKey });
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'credit note not found' });
    }
    const foreign = await h.request('POST', '/api/v1/credit-notes', { key: h.other.apiKey, body: { invoice_id: invoice.id, reason: 'x', credit_type: 'REFUND' } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toContain('invoice_id');
  });
});
