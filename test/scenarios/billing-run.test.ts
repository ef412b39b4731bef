import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { backdatedSubscription, sendCalls } from './billing-support.js';

const harness = useHarness();

describe('billing run: backdated subscription with backfilled usage', () => {
  it('creates one invoice per past period, right to the cent, finalizes them in order, and previews the next', async () => {
    const h = harness();
    const { customerId, subscriptionId } = await backdatedSubscription(h);
    await sendCalls(h, customerId, '2026-01-20', 150, 'jan'); // 100 x 0.10 + 50 x 0.05 = 12.50
    await sendCalls(h, customerId, '2026-02-10', 80, 'feb'); // 80 x 0.10 = 8.00
    await sendCalls(h, customerId, '2026-03-05', 10, 'mar'); // 1.00, in arrears on April's invoice

    await h.service.tasks['billing.run']!({ once: true });
    const listRes = await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&order_by=invoice_date.asc`);
    expect(listRes.statusCode, listRes.body.slice(0, 500)).toBe(200);
    const list = listRes.json();
    expect(list.data.map((i: { invoice_date: string }) => i.invoice_date)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    const summary = list.data.map((i: Record<string, unknown>) => [i.invoice_number, i.status, i.subtotal, i.tax_amount, i.total, i.due_date]);
    // past drafts are past their grace period: the same run finalizes them, numbered by date
    expect(summary).toEqual([
      ['INV-0001', 'FINALIZED', '59.00', '11.80', '70.80', '2026-01-16'],
      ['INV-0002', 'FINALIZED', '71.50', '14.30', '85.80', '2026-02-16'],
      ['INV-0003', 'FINALIZED', '67.00', '13.40', '80.40', '2026-03-16'],
    ]);
    const first = list.data[0];
    expect(first.line_items.map((l: Record<string, string>) => [l.name, l.start_date, l.end_date, l.amount_total])).toEqual([
      ['Platform', '2026-01-01', '2026-01-31', '58.80'],
      ['Seats (seat)', '2026-01-01', '2026-01-31', '12.00'],
    ]);
    const feb = list.data[1];
    const usage = feb.line_items.find((l: { name: string }) => l.name === 'API calls');
    expect(usage).toMatchObject({ start_date: '2026-01-01', end_date: '2026-01-31', quantity: '150', amount_subtotal: '12.50', tax_amount: '2.50' });
    expect(usage.sub_line_items.map((s: Record<string, string>) => [s.quantity, s.unit_price, s.total])).toEqual([['100', '0.1', '10.00'], ['50', '0.05', '2.50']]);
    expect(feb.tax_breakdown).toEqual([{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '71.50', tax_amount: '14.30', exemption_type: null }]);

    // a second run creates nothing
    await h.service.tasks['billing.run']!({ once: true });
    expect((await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}`)).json().pagination_meta.total_items).toBe(3);

    const upcoming = await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(upcoming.statusCode, upcoming.body).toBe(200);
    expect(upcoming.json()).toMatchObject({ id: 'upcoming', invoice_date: '2026-04-01', subtotal: '60.00', tax_amount: '12.00', total: '72.00', status: 'DRAFT' });
    expect((await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}`)).json().pagination_meta.total_items).toBe(3);
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`, { key: h.other.apiKey })).statusCode).toBe(404);
  });

  it('refreshes a draft with late usage until its grace period ends', async () => {
    const h = harness();
    h.clock.set('2026-03-31T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Late Co', startDate: '2026-03-01' });
    await h.service.tasks['billing.run']!({ once: true });
    h.clock.set('2026-04-01T06:00:00.000Z'); // April's invoice is created, still in its grace period
    await h.service.tasks['billing.run']!({ once: true });
    let april = (await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&statuses=DRAFT`)).json().data[0];
    expect(april).toMatchObject({ invoice_date: '2026-04-01', subtotal: '59.00' });
    await sendCalls(h, customerId, '2026-03-30', 20, 'late'); // arrives late, for March
    h.clock.set('2026-04-02T00:00:00.000Z');
    await h.service.tasks['billing.run']!({ once: true });
    april = (await h.request('GET', `/api/v1/invoices/${april.id}`)).json();
    expect(april).toMatchObject({ status: 'FINALIZED', subtotal: '61.00', tax_amount: '12.20', total: '73.20' });
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('rewrites a refreshed draft only when its content changed, and remembers what it wrote', async () => {
    const h = harness();
    h.clock.set('2026-04-01T06:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Refresh Co', startDate: '2026-03-01', skipPastInvoices: true });
    await h.service.tasks['billing.run']!({ once: true });
    const draftOf = async () => (await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&statuses=DRAFT`)).json().data[0];
    const linesOf = async (id: string) => ((await h.request('GET', `/api/v1/invoices/${id}`)).json().line_items as { id: string; amount_subtotal: string }[]);
    const draft = await draftOf();
    expect(draft).toMatchObject({ invoice_date: '2026-04-01' });
    const created = await linesOf(draft.id);
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const refresh = async (legalName: string) => {
      const res = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { legal_name: legalName } }); // refreshes the entity's drafts
      expect(res.statusCode, res.body).toBe(200);
    };

    await refresh('Seller One SAS'); // nothing changed in the lines: they stay as they were
    expect((await linesOf(draft.id)).map((line) => line.id)).toEqual(created.map((line) => line.id));
    await sendCalls(h, customerId, '2026-03-30', 20, 'refresh-late'); // usage of March, billed in arrears on this draft
    await refresh('Seller Two SAS'); // content changed: the lines are written again
    const rewritten = await linesOf(draft.id);
    expect(rewritten.map((line) => line.id)).not.toEqual(created.map((line) => line.id));
    await refresh('Seller Three SAS'); // the same content again: kept as written
    expect((await linesOf(draft.id)).map((line) => line.id)).toEqual(rewritten.map((line) => line.id));
    h.clock.set('2026-03-15T12:00:00.000Z');
  });
});
