import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { Dec } from '../../src/kernel/money.js';
import { renderInvoicePdf } from '../../src/modules/invoices/documents.js';
import { loadDetail, findInvoice, recordProviderPayment } from '../../src/modules/invoices/index.js';
import { withTx } from '../../src/db/tx.js';
import { createCustomer, createDraft, outbox } from './invoices-support.js';

const harness = useHarness();

describe('invoicing entities', () => {
  it('creates a default entity on first use, reads and updates it', async () => {
    const h = harness();
    const list = await h.request('GET', '/api/v1/invoicing-entities');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toHaveLength(1);
    const entity = list.json().data[0];
    expect(entity).toMatchObject({ is_default: true, legal_name: 'Org A', country: 'US', invoice_number_prefix: 'INV-', next_invoice_number: 1, net_terms: 30, grace_period_hours: 24, e_invoicing_enabled: false });
    expect(entity.id).toMatch(/^ive_[0-9A-Z]{26}$/);
    // a second read does not create a second default
    expect((await h.request('GET', '/api/v1/invoicing-entities')).json().data).toHaveLength(1);

    const patched = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, {
      body: { legal_name: 'Org A SAS', country: 'FR', vat_number: 'FR12345678901', address_line1: '1 rue de la Paix', city: 'Paris', zip_code: '75002', invoice_number_prefix: 'ORGA-', net_terms: 15 },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ legal_name: 'Org A SAS', country: 'FR', vat_number: 'FR12345678901', city: 'Paris', invoice_number_prefix: 'ORGA-', net_terms: 15 });
    expect((await h.request('GET', `/api/v1/invoicing-entities/${entity.id}`)).json().invoice_number_prefix).toBe('ORGA-');
    // back to defaults for the other tests
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { invoice_number_prefix: 'INV-', net_terms: 30 } });
  });

  it('validates fields by name and hides other tenants', async () => {
    const h = harness();
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const badCountry = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { country: 'France' } });
    expect(badCountry.statusCode).toBe(400);
    expect(badCountry.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('country') });
    const badTerms = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { net_terms: '30' } });
    expect(badTerms.statusCode).toBe(400);
    expect(badTerms.json().message).toContain('net_terms');
    const badPrefix = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { invoice_number_prefix: 'INV {x}' } });
    expect(badPrefix.json().message).toContain('invoice_number_prefix');
    expect((await h.request('GET', `/api/v1/invoicing-entities/${entity.id}`, { key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { key: h.other.apiKey, body: { legal_name: 'x' } })).statusCode).toBe(404);
  });
});

describe('invoices', () => {
  it('stores a draft with lines, sub-lines and tax breakdown, shown as decimal strings', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    const res = await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const invoice = res.json();
    expect(invoice).toMatchObject({
      id: draft.invoice.id,
      invoice_number: 'draft',
      status: 'DRAFT',
      payment_status: 'UNPAID',
      invoice_type: 'RECURRING',
      customer_id: customer.id,
      currency: 'EUR',
      invoice_date: '2026-03-01',
      due_date: null,
      net_terms: 30,
      subtotal: '120.00',
      subtotal_recurring: '100.00',
      discount: '0.00',
      tax_amount: '24.00',
      total: '144.00',
      applied_credits: '0.00',
      amount_due: '144.00',
      coupons: [],
      transactions: [],
      customer_details: { id: customer.id, name: 'ACME SAS' },
    });
    expect(invoice.line_items).toHaveLength(2);
    expect(invoice.line_items[0]).toMatchObject({ name: 'Platform fee', start_date: '2026-03-01', end_date: '2026-03-31', quantity: '1', unit_price: '100', amount_subtotal: '100.00', taxable_amount: '100.00', tax_rate: '0.2', tax_amount: '20.00', amount_total: '120.00', sub_line_items: [] });
    expect(invoice.line_items[1].sub_line_items).toEqual([
      { id: expect.any(String), name: 'Tier 1 (0-1000)', total: '10.00', quantity: '1000', unit_price: '0.01' },
      { id: expect.any(String), name: 'Tier 2 (1000+)', total: '10.00', quantity: '500', unit_price: '0.02' },
    ]);
    expect(invoice.tax_breakdown).toEqual([{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '120.00', tax_amount: '24.00', exemption_type: null }]);
    const events = await outbox(h, draft.invoice.id);
    expect(events.map((e) => e.event_type)).toEqual(['invoice.created']);
    expect(events[0]!.payload).toMatchObject({ invoice_id: draft.invoice.id, customer_id: customer.id, status: 'DRAFT', currency: 'EUR', total: '144.00', tax_amount: '24.00' });
  });

  it('finalizes with gapless numbers, due date, balance applied, events and a stored deterministic PDF', async () => {
    const h = harness();
    const customer = await createCustomer(h, { name: 'Balance Co' });
    expect((await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '10.00' } })).statusCode).toBe(200);
    const first = await createDraft(h, customer.id);
    const second = await createDraft(h, customer.id, { invoiceDate: '2026-03-10' });

    const fin1 = await h.request('POST', `/api/v1/invoices/${first.invoice.id}/finalize`);
    expect(fin1.statusCode, fin1.body).toBe(200);
    expect(fin1.json()).toMatchObject({ status: 'FINALIZED', invoice_number: 'INV-0001', due_date: '2026-03-31', applied_credits: '10.00', amount_due: '134.00', total: '144.00', payment_status: 'UNPAID' });
    expect(fin1.json().finalized_at).toBe(h.clock.now().toISOString());
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('0.00');

    const fin2 = await h.request('POST', `/api/v1/invoices/${second.invoice.id}/finalize`);
    expect(fin2.json()).toMatchObject({ invoice_number: 'INV-0002', due_date: '2026-04-09', applied_credits: '0.00', amount_due: '144.00' });
    // finalizing again changes nothing and takes no number
    expect((await h.request('POST', `/api/v1/invoices/${first.invoice.id}/finalize`)).json().invoice_number).toBe('INV-0001');
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    expect(entity.next_invoice_number).toBe(3);

    expect((await outbox(h, first.invoice.id)).map((e) => e.event_type)).toEqual(['invoice.created', 'invoice.finalized']);
    await h.drainJobs();
    const events = await outbox(h, first.invoice.id);
    expect(events.map((e) => e.event_type)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.accounting_pdf_generated']);
    const pdfEvent = events[2]!.payload;
    expect(pdfEvent).toMatchObject({ invoice_id: first.invoice.id, customer_id: customer.id, invoice_number: 'INV-0001', pdf_id: expect.stringMatching(/^doc_/), e_invoicing: { format: null, status: 'NOT_APPLICABLE', errors: [], download_url: null } });

    const download = await h.request('GET', `/api/v1/invoices/${first.invoice.id}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // same invoice, same bytes: re-render from the stored invoice (with its pay link, printed while payable) and compare
    const row = (await findInvoice(h.db.pool, h.tenant.id, first.invoice.id))!;
    const payUrl = await h.service.payments.payUrlFor(h.db.pool, row, h.tenant.id);
    expect(payUrl).toMatch(/\/pay\/ip_/);
    const again = await renderInvoicePdf(h.db.pool, h.tenant.id, await loadDetail(h.db.pool, h.tenant.id, row), payUrl);
    expect(again.equals(download.rawPayload)).toBe(true);
    expect(row.pdf_document_id).toBe(pdfEvent.pdf_id);
  });

  it('reports the e-invoicing outcome of an entity that opted in', async () => {
    const h = harness();
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { e_invoicing_enabled: true } });
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    await h.drainJobs();
    const event = (await outbox(h, draft.invoice.id)).find((e) => e.event_type === 'invoice.accounting_pdf_generated')!;
    // the switch without a format means Factur-X; the customer has no billing address, so the document fails rules, and says which
    expect(event.payload.e_invoicing).toMatchObject({ format: 'FACTURX', status: 'INVALID', download_url: `/api/v1/invoices/${draft.invoice.id}/e-invoice` });
    expect((event.payload.e_invoicing as { errors: { rule: string }[] }).errors.map((e) => e.rule)).toEqual(['BR-10', 'BR-11']);
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { e_invoicing_enabled: false } });
  });

  it('records manual payments, partial then full, emitting invoice.paid once', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    const url = `/api/v1/invoices/${draft.invoice.id}/mark-paid`;
    const number = await h.request('POST', url, { body: { amount: 44 } });
    expect(number.statusCode).toBe(400);
    expect(number.json().message).toContain('amount');
    const tooMuch = await h.request('POST', url, { body: { amount: '144.01' } });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().message).toContain('amount');
    const partial = await h.request('POST', url, { body: { amount: '44.00', reference: 'wire-778' } });
    expect(partial.json()).toMatchObject({ payment_status: 'PARTIALLY_PAID', amount_paid: '44.00', paid_at: null });
    const partialAt = h.clock.now().toISOString();
    h.clock.advance(60_000);
    const full = await h.request('POST', url, { body: {} });
    expect(full.json()).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00', paid_at: h.clock.now().toISOString() });
    const settled = { currency: 'EUR', status: 'SETTLED', payment_type: 'PAYMENT', payment_method_id: null, payment_method_info: null, error: null };
    expect(full.json().transactions).toEqual([
      { ...settled, id: expect.stringMatching(/^pay_/), amount: '44.00', provider_transaction_id: 'wire-778', processed_at: partialAt },
      { ...settled, id: expect.stringMatching(/^pay_/), amount: '100.00', provider_transaction_id: null, processed_at: h.clock.now().toISOString() },
    ]);
    const listed = (await h.request('GET', `/api/v1/invoices?customer_id=${customer.id}`)).json();
    expect(listed.data[0].transactions.map((t: { amount: string }) => t.amount)).toEqual(['44.00', '100.00']);
    expect((await h.request('POST', url, { body: {} })).statusCode).toBe(409);
    const types = (await outbox(h, draft.invoice.id)).map((e) => e.event_type);
    expect(types.filter((t) => t === 'invoice.paid')).toHaveLength(1);
    // a paid invoice cannot be voided
    const voided = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/void`);
    expect(voided.statusCode).toBe(409);
    expect(voided.json().code).toBe('CONFLICT');
  });

  it('a provider payment beyond what is still due pays the rest and credits the excess to the customer balance', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/mark-paid`, { body: { amount: '100.00' } });
    // the provider settles the whole 144.00 (a payment confirmed after a manual part-payment)
    const paid = await withTx(h.db.pool, (tx) => recordProviderPayment(tx, h.tenant.id, h.clock, draft.invoice.id, { amountMinor: 14400n, reference: 'pi_late', paidAt: h.clock.now() }));
    expect(paid).toMatchObject({ payment_status: 'PAID', amount_paid_minor: 14400n });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('100.00');
    // once settled, a replayed late payment goes to the balance whole
    await withTx(h.db.pool, (tx) => recordProviderPayment(tx, h.tenant.id, h.clock, draft.invoice.id, { amountMinor: 500n, reference: 'pi_later', paidAt: h.clock.now() }));
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('105.00');
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json()).toMatchObject({ amount_paid: '144.00', payment_status: 'PAID' });
  });

  it('voids drafts and unpaid invoices (giving back applied balance) and marks uncollectible', async () => {
    const h = harness();
    const customer = await createCustomer(h, { name: 'Void Co' });
    await h.request('POST', `/api/v1/customers/${customer.id}/balance`, { body: { amount: '50.00' } });
    const draft = await createDraft(h, customer.id);
    const voidedDraft = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/void`);
    expect(voidedDraft.json()).toMatchObject({ status: 'VOID', invoice_number: 'draft', voided_at: h.clock.now().toISOString() });
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(409);

    const finalized = await createDraft(h, customer.id);
    const fin = (await h.request('POST', `/api/v1/invoices/${finalized.invoice.id}/finalize`)).json();
    expect(fin.applied_credits).toBe('50.00');
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('0.00');
    const voided = await h.request('POST', `/api/v1/invoices/${finalized.invoice.id}/void`);
    expect(voided.json()).toMatchObject({ status: 'VOID', amount_due: '0.00' });
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('50.00');
    expect((await outbox(h, finalized.invoice.id)).map((e) => e.event_type)).toContain('invoice.voided');

    const other = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${other.invoice.id}/mark-uncollectible`)).statusCode).toBe(409);
    await h.request('POST', `/api/v1/invoices/${other.invoice.id}/finalize`);
    const uncollectible = await h.request('POST', `/api/v1/invoices/${other.invoice.id}/mark-uncollectible`);
    expect(uncollectible.json()).toMatchObject({ status: 'UNCOLLECTIBLE', marked_as_uncollectible_at: h.clock.now().toISOString() });
    expect((await h.request('POST', `/api/v1/invoices/${other.invoice.id}/void`)).statusCode).toBe(409);
  });

  it('settles a zero invoice at finalization', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id, { lines: [{ name: 'Free tier', category: 'USAGE', amount: new Dec('0') }] });
    const fin = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    expect(fin.json()).toMatchObject({ status: 'FINALIZED', payment_status: 'PAID', total: '0.00', amount_due: '0.00' });
    expect((await outbox(h, draft.invoice.id)).map((e) => e.event_type)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.paid']);
  });

  it('finalizes drafts whose grace period is over, as of the clock', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    h.clock.set('2026-04-01T10:00:00.000Z');
    const draft = await createDraft(h, customer.id, { invoiceDate: '2026-04-01', autoAdvance: true });
    await h.service.tasks['invoices.finalize_due']!({});
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json().status).toBe('DRAFT');
    h.clock.set('2026-04-02T00:00:00.000Z'); // invoice date 00:00 + 24 h
    await h.service.tasks['invoices.finalize_due']!({});
    const invoice = (await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json();
    expect(invoice.status).toBe('FINALIZED');
    expect(invoice.due_date).toBe('2026-05-01');
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('lists with filters, paging and ordering, and validates them', async () => {
    const h = harness();
    const a = await createCustomer(h, { name: 'Zed Ltd', alias: 'zed' });
    const b = await createCustomer(h, { name: 'Alpha Ltd' });
    const d1 = await createDraft(h, a.id, { invoiceDate: '2026-01-01', subscriptionId: 'sub_X', periodStart: '2026-01-01', periodEnd: '2026-02-01' });
    const d2 = await createDraft(h, a.id, { invoiceDate: '2026-02-01' });
    const d3 = await createDraft(h, b.id, { invoiceDate: '2026-02-15' });
    await h.request('POST', `/api/v1/invoices/${d2.invoice.id}/finalize`);

    const byCustomer = (await h.request('GET', `/api/v1/invoices?customer_id=${a.id}`)).json();
    expect(byCustomer.data.map((i: { id: string }) => i.id)).toEqual([d2.invoice.id, d1.invoice.id]);
    expect(byCustomer.pagination_meta).toEqual({ page: 0, per_page: 10, total_items: 2, total_pages: 1 });
    expect((await h.request('GET', '/api/v1/invoices?customer_id=zed')).json().data).toHaveLength(2);
    expect((await h.request('GET', '/api/v1/invoices?subscription_id=sub_X')).json().data.map((i: { id: string }) => i.id)).toEqual([d1.invoice.id]);
    const finalized = (await h.request('GET', `/api/v1/invoices?customer_id=${a.id}&statuses=FINALIZED`)).json();
    expect(finalized.data.map((i: { id: string }) => i.id)).toEqual([d2.invoice.id]);
    const both = (await h.request('GET', `/api/v1/invoices?customer_id=${a.id}&statuses=FINALIZED&statuses=DRAFT`)).json();
    expect(both.data).toHaveLength(2);
    const byName = (await h.request('GET', `/api/v1/invoices?order_by=customer_name.asc&per_page=1`)).json();
    expect(byName.data[0].customer_details.name).toBe('ACME SAS');
    expect(byName.data[0].line_items.length).toBeGreaterThan(0);
    const page2 = (await h.request('GET', `/api/v1/invoices?customer_id=${b.id}&page=1&per_page=1`)).json();
    expect(page2.data).toEqual([]);
    expect(d3.invoice.customer_id).toBe(b.id);

    const badStatus = await h.request('GET', '/api/v1/invoices?statuses=PAID');
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('statuses[0]') });
    const badOrder = await h.request('GET', '/api/v1/invoices?order_by=total.asc');
    expect(badOrder.statusCode).toBe(400);
    expect(badOrder.json().message).toContain('order_by');
    expect((await h.request('GET', '/api/v1/invoices?per_page=101')).statusCode).toBe(400);
  });

  it('refuses a second invoice for one subscription period (database constraint)', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const period = { subscriptionId: 'sub_DUP', periodStart: '2026-03-01', periodEnd: '2026-04-01' };
    await createDraft(h, customer.id, period);
    await expect(createDraft(h, customer.id, period)).rejects.toMatchObject({ code: '23505', constraint: 'invoices_subscription_period_key' });
  });

  it('hides invoices from other tenants', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    for (const [method, path] of [
      ['GET', ''], ['GET', '/download'], ['POST', '/finalize'], ['POST', '/void'], ['POST', '/mark-paid'], ['POST', '/mark-uncollectible'],
    ] as const) {
      const res = await h.request(method, `/api/v1/invoices/${draft.invoice.id}${path}`, { key: h.other.apiKey, ...(method === 'POST' ? { body: {} } : {}) });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'invoice not found' });
    }
    expect((await h.request('GET', '/api/v1/invoices', { key: h.other.apiKey })).json().data).toEqual([]);
    expect((await h.request('GET', '/api/v1/invoices', { key: null })).statusCode).toBe(401);
  });

  it('downloads a draft preview without storing it', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    const res = await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/download`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const stored = await h.db.pool.query('SELECT count(*)::int AS n FROM documents WHERE object_id = $1', [draft.invoice.id]);
    expect(stored.rows[0].n).toBe(0);
  });
});
