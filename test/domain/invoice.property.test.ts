import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal, sumMinor, toMinor } from '../../src/kernel/money.js';
import type { Coupon } from '../../src/domain/discounts.js';
import { assembleInvoice, type InvoiceInput, type LineCategory } from '../../src/domain/invoice.js';

const categories: LineCategory[] = ['RECURRING', 'USAGE', 'ONE_TIME'];

const lineArb = fc.record({
  // up to 4 decimals, as usage × unit price often produces
  tenThousandths: fc.bigInt({ min: 0n, max: 10n ** 10n }),
  category: fc.constantFrom(...categories),
  exempt: fc.boolean(),
});
const couponArb: fc.Arbitrary<Coupon> = fc.oneof(
  fc.integer({ min: 1, max: 10000 }).map((bp) => ({ couponId: `p${bp}`, kind: 'PERCENTAGE' as const, percent: decimal(BigInt(bp)).div(100) })),
  fc.record({ amountMinor: fc.bigInt({ min: 1n, max: 10n ** 6n }), currency: fc.constantFrom('EUR', 'USD') }).map(({ amountMinor, currency }) => ({
    couponId: `f${amountMinor}${currency}`,
    kind: 'FIXED' as const,
    amountMinor,
    currency,
  })),
);
const inputArb: fc.Arbitrary<InvoiceInput> = fc
  .record({
    lines: fc.array(lineArb, { maxLength: 8 }),
    coupons: fc.array(couponArb, { maxLength: 3 }),
    rateBasisPoints: fc.integer({ min: 0, max: 3000 }),
    taxInclusive: fc.boolean(),
    commitmentMinor: fc.option(fc.bigInt({ min: 0n, max: 10n ** 6n })),
    balanceMinor: fc.bigInt({ min: -(10n ** 6n), max: 10n ** 7n }),
  })
  .map(({ lines, coupons, rateBasisPoints, taxInclusive, commitmentMinor, balanceMinor }) => ({
    currency: 'EUR',
    taxInclusive,
    lines: lines.map((l, index) => ({
      name: `line ${index}`,
      category: l.category,
      amount: decimal(l.tenThousandths).div(10000),
      tax: l.exempt ? { treatment: 'EXEMPT' as const, rate: decimal('0'), country: null } : null,
    })),
    coupons,
    minimumCommitment: commitmentMinor === null ? null : decimal(commitmentMinor).div(100),
    tax: { treatment: 'STANDARD', rate: decimal(BigInt(rateBasisPoints)).div(10000), country: 'FR' },
    customerBalanceMinor: balanceMinor,
  }));

describe('invoice identities (property based)', () => {
  it('totals add up, nothing is negative, amount due is what is left after the balance', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const invoice = assembleInvoice(input);
        const { lines } = invoice;
        expect(invoice.subtotalMinor).toBe(sumMinor(lines.map((l) => l.amountMinor)));
        expect(invoice.discountMinor).toBe(sumMinor(lines.map((l) => l.discountMinor)));
        expect(invoice.taxMinor).toBe(sumMinor(lines.map((l) => l.taxMinor)));
        expect(invoice.taxMinor).toBe(sumMinor(invoice.taxBreakdown.map((r) => r.taxMinor)));
        expect(sumMinor(invoice.taxBreakdown.map((r) => r.taxableMinor))).toBe(sumMinor(lines.map((l) => l.taxableMinor)));
        expect(invoice.totalMinor).toBe(invoice.subtotalMinor - invoice.discountMinor + invoice.taxMinor);
        expect(invoice.totalMinor).toBe(sumMinor(lines.map((l) => l.totalMinor)));
        for (const l of lines) {
          expect(l.taxableMinor).toBe(l.amountMinor - l.discountMinor);
          expect(l.taxableMinor).toBeGreaterThanOrEqual(0n);
          expect(l.discountMinor).toBeGreaterThanOrEqual(0n);
          expect(l.taxMinor).toBeGreaterThanOrEqual(0n);
        }
        expect(invoice.totalMinor).toBeGreaterThanOrEqual(0n);
        expect(invoice.balanceAppliedMinor).toBeGreaterThanOrEqual(0n);
        expect(invoice.balanceAppliedMinor).toBeLessThanOrEqual(invoice.totalMinor);
        expect(invoice.amountDueMinor).toBe(invoice.totalMinor - invoice.balanceAppliedMinor);
        expect(invoice.amountDueMinor).toBeGreaterThanOrEqual(0n);
        expect(invoice.creditCarriedForwardMinor).toBe(0n);
      }),
    );
  });

  it('each line is rounded exactly once from its priced amount', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const invoice = assembleInvoice({ ...input, taxInclusive: false });
        input.lines.forEach((l, index) => {
          expect(invoice.lines[index]?.amountMinor).toBe(toMinor(l.amount, 'EUR'));
        });
      }),
    );
  });

  it('tax-inclusive: the customer pays the quoted prices less the coupons, whatever the rate', () => {
    fc.assert(
      fc.property(inputArb, (generated) => {
        const input = { ...generated, taxInclusive: true, minimumCommitment: null };
        const invoice = assembleInvoice(input);
        const quotedMinor = sumMinor(input.lines.map((l) => toMinor(l.amount, 'EUR')));
        const couponsMinor = sumMinor(invoice.couponApplications.map((c) => c.discountMinor));
        expect(invoice.totalMinor).toBe(quotedMinor - couponsMinor);
      }),
    );
  });

  it('the billing-period lines after discount never fall below the commitment', () => {
    fc.assert(
      fc.property(inputArb, (generated) => {
        const input = { ...generated, taxInclusive: false };
        if (input.minimumCommitment == null) return;
        const invoice = assembleInvoice(input);
        const periodNetMinor = sumMinor(
          invoice.lines.filter((l) => ['RECURRING', 'USAGE', 'COMMITMENT'].includes(l.category)).map((l) => l.taxableMinor),
        );
        expect(periodNetMinor).toBeGreaterThanOrEqual(toMinor(input.minimumCommitment, 'EUR'));
      }),
    );
  });
});
