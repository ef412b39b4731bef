import { describe, expect, it } from 'vitest';
import { decimal } from '../../src/kernel/money.js';
import type { Coupon } from '../../src/domain/discounts.js';
import { assembleInvoice, type InvoiceInput, type InvoiceLineInput, type LineCategory } from '../../src/domain/invoice.js';
import type { TaxDecision } from '../../src/domain/tax.js';

const d = decimal;
const vat20: TaxDecision = { treatment: 'STANDARD', rate: d('0.2'), country: 'FR' };
const reverseCharge: TaxDecision = { treatment: 'REVERSE_CHARGE', rate: d('0'), country: null };
const exempt: TaxDecision = { treatment: 'EXEMPT', rate: d('0'), country: null };
const line = (name: string, amount: string, category: LineCategory = 'RECURRING', tax?: TaxDecision): InvoiceLineInput => ({
  name,
  category,
  amount: d(amount),
  tax: tax ?? null,
});
const pct = (couponId: string, percent: string): Coupon => ({ couponId, kind: 'PERCENTAGE', percent: d(percent) });
const base: InvoiceInput = { currency: 'EUR', taxInclusive: false, lines: [], tax: vat20 };

type Totals = [subtotal: bigint, discount: bigint, tax: bigint, total: bigint, balanceApplied: bigint, amountDue: bigint];
const totals = (input: InvoiceInput): Totals => {
  const invoice = assembleInvoice(input);
  return [invoice.subtotalMinor, invoice.discountMinor, invoice.taxMinor, invoice.totalMinor, invoice.balanceAppliedMinor, invoice.amountDueMinor];
};

describe('assembleInvoice totals', () => {
  it.each<[string, Partial<InvoiceInput>, Totals]>([
    ['plan + usage, tax exclusive (12.345 rounds once to 12.35)', { lines: [line('Pro', '49.00'), line('API calls', '12.345', 'USAGE')] }, [6135n, 0n, 1227n, 7362n, 0n, 7362n]],
    ['10 % coupon before tax', { lines: [line('A', '100'), line('B', '50')], coupons: [pct('c', '10')] }, [15000n, 1500n, 2700n, 16200n, 0n, 16200n]],
    ['100 % coupon: nothing to pay', { lines: [line('Pro', '49.00')], coupons: [pct('free', '100')] }, [4900n, 4900n, 0n, 0n, 0n, 0n]],
    ['tax inclusive 120.00 at 20 %', { taxInclusive: true, lines: [line('Pro', '120.00')] }, [10000n, 0n, 2000n, 12000n, 0n, 12000n]],
    ['tax inclusive with 10 % coupon: pays 108.00', { taxInclusive: true, lines: [line('Pro', '120.00')], coupons: [pct('c', '10')] }, [10000n, 1000n, 1800n, 10800n, 0n, 10800n]],
    ['tax inclusive at 0 % (reverse charge): pays the quoted 49.00', { taxInclusive: true, tax: reverseCharge, lines: [line('Pro', '49.00')] }, [4900n, 0n, 0n, 4900n, 0n, 4900n]],
    ['tax inclusive at 0 % with a 100 % coupon', { taxInclusive: true, tax: reverseCharge, lines: [line('Pro', '49.00')], coupons: [pct('free', '100')] }, [4900n, 4900n, 0n, 0n, 0n, 0n]],
    ['balance smaller than the total', { lines: [line('Pro', '100.00')], customerBalanceMinor: 5000n }, [10000n, 0n, 2000n, 12000n, 5000n, 7000n]],
    ['balance larger than the total', { lines: [line('Pro', '100.00')], customerBalanceMinor: 20000n }, [10000n, 0n, 2000n, 12000n, 12000n, 0n]],
    ['negative balance (customer owes) is not applied', { lines: [line('Pro', '100.00')], customerBalanceMinor: -100n }, [10000n, 0n, 2000n, 12000n, 0n, 12000n]],
    ['JPY rounds to whole yen', { currency: 'JPY', lines: [line('Pro', '1000.4')], tax: { ...vat20, rate: d('0.1') } }, [1000n, 0n, 100n, 1100n, 0n, 1100n]],
    ['no lines', {}, [0n, 0n, 0n, 0n, 0n, 0n]],
  ])('%s', (_name, overrides, expected) => {
    expect(totals({ ...base, ...overrides })).toEqual(expected);
  });
});

describe('minimum commitment', () => {
  it.each<[string, Partial<InvoiceInput>, bigint | null, Totals]>([
    ['tops up the period lines; one-time fees do not count', { lines: [line('Pro', '20'), line('Usage', '5', 'USAGE'), line('Setup', '50', 'ONE_TIME')], minimumCommitment: d('50') }, 2500n, [10000n, 0n, 2000n, 12000n, 0n, 12000n]],
    ['measured after discounts', { lines: [line('Pro', '60')], coupons: [pct('half', '50')], minimumCommitment: d('50') }, 2000n, [8000n, 3000n, 1000n, 6000n, 0n, 6000n]],
    ['met: no line', { lines: [line('Pro', '60')], minimumCommitment: d('50') }, null, [6000n, 0n, 1200n, 7200n, 0n, 7200n]],
    ['exactly met: no line', { lines: [line('Pro', '50')], minimumCommitment: d('50') }, null, [5000n, 0n, 1000n, 6000n, 0n, 6000n]],
    ['proration lines do not count toward it', { lines: [line('Upgrade', '30', 'PRORATION')], minimumCommitment: d('10') }, 1000n, [4000n, 0n, 800n, 4800n, 0n, 4800n]],
  ])('%s', (_name, overrides, shortfallMinor, expected) => {
    const input = { ...base, ...overrides };
    const invoice = assembleInvoice(input);
    const commitment = invoice.lines.find((l) => l.category === 'COMMITMENT');
    expect(commitment ? [commitment.name, commitment.amountMinor] : null).toEqual(shortfallMinor === null ? null : ['Minimum commitment', shortfallMinor]);
    expect(totals(input)).toEqual(expected);
  });
});

describe('lines and breakdown', () => {
  it('keeps per-line discount, taxable amount and tax', () => {
    const invoice = assembleInvoice({ ...base, lines: [line('A', '100'), line('B', '50')], coupons: [pct('c', '10')] });
    expect(invoice.lines.map((l) => [l.lineNo, l.amountMinor, l.discountMinor, l.taxableMinor, l.taxMinor, l.totalMinor])).toEqual([
      [1, 10000n, 1000n, 9000n, 1800n, 10800n],
      [2, 5000n, 500n, 4500n, 900n, 5400n],
    ]);
  });

  it('uses a line tax override and breaks tax down per rate', () => {
    const invoice = assembleInvoice({ ...base, lines: [line('Pro', '49.00'), line('Training', '10.00', 'ONE_TIME', exempt), line('Seats', '3.33')] });
    expect(invoice.taxBreakdown.map((r) => [r.treatment, r.rate.toString(), r.taxableMinor, r.taxMinor])).toEqual([
      ['STANDARD', '0.2', 5233n, 1047n], // 980 + 67 (66.6 rounds up)
      ['EXEMPT', '0', 1000n, 0n],
    ]);
    expect(invoice.taxMinor).toBe(1047n);
  });

  it('a net credit invoice owes nothing and carries the credit forward', () => {
    const invoice = assembleInvoice({ ...base, lines: [line('Unused time', '-30', 'PRORATION'), line('Remaining time', '10', 'PRORATION')] });
    expect([invoice.totalMinor, invoice.amountDueMinor, invoice.creditCarriedForwardMinor]).toEqual([-2400n, 0n, 2400n]);
  });

  it('reports coupons that did not apply', () => {
    const invoice = assembleInvoice({ ...base, lines: [line('Pro', '10')], coupons: [{ couponId: 'usd', kind: 'FIXED', amountMinor: 500n, currency: 'USD' }] });
    expect([invoice.discountMinor, invoice.skippedCoupons]).toEqual([0n, [{ couponId: 'usd', reason: 'CURRENCY_MISMATCH' }]]);
  });
});
