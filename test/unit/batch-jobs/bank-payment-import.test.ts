// Bank lines as rows (docs/batch-jobs.md, "Bank payment CSV"): their keys, their checks, and which
// payment references a transfer text names (src/modules/invoices/bank-transfers.ts).
import { describe, expect, it } from 'vitest';
import { bankLineFromRow, keyBankLines } from '../../../src/modules/batch-jobs/bank-payment-import.js';
import { referenceCandidates } from '../../../src/modules/invoices/bank-transfers.js';
import type { CsvItem } from '../../../src/modules/batch-jobs/csv.js';

const row = (values: Record<string, string>): CsvItem => ({ values: { date: '2026-04-20', amount: '100.00', currency: 'EUR', reference: 'INV0001', payer: 'ACME', ...values } });
const keys = (items: CsvItem[]) => keyBankLines(items).map((item) => item.key);

describe('bank line keys', () => {
  it('are the same for the same line in another file or spelling, and differ between identical lines of one file', () => {
    const [first] = keys([row({})]);
    expect(keys([row({ amount: '100', currency: 'eur', reference: 'inv0001' })])).toEqual([first]);
    const twins = keys([row({}), row({}), row({ amount: '5.00' })]);
    expect(twins[0]).toBe(first);
    expect(new Set(twins).size).toBe(3);
    expect(keys([row({ date: '2026-04-21' })])[0]).not.toBe(first);
  });

  it('follow the bank line id alone when there is one', () => {
    expect(keys([row({ bank_line_id: 'L-1' })])).toEqual(keys([row({ bank_line_id: 'L-1', reference: 'Invoice INV-0001', amount: '100' })]));
    expect(keys([row({ bank_line_id: 'L-1' })])).not.toEqual(keys([row({ bank_line_id: 'L-2' })]));
    expect(keyBankLines([{ error: 'row has 2 fields where the header has 5' }])).toEqual([{ error: 'row has 2 fields where the header has 5' }]);
  });
});

describe('bank line fields', () => {
  it('reads a day as its midnight UTC, or an RFC 3339 date-time', () => {
    expect(bankLineFromRow((row({}) as { values: Record<string, string> }).values)).toEqual({
      paid_at: '2026-04-20T00:00:00.000Z', amount: '100.00', currency: 'EUR', reference: 'INV0001', payer: 'ACME', bank_line_id: null,
    });
    expect(bankLineFromRow({ date: '2026-04-20T09:30:00+02:00', amount: '1', currency: 'usd', reference: 'X' }).paid_at).toBe('2026-04-20T07:30:00.000Z');
  });

  it.each([
    [{ date: '2026-02-30' }, "date '2026-02-30' must be a date such as 2026-04-20"],
    [{ amount: '0.00' }, "amount '0.00' is not money received"],
    [{ amount: '1,50' }, "amount '1,50' must be a decimal number with a dot, e.g. 120.00"],
    [{ currency: 'EURO' }, "currency 'EURO' must be a 3-letter ISO 4217 code such as EUR"],
    [{ reference: '' }, 'reference is empty'],
  ])('refuses %j', (values, message) => {
    expect(() => bankLineFromRow((row(values) as { values: Record<string, string> }).values)).toThrow(message);
  });
});

describe('payment references named by a transfer text', () => {
  it.each([
    ['INV-0001', ['INV0001']],
    ['inv 0001', ['INV0001', 'INV', '0001']],
    ['Payment for INV-0001, thanks', ['PAYMENTFORINV0001THANKS', 'PAYMENT', 'FOR', 'INV0001', 'THANKS']],
    ['INV00012', ['INV00012']],
    ['a b', []],
  ])('%s', (text, expected) => {
    expect(referenceCandidates(text)).toEqual(expected);
  });
});
