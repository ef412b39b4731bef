import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { lastMonths } from '../../src/modules/invoices/summary.js';
import { useHarness } from '../harness/app.js';
import { createCustomer, createDraft, standardLines } from './invoices-support.js';

/** GET /api/v1/invoices/summary, the dashboard's Home figures (src/modules/invoices/summary.ts). The harness's clock: 2026-03-15. */
const harness = useHarness();

describe('invoice summary', () => {
  it('counts the last months, oldest first, across a year boundary', () => {
    expect(lastMonths('2026-03-15', 4)).toEqual(['2025-12-01', '2026-01-01', '2026-02-01', '2026-03-01']);
    expect(lastMonths('2026-01-31', 1)).toEqual(['2026-01-01']);
  });

  it('sums invoiced and unpaid amounts by month, MRR from recurring lines a month at a time, and only for the caller', async () => {
    const h = harness();
    const empty = await h.request('GET', '/api/v1/invoices/summary');
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({ months: lastMonths('2026-03-15', 12).map((m) => m.slice(0, 7)), currencies: [], failed_payments: [] });

    const customer = await createCustomer(h);
    // March: 100.00 recurring for the month + 20.00 usage, 20 % VAT: 144.00, finalized and unpaid.
    const march = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${march.invoice.id}/finalize`)).statusCode).toBe(200);
    // A quarterly fee of 300.00 (January to March), still a draft: MRR 100.00 in each of its months, nothing invoiced.
    await createDraft(h, customer.id, {
      invoiceDate: '2026-01-01',
      lines: [{ name: 'Quarterly platform', category: 'RECURRING', amount: new Dec('300'), quantity: new Dec('1'), unitPrice: new Dec('300'), periodStart: '2026-01-01', periodEnd: '2026-03-31' }],
      lineDetails: [undefined],
    });
    // A voided invoice counts nowhere.
    const voided = await createDraft(h, customer.id, { invoiceDate: '2026-02-01', lines: standardLines() });
    expect((await h.request('POST', `/api/v1/invoices/${voided.invoice.id}/void`)).statusCode).toBe(200);

    const res = await h.request('GET', '/api/v1/invoices/summary', { query: { months: '3' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      months: ['2026-01', '2026-02', '2026-03'],
      currencies: [
        {
          currency: 'EUR',
          by_month: [
            { month: '2026-01', mrr: '100.00', invoiced: '0.00', unpaid: '0.00' },
            { month: '2026-02', mrr: '100.00', invoiced: '0.00', unpaid: '0.00' },
            { month: '2026-03', mrr: '200.00', invoiced: '144.00', unpaid: '144.00' },
          ],
          unpaid: '144.00',
          unpaid_invoices: 1,
        },
      ],
      failed_payments: [],
    });

    const other = await h.request('GET', '/api/v1/invoices/summary', { key: h.other.apiKey });
    expect(other.json().currencies).toEqual([]);
    const bad = await h.request('GET', '/api/v1/invoices/summary', { query: { months: '0' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^months /);
  });
});
