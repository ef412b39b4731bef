import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal } from '../../src/kernel/money.js';
import { computeCreditNote, type CreditableLine, type CreditNoteDraft } from '../../src/domain/credit-notes.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import { assembleInvoice } from '../../src/domain/invoice.js';
import type { TaxDecision } from '../../src/domain/tax.js';

const vat20: TaxDecision = { treatment: 'STANDARD', rate: decimal('0.2'), country: 'FR' };
const exempt: TaxDecision = { treatment: 'EXEMPT', rate: decimal('0'), country: null };
const fresh = (lineId: string, taxableMinor: bigint, taxMinor: bigint, tax = vat20): CreditableLine => ({
  lineId,
  name: `Line ${lineId}`,
  taxableMinor,
  taxMinor,
  tax,
  creditedTaxableMinor: 0n,
  creditedTaxMinor: 0n,
});
const invoiceLines = [fresh('1', 10000n, 2000n), fresh('2', 3333n, 667n), fresh('3', 500n, 0n, exempt)];

/** Applies a credit note to the lines, as the repository would record it. */
const record = (lines: readonly CreditableLine[], note: CreditNoteDraft): CreditableLine[] =>
  lines.map((line) => {
    const credited = note.lines.find((c) => c.lineId === line.lineId);
    return credited === undefined
      ? line
      : { ...line, creditedTaxableMinor: line.creditedTaxableMinor + credited.taxableMinor, creditedTaxMinor: line.creditedTaxMinor + credited.taxMinor };
  });

describe('computeCreditNote', () => {
  it('credits a whole invoice exactly, with a breakdown per rate', () => {
    const note = computeCreditNote(invoiceLines, { scope: 'INVOICE' }, 'EUR');
    expect([note.subtotalMinor, note.taxMinor, note.totalMinor]).toEqual([13833n, 2667n, 16500n]);
    expect(note.taxBreakdown.map((r) => [r.treatment, r.taxableMinor, r.taxMinor])).toEqual([
      ['STANDARD', 13333n, 2667n],
      ['EXEMPT', 500n, 0n],
    ]);
  });

  it.each<[string, bigint[], bigint[]]>([
    ['part then the rest (200.12 -> 200, then exactly 467)', [1000n, 2333n], [200n, 467n]],
    ['three thirds (222.33 -> 222, 222.5 -> 223, remainder 222)', [1111n, 1111n, 1111n], [222n, 223n, 222n]],
    ['one unit at a time keeps the total exact', [1n, 1n, 3331n], [0n, 0n, 667n]],
  ])('successive partial credits of a line: %s', (_name, amounts, expectedTaxes) => {
    let lines = invoiceLines;
    const taxes: bigint[] = [];
    for (const amountMinor of amounts) {
      const note = computeCreditNote(lines, { scope: 'LINES', lines: [{ lineId: '2', amountMinor }] }, 'EUR');
      taxes.push(note.taxMinor);
      lines = record(lines, note);
    }
    expect(taxes).toEqual(expectedTaxes);
  });

  it('after a partial credit, crediting the invoice takes only what remains', () => {
    const first = computeCreditNote(invoiceLines, { scope: 'LINES', lines: [{ lineId: '1', amountMinor: 4000n }] }, 'EUR');
    const rest = computeCreditNote(record(invoiceLines, first), { scope: 'INVOICE' }, 'EUR');
    expect([first.totalMinor, rest.totalMinor, first.totalMinor + rest.totalMinor]).toEqual([4800n, 11700n, 16500n]);
  });

  it.each<[string, { lineId: string; amountMinor: bigint }[], string]>([
    ['beyond the line', [{ lineId: '1', amountMinor: 10001n }], 'CREDIT_EXCEEDS_REMAINING'],
    ['unknown line', [{ lineId: '9', amountMinor: 1n }], 'UNKNOWN_LINE'],
    ['zero amount', [{ lineId: '1', amountMinor: 0n }], 'INVALID_QUANTITY'],
    ['the same line twice', [{ lineId: '1', amountMinor: 1n }, { lineId: '1', amountMinor: 1n }], 'INVALID_QUANTITY'],
  ])('refuses a credit %s', (_name, lines, rule) => {
    expect(() => computeCreditNote(invoiceLines, { scope: 'LINES', lines }, 'EUR')).toThrow(BillingRuleError);
    try {
      computeCreditNote(invoiceLines, { scope: 'LINES', lines }, 'EUR');
    } catch (error) {
      expect((error as BillingRuleError).rule).toBe(rule);
    }
  });

  it('refuses to credit a line that is already fully credited', () => {
    const all = computeCreditNote(invoiceLines, { scope: 'INVOICE' }, 'EUR');
    const done = record(invoiceLines, all);
    expect(() => computeCreditNote(done, { scope: 'LINES', lines: [{ lineId: '1', amountMinor: 1n }] }, 'EUR')).toThrow(BillingRuleError);
    expect(computeCreditNote(done, { scope: 'INVOICE' }, 'EUR').totalMinor).toBe(0n);
  });

  it('crediting an assembled invoice in full gives back its total', () => {
    const invoice = assembleInvoice({
      currency: 'EUR',
      taxInclusive: false,
      tax: vat20,
      lines: [{ name: 'Pro', category: 'RECURRING', amount: decimal('49.99') }, { name: 'Usage', category: 'USAGE', amount: decimal('3.333') }],
      coupons: [{ couponId: 'c', kind: 'PERCENTAGE', percent: decimal('15') }],
    });
    const creditable = invoice.lines.map((l) => ({ lineId: String(l.lineNo), name: l.name, taxableMinor: l.taxableMinor, taxMinor: l.taxMinor, tax: l.tax, creditedTaxableMinor: 0n, creditedTaxMinor: 0n }));
    expect(computeCreditNote(creditable, { scope: 'INVOICE' }, 'EUR').totalMinor).toBe(invoice.totalMinor);
  });

  it('any sequence of partial credits ending in the rest credits exactly the line tax', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 8n }),
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { maxLength: 6 }),
        (taxableMinor, rateBasisPoints, shares) => {
          const taxMinor = (taxableMinor * BigInt(rateBasisPoints)) / 10000n;
          let lines = [fresh('x', taxableMinor, taxMinor)];
          let creditedTax = 0n;
          for (const share of shares) {
            const remaining = taxableMinor - (lines[0]?.creditedTaxableMinor ?? 0n);
            const amountMinor = (remaining * BigInt(share)) / 1000n;
            if (amountMinor <= 0n) continue;
            const note = computeCreditNote(lines, { scope: 'LINES', lines: [{ lineId: 'x', amountMinor }] }, 'EUR');
            expect(note.taxMinor).toBeGreaterThanOrEqual(0n);
            creditedTax += note.taxMinor;
            lines = record(lines, note);
          }
          const rest = computeCreditNote(lines, { scope: 'INVOICE' }, 'EUR');
          expect(creditedTax + rest.taxMinor).toBe(taxMinor);
          expect(rest.taxMinor).toBeGreaterThanOrEqual(0n);
        },
      ),
    );
  });
});
