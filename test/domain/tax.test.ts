import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal } from '../../src/kernel/money.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import { resolveTax, taxBreakdown, taxLine, type TaxCustomer } from '../../src/domain/tax.js';

const d = decimal;
const standardRates = { FR: d('0.2'), DE: d('0.19'), IE: d('0.23') };

describe('resolveTax', () => {
  it.each<[string, string, TaxCustomer, string, string, string | null]>([
    ['exempt customer', 'FR', { country: 'FR', taxExempt: true }, 'EXEMPT', '0', null],
    ['custom rate wins over the country rate', 'FR', { country: 'FR', customTaxRate: d('0.055') }, 'CUSTOM', '0.055', 'FR'],
    ['domestic consumer', 'FR', { country: 'FR' }, 'STANDARD', '0.2', 'FR'],
    ['domestic business still pays domestic VAT', 'FR', { country: 'FR', vatNumber: 'FR40303265045' }, 'STANDARD', '0.2', 'FR'],
    ['EU business in another country: reverse charge', 'FR', { country: 'DE', vatNumber: 'DE123456789' }, 'REVERSE_CHARGE', '0', null],
    ['EU consumer in another country: destination rate', 'FR', { country: 'DE' }, 'STANDARD', '0.19', 'DE'],
    ['blank VAT number counts as a consumer', 'FR', { country: 'IE', vatNumber: '  ' }, 'STANDARD', '0.23', 'IE'],
    ['customer flagged reverse charge, even domestic', 'FR', { country: 'FR', reverseCharge: true }, 'REVERSE_CHARGE', '0', null],
    ['export outside the EU', 'FR', { country: 'US' }, 'EXPORT', '0', null],
    ['export to a non-EU business', 'FR', { country: 'CH', vatNumber: 'CHE-123.456.789' }, 'EXPORT', '0', null],
    ['unknown customer country: seller rate', 'FR', { country: null }, 'STANDARD', '0.2', 'FR'],
    ['no rate configured for the country', 'US', { country: 'US' }, 'NO_TAX', '0', null],
    ['EU consumer in a country without configured rate', 'FR', { country: 'PL' }, 'NO_TAX', '0', null],
  ])('%s', (_name, entityCountry, customer, treatment, rate, country) => {
    const decision = resolveTax({ entityCountry, customer, standardRates });
    expect([decision.treatment, decision.rate.toString(), decision.country]).toEqual([treatment, rate, country]);
  });

  it('refuses a rate that is not a fraction', () => {
    expect(() => resolveTax({ entityCountry: 'FR', customer: { country: 'FR', customTaxRate: d('20') }, standardRates })).toThrow(BillingRuleError);
  });
});

describe('taxLine', () => {
  it.each<[string, bigint, string, boolean, string, bigint, bigint]>([
    ['exclusive 20 %', 10000n, '0.2', false, 'EUR', 10000n, 2000n],
    ['exclusive rounds half away (66.6 -> 67)', 333n, '0.2', false, 'EUR', 333n, 67n],
    ['exclusive half cent goes up', 5n, '0.1', false, 'EUR', 5n, 1n],
    ['exclusive credit mirrors a charge', -333n, '0.2', false, 'EUR', -333n, -67n],
    ['exclusive 0 %', 4900n, '0', false, 'EUR', 4900n, 0n],
    ['inclusive 120.00 at 20 % carves 20.00', 12000n, '0.2', true, 'EUR', 10000n, 2000n],
    ['inclusive 49.00 at 20 % (8.1666.. -> 8.17)', 4900n, '0.2', true, 'EUR', 4083n, 817n],
    ['inclusive at 0 %: the customer pays the quoted price, all net', 4900n, '0', true, 'EUR', 4900n, 0n],
    ['inclusive JPY 100 at 10 % (9.09 -> 9)', 100n, '0.1', true, 'JPY', 91n, 9n],
    ['inclusive KWD 1.000 at 5 % (0.047619 -> 0.048)', 1000n, '0.05', true, 'KWD', 952n, 48n],
  ])('%s', (_name, amountMinor, rate, inclusive, currency, netMinor, taxMinor) => {
    expect(taxLine(amountMinor, d(rate), inclusive, currency)).toEqual({ netMinor, taxMinor });
  });

  it('inclusive net + tax is always exactly the quoted amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 10n), max: 10n ** 10n }), fc.integer({ min: 0, max: 9999 }), (amountMinor, basisPoints) => {
        const { netMinor, taxMinor } = taxLine(amountMinor, d(BigInt(basisPoints)).div(10000), true, 'EUR');
        expect(netMinor + taxMinor).toBe(amountMinor);
      }),
    );
  });
});

describe('taxBreakdown', () => {
  it('groups by treatment and rate and sums exactly', () => {
    const fr = { treatment: 'STANDARD' as const, rate: d('0.20'), country: 'FR' };
    const rc = { treatment: 'REVERSE_CHARGE' as const, rate: d('0'), country: null };
    const rows = taxBreakdown([
      { tax: fr, netMinor: 1000n, taxMinor: 200n },
      { tax: rc, netMinor: 500n, taxMinor: 0n },
      { tax: { ...fr, rate: d('0.2') }, netMinor: 333n, taxMinor: 67n },
    ]);
    expect(rows.map((row) => [row.treatment, row.rate.toString(), row.taxableMinor, row.taxMinor])).toEqual([
      ['STANDARD', '0.2', 1333n, 267n],
      ['REVERSE_CHARGE', '0', 500n, 0n],
    ]);
  });
});
