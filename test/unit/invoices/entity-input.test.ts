import { describe, expect, it } from 'vitest';
import { entityChanges, MAX_LOGO_BYTES, validIban } from '../../../src/modules/invoices/entity-input.js';
import { dataUrl, discPng } from '../../harness/png.js';

describe('validIban', () => {
  it.each([
    ['FR7630006000011234567890189', true],
    ['DE89370400440532013000', true],
    ['GB29NWBK60161331926819', true],
    ['FR7630006000011234567890188', false], // one digit off: the checksum fails
    ['FR76', false],
    ['fr7630006000011234567890189', false], // normalised to upper case before this check
  ])('%s is %s', (iban, valid) => expect(validIban(iban)).toBe(valid));
});

describe('entityChanges', () => {
  it('trims texts, stores blanks as null and normalises bank details', async () => {
    expect(await entityChanges({ legal_name: '  ACME  ', city: '   ', vat_number: ' FR1 ', bank_details: { iban: 'de89 3704 0044 0532 0130 00', bic: ' cobadeffxxx ' } })).toEqual({
      legal_name: 'ACME',
      city: null,
      vat_number: 'FR1',
      bank_details: { account_holder: null, bank_name: null, iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', account_number: null, routing_number: null },
    });
  });

  it('decodes a logo data URL and hashes it; refuses what is not a small PNG or JPEG', async () => {
    const png = discPng(10, [1, 2, 3]);
    const { logo } = await entityChanges({ logo: dataUrl(png) });
    expect(logo).toEqual({ content: png, contentType: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await entityChanges({ logo: null })).toEqual({ logo: null });
    await expect(entityChanges({ logo: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' })).rejects.toThrow(/logo must be a data URL of a PNG or JPEG image/);
    await expect(entityChanges({ logo: 'data:image/png;base64,####' })).rejects.toThrow(/logo must be a data URL/);
    await expect(entityChanges({ logo: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ==x' })).rejects.toThrow(/logo must be a data URL/);
    const big = Buffer.concat([png, Buffer.alloc(MAX_LOGO_BYTES)]);
    await expect(entityChanges({ logo: dataUrl(big) })).rejects.toThrow(/at most 256 KiB/);
  });

  it('names the field and gives an example in each refusal', async () => {
    await expect(entityChanges({ country: 'fr' })).rejects.toThrow("country must be an ISO 3166-1 alpha-2 code in upper case, e.g. 'FR'; got 'fr'");
    await expect(entityChanges({ bank_details: { bic: 'AGRIFRPP' } })).rejects.toThrow(/bank_details needs an iban or an account_number, e\.g\./);
    await expect(entityChanges({ net_terms: 1.5 })).rejects.toThrow(/net_terms must be an integer between 0 and 365 \(days\), e\.g\. 30/);
  });
});
