// The e-invoice adapter without a database: a document written in each syntax reads back to the
// same model, and the rule table catches what a broken document gets wrong.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dec } from '../../src/kernel/money.js';
import {
  ALL_RULES, generateEInvoice, parseEInvoice, validateEInvoice, E_INVOICE_FORMATS, PEPPOL_BIS_3_0, SYNTAXES, XRECHNUNG_3_0, type EInvoiceDocument,
} from '../../src/adapters/einvoice/index.js';

function document(overrides: Partial<EInvoiceDocument> = {}): EInvoiceDocument {
  return {
    customizationId: null, profileId: null, typeCode: '380', number: 'INV-0001', issueDate: '2026-03-01', dueDate: '2026-03-31', currency: 'EUR',
    buyerReference: 'PO-1', purchaseOrder: 'PO-1', precedingInvoice: null, notes: ['Thanks & goodbye <3'], periodStart: '2026-03-01', periodEnd: '2026-03-31',
    seller: { name: 'Tally SAS', vatId: 'FR83404833048', taxRegistrationId: null, legalRegistrationId: '404833048', address: { line1: '8 av.', line2: null, city: 'Paris', postcode: '75017', subdivision: null, country: 'FR' },
      electronicAddress: { scheme: '0088', value: '4035811991021' }, contact: { name: 'Accounts receivable', phone: '+33 1 23 45 67 89', email: 'billing@tally.example' } },
    buyer: { name: 'Acme GmbH', vatId: 'DE123456789', taxRegistrationId: null, legalRegistrationId: null, address: { line1: 'Hauptstr. 1', line2: null, city: 'Berlin', postcode: '10115', subdivision: null, country: 'DE' }, electronicAddress: { scheme: 'EM', value: 'ap@acme.example' }, contact: null },
    payment: { meansCode: '58', iban: 'FR7630006000011234567890189', accountNumber: null, accountName: 'Tally SAS', bic: 'AGRIFRPP', remittance: 'RF18' },
    paymentTerms: 'Net 30 days',
    lines: [
      { id: '1', name: 'Platform', quantity: '1', unitCode: 'C62', netPrice: '100.00', allowance: '10.00', netAmount: '90.00', category: 'S', rate: '20', periodStart: '2026-03-01', periodEnd: '2026-03-31' },
      { id: '2', name: 'Books', quantity: '2', unitCode: 'C62', netPrice: '5.00', allowance: null, netAmount: '10.00', category: 'S', rate: '5.5', periodStart: null, periodEnd: null },
    ],
    vat: [
      { category: 'S', rate: '20', taxableAmount: '90.00', taxAmount: '18.00', exemptionReason: null, exemptionCode: null },
      { category: 'S', rate: '5.5', taxableAmount: '10.00', taxAmount: '0.55', exemptionReason: null, exemptionCode: null },
    ],
    totals: { lineNet: '100.00', allowances: '0.00', charges: '0.00', taxExclusive: '100.00', tax: '18.55', taxInclusive: '118.55', prepaid: '10.00', rounding: '0.00', payable: '108.55' },
    ...overrides,
  };
}

describe('e-invoice round trip', () => {
  for (const format of E_INVOICE_FORMATS) {
    for (const typeCode of ['380', '381'] as const) {
      it(`${format} ${typeCode}: writes, reads back the same document, and passes the rules`, async () => {
        const doc = document({ typeCode, ...(typeCode === '381' ? { precedingInvoice: { number: 'INV-0000', issueDate: '2026-02-01' } } : {}) });
        const { xml, failures } = await generateEInvoice(format, doc);
        expect(failures).toEqual([]);
        const read = await parseEInvoice(xml);
        expect(read).toEqual({ ...doc, customizationId: SYNTAXES[format].customizationId, profileId: SYNTAXES[format].profileId });
      });
    }
  }
});

describe('EN 16931 rules', () => {
  const rulesOf = (doc: EInvoiceDocument) => validateEInvoice(doc).map((failure) => failure.rule);

  it('catches totals that do not add up (BR-CO-10, 13, 14, 15, 16) and a tax that is not taxable × rate (BR-CO-17)', () => {
    const broken = document({
      totals: { lineNet: '100.01', allowances: '0.00', charges: '0.00', taxExclusive: '99.00', tax: '18.00', taxInclusive: '118.55', prepaid: '0.00', rounding: '0.00', payable: '1.00' },
      vat: [
        { category: 'S', rate: '20', taxableAmount: '90.00', taxAmount: '25.00', exemptionReason: null, exemptionCode: null },
        { category: 'S', rate: '5.5', taxableAmount: '10.00', taxAmount: '0.55', exemptionReason: null, exemptionCode: null },
      ],
    });
    expect(rulesOf({ ...broken, customizationId: 'x' })).toEqual(['BR-CO-10', 'BR-CO-13', 'BR-CO-14', 'BR-CO-15', 'BR-CO-16', 'BR-CO-17']);
  });

  it('checks BR-CO-17 as the CEN schematron does: within one currency unit of taxable × rate rounded to the minor unit (the yen for JPY, the fils for KWD)', () => {
    // one rate, 10.00 at 5.5 %: 0.55; per-line rounding may drift a few cents, one unit more is wrong
    const taxOfRate = (taxAmount: string) => document({
      customizationId: 'urn:cen.eu:en16931:2017',
      vat: [document().vat[0]!, { ...document().vat[1]!, taxAmount }],
      totals: { ...document().totals, tax: new Dec('18.00').plus(taxAmount).toFixed(2), taxInclusive: new Dec('118.00').plus(taxAmount).toFixed(2), payable: new Dec('108.00').plus(taxAmount).toFixed(2) },
    });
    expect(validateEInvoice(taxOfRate('0.58'))).toEqual([]);
    expect(validateEInvoice(taxOfRate('1.55'))).toEqual([]);
    expect(validateEInvoice(taxOfRate('1.56'))).toEqual([{ rule: 'BR-CO-17', message: '[BR-CO-17] VAT breakdown S 5.5%: tax amount (BT-117) 1.56 is not 10.00 × 5.5% = 0.55' }]);
    // half a cent rounds up: 0.10 × 5.5 % = 0.0055 -> 0.01, as the message of a failure shows
    const halfCent = (taxAmount: string) => document({
      customizationId: 'urn:cen.eu:en16931:2017',
      lines: [{ ...document().lines[1]!, quantity: '1', netPrice: '0.10', netAmount: '0.10' }],
      vat: [{ ...document().vat[1]!, taxableAmount: '0.10', taxAmount }],
      totals: { lineNet: '0.10', allowances: '0.00', charges: '0.00', taxExclusive: '0.10', tax: taxAmount, taxInclusive: new Dec('0.10').plus(taxAmount).toFixed(2), prepaid: '0.00', rounding: '0.00', payable: new Dec('0.10').plus(taxAmount).toFixed(2) },
    });
    expect(validateEInvoice(halfCent('0.01'))).toEqual([]);
    expect(validateEInvoice(halfCent('1.02'))).toEqual([{ rule: 'BR-CO-17', message: '[BR-CO-17] VAT breakdown S 5.5%: tax amount (BT-117) 1.02 is not 0.10 × 5.5% = 0.01' }]);
    // JPY has no cents: 2233 × 20 % = 446.6 is 447 yen; 446 is within one yen, 445 is not
    const yen = (taxAmount: string) => document({
      customizationId: 'urn:cen.eu:en16931:2017',
      currency: 'JPY',
      lines: [{ ...document().lines[1]!, quantity: '1', netPrice: '2233', netAmount: '2233', rate: '20' }],
      vat: [{ ...document().vat[0]!, taxableAmount: '2233', taxAmount }],
      totals: { lineNet: '2233', allowances: '0', charges: '0', taxExclusive: '2233', tax: taxAmount, taxInclusive: new Dec('2233').plus(taxAmount).toFixed(0), prepaid: '0', rounding: '0', payable: new Dec('2233').plus(taxAmount).toFixed(0) },
    });
    expect(validateEInvoice(yen('447'))).toEqual([]);
    expect(validateEInvoice(yen('446'))).toEqual([]);
    expect(validateEInvoice(yen('445'))).toEqual([{ rule: 'BR-CO-17', message: '[BR-CO-17] VAT breakdown S 20%: tax amount (BT-117) 445 is not 2233 × 20% = 447' }]);
    // KWD has three decimals: BR-DEC says so, and BR-CO-17 checks the tax to the fils (no second failure)
    const dinar = document({
      customizationId: 'urn:cen.eu:en16931:2017',
      currency: 'KWD',
      lines: [{ ...document().lines[1]!, quantity: '1', netPrice: '10.125', netAmount: '10.125', rate: '20' }],
      vat: [{ ...document().vat[0]!, taxableAmount: '10.125', taxAmount: '2.025' }],
      totals: { lineNet: '10.125', allowances: '0.000', charges: '0.000', taxExclusive: '10.125', tax: '2.025', taxInclusive: '12.150', prepaid: '0.000', rounding: '0.000', payable: '12.150' },
    });
    expect([...new Set(validateEInvoice(dinar).map((failure) => failure.rule))]).toEqual(['BR-DEC']);
  });

  it('checks each VAT category: reverse charge needs both VAT numbers, O mixes with nothing, exempt needs a reason', () => {
    const ae = document({
      buyer: { ...document().buyer, vatId: null },
      lines: [{ ...document().lines[0]!, category: 'AE', rate: '0' }],
      vat: [{ category: 'AE', rate: '0', taxableAmount: '90.00', taxAmount: '0.00', exemptionReason: null, exemptionCode: null }],
      totals: { lineNet: '90.00', allowances: '0.00', charges: '0.00', taxExclusive: '90.00', tax: '0.00', taxInclusive: '90.00', prepaid: '0.00', rounding: '0.00', payable: '90.00' },
      customizationId: 'x',
    });
    expect(rulesOf(ae)).toEqual(['BR-AE-10', 'BR-AE-02']);
    const mixed = document({
      customizationId: 'x', seller: { ...document().seller, vatId: null }, buyer: { ...document().buyer, vatId: null },
      lines: [document().lines[0]!, { ...document().lines[1]!, category: 'O', rate: null }],
      vat: [document().vat[0]!, { category: 'O', rate: null, taxableAmount: '10.00', taxAmount: '0.00', exemptionReason: 'Not subject to VAT', exemptionCode: 'VATEX-EU-O' }],
      totals: { ...document().totals, tax: '18.00', taxInclusive: '118.00', payable: '108.00' },
    });
    expect(rulesOf(mixed)).toEqual(['BR-S-02', 'BR-O-11']);
  });

  it('refuses more than two decimals (BR-DEC), a negative price (BR-27), a credit note without its invoice (BR-55)', () => {
    const doc = document({ customizationId: 'x', typeCode: '381', lines: [{ ...document().lines[0]!, netPrice: '-1' }, document().lines[1]!] });
    expect(rulesOf(doc)).toEqual(['BR-27', 'BR-55']);
    expect(rulesOf(document({ customizationId: 'x', totals: { ...document().totals, prepaid: '10.000' } }))).toEqual(['BR-DEC']);
  });
});

describe('CIUS rules (XRechnung BR-DE, Peppol PEPPOL-EN16931)', () => {
  const rulesOf = (doc: EInvoiceDocument) => validateEInvoice(doc).map((failure) => failure.rule);
  const seller = document().seller;
  const buyer = document().buyer;

  it('XRechnung: payment instructions, seller and buyer city and post code, buyer reference (BR-DE-1, 4, 8, 15)', () => {
    const doc = document({
      customizationId: XRECHNUNG_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0', payment: null, buyerReference: null,
      seller: { ...seller, address: { ...seller.address!, postcode: null } }, buyer: { ...buyer, address: { ...buyer.address!, city: null } },
    });
    expect(rulesOf(doc)).toEqual(['BR-DE-1', 'BR-DE-4', 'BR-DE-8', 'BR-DE-15']);
    expect(validateEInvoice(doc)[0]!.message).toBe('[BR-DE-1] XRechnung needs payment instructions (BG-16): set bank_details (an IBAN) on the invoicing entity');
    // the same faults in a document that claims no CIUS break no EN 16931 rule
    expect(rulesOf({ ...doc, customizationId: 'urn:cen.eu:en16931:2017' })).toEqual([]);
  });

  it('XRechnung: a credit transfer without its account (BR-DE-23-a), another version (BR-DE-21), a seller without a VAT id (BR-DE-16 beside BR-S-02)', () => {
    const payment = { ...document().payment!, iban: null, accountNumber: null };
    expect(rulesOf(document({ customizationId: XRECHNUNG_3_0, payment }))).toEqual(['BR-DE-23-a']);
    expect(rulesOf(document({ customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_2.3' }))).toEqual(['BR-DE-21']);
    expect(rulesOf(document({ customizationId: XRECHNUNG_3_0, seller: { ...seller, vatId: null } }))).toEqual(['BR-S-02', 'BR-DE-16']);
  });

  it('XRechnung: the seller contact group and its point, telephone and e-mail (BR-DE-2, 5, 6, 7), in both syntaxes', async () => {
    const noContact = document({ customizationId: XRECHNUNG_3_0, seller: { ...seller, contact: null } });
    expect(rulesOf(noContact)).toEqual(['BR-DE-2', 'BR-DE-5', 'BR-DE-6', 'BR-DE-7']);
    expect(validateEInvoice(noContact)[2]!.message).toBe("[BR-DE-6] the seller contact telephone (BT-42) is missing: set contact_phone on the invoicing entity, e.g. '+49 30 1234567'");
    // a contact with only a name is written and read back as such, in UBL and in CII
    const nameOnly = document({ customizationId: XRECHNUNG_3_0, seller: { ...seller, contact: { name: 'Accounts receivable', phone: null, email: null } } });
    for (const format of ['XRECHNUNG_UBL', 'XRECHNUNG_CII'] as const) {
      expect((await generateEInvoice(format, nameOnly)).failures.map((failure) => failure.rule)).toEqual(['BR-DE-6', 'BR-DE-7']);
      expect((await parseEInvoice((await generateEInvoice(format, nameOnly)).xml)).seller.contact).toEqual({ name: 'Accounts receivable', phone: null, email: null });
    }
    // Peppol and Factur-X do not ask for a contact
    expect(rulesOf({ ...noContact, customizationId: PEPPOL_BIS_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' })).toEqual([]);
  });

  it('Peppol: the seller electronic address (R020), XRechnung does not check it', () => {
    const doc = document({ customizationId: PEPPOL_BIS_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0', seller: { ...seller, electronicAddress: null } });
    expect(rulesOf(doc)).toEqual(['PEPPOL-EN16931-R020']);
    expect(validateEInvoice(doc)[0]!.message).toContain('set peppol_endpoint_scheme and peppol_endpoint_id on the invoicing entity');
    expect(rulesOf({ ...doc, customizationId: XRECHNUNG_3_0 })).toEqual([]);
  });

  it('Peppol: one note, a buyer or order reference, the buyer endpoint, line periods inside the invoice period, line amounts (R002, R003, R010, R110, R111, R120)', () => {
    const [first, second] = document().lines;
    const doc = document({
      customizationId: PEPPOL_BIS_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
      notes: ['one', 'two'], buyerReference: null, purchaseOrder: null, buyer: { ...buyer, electronicAddress: null },
      lines: [{ ...first!, periodStart: '2026-02-15', periodEnd: '2026-04-02' }, { ...second!, netPrice: '5.10' }],
    });
    expect(rulesOf(doc)).toEqual(['PEPPOL-EN16931-R002', 'PEPPOL-EN16931-R003', 'PEPPOL-EN16931-R010', 'PEPPOL-EN16931-R110', 'PEPPOL-EN16931-R111', 'PEPPOL-EN16931-R120']);
    expect(validateEInvoice(doc).at(-1)!.message).toBe('[PEPPOL-EN16931-R120] line 2: net amount 10.00 is not 2 × 5.10 − 0 = 10.2');
    // a line amount within Peppol's 0.02 slack passes
    expect(rulesOf(document({ customizationId: PEPPOL_BIS_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0', lines: [first!, { ...second!, netPrice: '5.01' }] }))).toEqual([]);
  });

  it('Peppol: the business process is given and well formed (R001, R007), the specification identifier is BIS 3.0 (R004)', () => {
    expect(rulesOf(document({ customizationId: PEPPOL_BIS_3_0, profileId: null }))).toEqual(['PEPPOL-EN16931-R001']);
    expect(rulesOf(document({ customizationId: PEPPOL_BIS_3_0, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:1.0' }))).toEqual(['PEPPOL-EN16931-R007']);
    expect(rulesOf(document({ customizationId: `${PEPPOL_BIS_3_0}#extension`, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' }))).toEqual(['PEPPOL-EN16931-R004']);
  });

  it('lists every rule it checks in the rule table of docs/einvoicing.md', () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'einvoicing.md'), 'utf8');
    expect(ALL_RULES.map((rule) => rule.id).filter((id) => !docs.includes(`| ${id} |`))).toEqual([]);
  });
});
