import { describe, expect, it } from 'vitest';
import { countryName, datesText, inclusivePeriod, partyLines } from '../../../src/modules/invoices/documents.js';

describe('dates on the PDF', () => {
  it.each([
    ['2026-10-24', '2026-11-24', '2026-10-24 to 2026-11-23'], // a monthly period, end exclusive in the API
    ['2026-02-01', '2026-03-01', '2026-02-01 to 2026-02-28'],
    ['2024-02-01', '2024-03-01', '2024-02-01 to 2024-02-29'],
    ['2026-10-24', '2026-10-25', '2026-10-24'], // one day
    ['2026-10-24', '2026-10-24', '2026-10-24'], // an empty period (a final invoice at the stop date)
  ])('[%s, %s) reads %s', (start, end, text) => expect(inclusivePeriod(start, end)).toBe(text));

  it('prints a single day once', () => {
    expect(datesText('2026-03-01', '2026-03-01')).toBe('2026-03-01');
    expect(datesText('2026-03-01', '2026-03-31')).toBe('2026-03-01 to 2026-03-31');
  });
});

describe('partyLines', () => {
  it('prints name, address, country name and the numbers that are set, nothing blank', () => {
    expect(partyLines({
      legal_name: 'Tally SAS', vat_number: 'FR83404833048', tax_number: null, registration_number: 'SIREN 404 833 048',
      address: { line1: '8 avenue des Ternes', line2: '', city: 'Paris', zip_code: '75017', state: null, country: 'FR' },
    })).toEqual(['Tally SAS', '8 avenue des Ternes', '75017 Paris', 'France', 'VAT number: FR83404833048', 'Registration number: SIREN 404 833 048']);
    expect(partyLines({ name: 'Solo', billing_address: null })).toEqual(['Solo']);
    expect(countryName('XK')).toBe('Kosovo');
    expect(countryName('ZZ')).toBe('ZZ');
    expect(countryName('QQ')).toBe('QQ');
  });
});
