// Bank payment CSV (docs/batch-jobs.md, "Bank payment CSV"; docs/payments.md, "Bank transfers"):
// bank lines matched to FINALIZED invoices by payment reference become payments of them; lines
// that name no invoice, several, another currency, a paid or void invoice, or more than is due
// are failures with the reason and record nothing; a line uploaded again is never recorded twice.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from './invoices-support.js';

const harness = useHarness();

interface Invoice {
  id: string;
  invoice_number: string;
  reference: string;
  status: string;
  payment_status: string;
  amount_paid: string;
  amount_due: string;
  paid_at: string | null;
  transactions: { amount: string; provider_transaction_id: string | null; processed_at: string }[];
}

/** A finalized 144.00 invoice (100.00 + 20.00 + 20 % VAT) of a new customer, in `currency`. */
async function finalized(h: Harness, currency = 'EUR'): Promise<Invoice> {
  const customer = await createCustomer(h, { currency });
  const draft = await createDraft(h, customer.id, { currency });
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const invoice = async (h: Harness, id: string): Promise<Invoice> => (await h.request('GET', `/api/v1/invoices/${id}`)).json();

async function upload(h: Harness, rows: string[][], options: { force?: boolean; fileName?: string } = {}) {
  const csv = rows.map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')).join('\n') + '\n';
  return h.request('POST', '/api/v1/batch-jobs', {
    body: { job_type: 'BANK_PAYMENT_CSV_IMPORT', file_name: options.fileName ?? 'statement.csv', csv, ...(options.force ? { force_duplicate: true } : {}) },
  });
}

async function finished(h: Harness, jobId: string) {
  await h.drainJobs();
  const job = (await h.request('GET', `/api/v1/batch-jobs/${jobId}`)).json();
  const failures = (await h.request('GET', `/api/v1/batch-jobs/${jobId}/failures`, { query: { limit: '100' } })).json();
  return { job, failures: (failures.data as { item_index: number; item_identifier: string | null; reason: string }[]).map((f) => [f.item_index, f.item_identifier, f.reason]) };
}

const HEADER = ['date', 'amount', 'currency', 'reference', 'payer', 'bank_line_id', 'balance'];

describe('bank payment CSV', () => {
  it('records lines that name one payable invoice and reports every other line with its reason, touching nothing', async () => {
    const h = harness();
    const [a, b, usd, paid, voided, twinA, twinB] = [await finalized(h), await finalized(h), await finalized(h, 'USD'), await finalized(h), await finalized(h), await finalized(h), await finalized(h)];
    expect((await h.request('POST', `/api/v1/invoices/${paid.id}/mark-paid`, { body: {} })).statusCode).toBe(200);
    expect((await h.request('POST', `/api/v1/invoices/${voided.id}/void`)).statusCode).toBe(200);
    expect(a.reference).toBe(a.invoice_number.replace(/[^A-Za-z0-9]/g, ''));

    const rows = [
      HEADER,
      ['2026-04-20', '144.00', 'EUR', `Payment ${a.invoice_number} thanks`, 'ACME SAS', '', '1000.00'],
      ['2026-04-21', '44.00', 'eur', b.reference, 'ACME SAS', 'L-2', '1044.00'],
      ['2026-04-21', '10.00', 'EUR', 'INV9999', 'Stranger', '', ''],
      ['2026-04-21', '144.00', 'EUR', usd.reference, '', '', ''],
      ['2026-04-22', '144.00', 'EUR', paid.reference, '', '', ''],
      ['2026-04-22', '100.01', 'EUR', b.reference, '', '', ''],
      ['2026-04-22', '144.00', 'EUR', `${twinA.reference} ${twinB.reference}`, '', '', ''],
      ['2026-04-22', '-10.00', 'EUR', a.reference, '', 'L-8', ''],
      ['20/04/2026', '144.00', 'EUR', a.reference, '', '', ''],
      ['2026-04-22', '144.00', 'EUR', voided.reference, '', '', ''],
      ['2026-04-22', '144.001', 'EUR', twinA.reference, '', '', ''],
    ];
    const created = await upload(h, rows);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ job_type: 'BANK_PAYMENT_CSV_IMPORT', status: 'PENDING', total_items: 11, processed_items: 0, failed_items: 0, matched_items: 0 });
    const { job, failures } = await finished(h, created.json().id);
    expect(job).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', total_items: 11, processed_items: 2, matched_items: 2, failed_items: 9, failure_count: 9 });
    expect(failures).toEqual([
      [2, 'INV9999', "no invoice has the payment reference 'INV9999' (payer Stranger); nothing recorded"],
      [3, usd.reference, `currency EUR is not the currency of invoice ${usd.invoice_number} (USD); nothing recorded`],
      [4, paid.reference, `invoice ${paid.invoice_number} is already PAID; this line of 144.00 EUR would be an over-payment; nothing recorded`],
      [5, b.reference, `amount 100.01 EUR is more than the 100.00 EUR still due on invoice ${b.invoice_number} (over-payment); nothing recorded`],
      [6, `${twinA.reference} ${twinB.reference}`, `reference '${twinA.reference} ${twinB.reference}' is ambiguous: it matches invoices ${[twinA, twinB].sort((x, y) => x.id.localeCompare(y.id)).map((i) => i.invoice_number).join(', ')}; record it by hand (mark paid); nothing recorded`],
      [7, 'L-8', "amount '-10.00' is not money received: only lines above zero are payments"],
      [8, a.reference, "date '20/04/2026' must be a date such as 2026-04-20 or an RFC 3339 date-time such as 2026-04-20T09:30:00Z"],
      [9, voided.reference, `invoice ${voided.invoice_number} is VOID; only a FINALIZED invoice takes payments; nothing recorded`],
      [10, twinA.reference, "amount '144.001' has more decimals than EUR allows; nothing recorded"],
    ]);

    const paidA = await invoice(h, a.id);
    expect(paidA).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00', paid_at: '2026-04-20T00:00:00.000Z' });
    expect(paidA.transactions).toMatchObject([{ amount: '144.00', provider_transaction_id: `Payment ${a.invoice_number} thanks`, processed_at: '2026-04-20T00:00:00.000Z' }]);
    const partB = await invoice(h, b.id);
    expect(partB).toMatchObject({ payment_status: 'PARTIALLY_PAID', amount_paid: '44.00' });
    expect(partB.transactions).toMatchObject([{ amount: '44.00', provider_transaction_id: 'L-2' }]);
    // the refused lines touched nothing
    for (const untouched of [usd, twinA, twinB]) expect(await invoice(h, untouched.id)).toMatchObject({ payment_status: 'UNPAID', amount_paid: '0.00', transactions: [] });
    expect((await invoice(h, paid.id)).transactions).toHaveLength(1);
    expect(await invoice(h, voided.id)).toMatchObject({ status: 'VOID', transactions: [] });
    const paidEvents = await h.db.pool.query(`SELECT object_id FROM outbox_events WHERE event_type = 'invoice.paid' AND object_id = ANY($1)`, [[a.id, b.id]]);
    expect(paidEvents.rows).toEqual([{ object_id: a.id }]);
  });

  it('never records a line twice: the same file again, an overlapping statement, and two identical lines in one file', async () => {
    const h = harness();
    const [a, b] = [await finalized(h), await finalized(h)];
    const first = [HEADER, ['2026-04-20', '100.00', 'EUR', a.reference, 'ACME', '', ''], ['2026-04-20', '44.00', 'EUR', b.reference, 'ACME', 'L-77', '']];
    const job1 = await upload(h, first);
    expect(job1.statusCode, job1.body).toBe(201);
    expect((await finished(h, job1.json().id)).job).toMatchObject({ status: 'COMPLETED', processed_items: 2, matched_items: 2, failed_items: 0 });

    // the same file: refused as already imported, unless forced; forced, every line is known and nothing is recorded
    const again = await upload(h, first);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toContain(job1.json().id);
    const forced = await upload(h, first, { force: true });
    expect(forced.statusCode, forced.body).toBe(201);
    expect((await finished(h, forced.json().id)).job).toMatchObject({ status: 'COMPLETED', processed_items: 2, matched_items: 0, failed_items: 0 });
    expect(await invoice(h, a.id)).toMatchObject({ amount_paid: '100.00', transactions: [{ amount: '100.00' }] });
    expect(await invoice(h, b.id)).toMatchObject({ amount_paid: '44.00', transactions: [{ amount: '44.00' }] });

    // a later statement repeats both lines (the bank's line id wins over a changed text; the same fields in another
    // spelling are the same line) and adds two identical transfers of 22.00 to A: each of those is recorded
    const overlapping = [
      HEADER,
      ['2026-04-20', '100', 'eur', a.reference, 'ACME', '', ''],
      ['2026-04-20', '44.00', 'EUR', `Invoice ${b.invoice_number}`, 'ACME', 'L-77', ''],
      ['2026-04-23', '22.00', 'EUR', a.reference, 'ACME', '', ''],
      ['2026-04-23', '22.00', 'EUR', a.reference, 'ACME', '', ''],
    ];
    const job3 = await upload(h, overlapping, { fileName: 'april.csv' });
    expect(job3.statusCode, job3.body).toBe(201);
    expect((await finished(h, job3.json().id)).job).toMatchObject({ status: 'COMPLETED', total_items: 4, processed_items: 4, matched_items: 2, failed_items: 0 });
    expect(await invoice(h, a.id)).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00' });
    // (recorded at the same service time: their order among themselves is not defined)
    expect((await invoice(h, a.id)).transactions.map((t) => t.amount).sort()).toEqual(['100.00', '22.00', '22.00']);
    expect((await invoice(h, b.id)).transactions).toHaveLength(1);
  });

  it('refuses a file without the required columns, naming csv', async () => {
    const h = harness();
    const res = await upload(h, [['date', 'amount', 'reference'], ['2026-04-20', '1.00', 'INV0001']]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("csv header must have the columns date, amount, currency, reference (payer and bank_line_id are optional); missing 'currency'");
    // other job types show no matched count
    const events = await h.request('POST', '/api/v1/batch-jobs', { body: { job_type: 'EVENT_CSV_IMPORT', csv: 'event_code,customer_id\napi_calls,c1\n' } });
    expect(events.json()).toMatchObject({ matched_items: null });
  });
});
