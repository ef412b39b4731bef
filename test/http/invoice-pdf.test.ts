// The invoice PDF a merchant can send (issue 15), read back as text through pdf.js: the seller's
// full identity and bank details, the customer's VAT number, the tax mention that applies,
// the currency on every amount, and periods shown one way (inclusive end dates).
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { useHarness, type Harness } from '../harness/app.js';
import { pdfText } from '../harness/pdf.js';
import { dataUrl, discPng } from '../harness/png.js';
import { createCustomer, createDraft } from './invoices-support.js';

const harness = useHarness();

const LINES = [
  { name: 'Platform fee', category: 'RECURRING' as const, amount: new Dec('100'), quantity: new Dec('1'), unitPrice: new Dec('100'), periodStart: '2026-10-24', periodEnd: '2026-11-23' },
  { name: 'API calls', category: 'USAGE' as const, amount: new Dec('20.5'), quantity: new Dec('1500'), periodStart: '2026-09-24', periodEnd: '2026-10-23' },
];
const NO_TAX = (treatment: 'REVERSE_CHARGE' | 'EXEMPT') => ({ treatment, rate: new Dec(0), country: null });

async function sellerEntity(h: Harness) {
  const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
  const res = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, {
    body: {
      legal_name: 'Tally Billing SAS', country: 'FR', address_line1: '8 avenue des Ternes', address_line2: 'Bâtiment B', city: 'Paris', zip_code: '75017',
      vat_number: 'FR83404833048', registration_number: 'SIREN 404 833 048', legal_footer: 'SAS au capital de 10 000 EUR - RCS Paris 404 833 048',
      payment_instructions: 'Please quote the payment reference with your transfer.',
      bank_details: { account_holder: 'Tally Billing SAS', bank_name: 'Banque Exemple', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
      logo: dataUrl(discPng(96, [37, 99, 235])),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function pdfOf(h: Harness, invoiceId: string): Promise<{ bytes: Buffer; text: string }> {
  const res = await h.request('GET', `/api/v1/invoices/${invoiceId}/download`);
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return { bytes: res.rawPayload, text: await pdfText(res.rawPayload) };
}

describe('invoice PDF', () => {
  it('prints what a merchant must send: identities, VAT numbers, reverse charge, bank details, logo, currency on every amount, inclusive periods', async () => {
    const h = harness();
    await sellerEntity(h);
    const customer = await createCustomer(h, {
      name: 'Acme GmbH', vat_number: 'DE123456789', billing_address: { line1: 'Friedrichstrasse 123', city: 'Berlin', zip_code: '10117', country: 'DE' },
    });
    const draft = await createDraft(h, customer.id, {
      invoiceDate: '2026-10-24', periodStart: '2026-10-24', periodEnd: '2026-11-24', purchaseOrder: 'PO-2026-118', lines: LINES, tax: NO_TAX('REVERSE_CHARGE'),
      lineDetails: [undefined, { description: 'Graduated: 100 at 0.10, 1400 at 0.01' }],
    });
    h.clock.set('2026-10-25T08:00:00.000Z');
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).json()).toMatchObject({ invoice_number: 'INV-0001', due_date: '2026-11-23', total: '120.50' });
    await h.drainJobs();
    const { bytes, text } = await pdfOf(h, draft.invoice.id);
    expect(text.split('\n')).toEqual([
      'Invoice',
      'INV-0001',
      'Invoice date: 2026-10-24',
      'Due date: 2026-11-23',
      'Period: 2026-10-24 to 2026-11-23',
      'Purchase order: PO-2026-118',
      'Payment reference: INV0001',
      'Currency: EUR',
      'FROM BILL TO',
      'Tally Billing SAS Acme GmbH',
      '8 avenue des Ternes Friedrichstrasse 123',
      'Bâtiment B 10117 Berlin',
      '75017 Paris Germany',
      'France VAT number: DE123456789',
      'VAT number: FR83404833048',
      'Registration number: SIREN 404 833 048',
      'Description Quantity Unit price Tax Amount',
      'Platform fee 1 100 EUR 0% 100.00 EUR',
      '2026-10-24 to 2026-11-23',
      'API calls 1500 0% 20.50 EUR',
      '2026-09-24 to 2026-10-23',
      'Graduated: 100 at 0.10, 1400 at 0.01',
      'Subtotal 120.50 EUR',
      'Reverse charge on 120.50 EUR 0.00 EUR',
      'Total 120.50 EUR',
      'Amount due 120.50 EUR',
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC). Customer VAT',
      'number: DE123456789.',
      'Payment',
      'Please pay 120.50 EUR by 2026-11-23.',
      // the hosted pay page, while the invoice is payable (docs/payments.md, "Invoice pay page")
      expect.stringMatching(/^Pay online: http:\/\/localhost:3000\/pay\/ip_[A-Za-z0-9_-]{43}$/),
      'Bank transfer to:',
      'Account holder: Tally Billing SAS',
      'Bank: Banque Exemple',
      'IBAN: FR76 3000 6000 0112 3456 7890 189',
      'BIC: AGRIFRPP',
      'Payment reference: INV0001',
      'Please quote the payment reference with your transfer.',
      'Tally Billing SAS - SAS au capital de 10 000 EUR - RCS Paris 404 833 048',
      'Invoice INV-0001 - page 1 of 1',
    ]);
    // one way of showing periods: the exclusive end of the period is never printed
    expect(text).not.toContain('2026-11-24');
    // every amount carries its currency (a price, a total, a tax base)
    expect(text.match(/\b\d+\.\d{2}\b(?! EUR)/g)?.filter((m) => !['0.10', '0.01'].includes(m)) ?? []).toEqual([]);
    // the logo is in the file as an image
    expect(bytes.toString('latin1')).toMatch(/\/Subtype \/Image/);
  });

  it('says why no VAT is charged to an exempt customer, and marks a draft as not issued', async () => {
    const h = harness();
    await sellerEntity(h);
    const customer = await createCustomer(h, { name: 'Hôpital Public', is_tax_exempt: true, billing_address: { city: 'Lyon', country: 'FR' } });
    const draft = await createDraft(h, customer.id, { invoiceDate: '2026-10-24', periodStart: '2026-10-24', periodEnd: '2026-11-24', lines: LINES, tax: NO_TAX('EXEMPT') });
    const { text } = await pdfOf(h, draft.invoice.id);
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['Invoice', 'DRAFT', 'Draft: not issued yet']);
    expect(lines).toContain('Exempt on 120.50 EUR 0.00 EUR');
    expect(lines).toContain('VAT exempt: the customer is exempt from VAT, no VAT is charged.');
    expect(lines).toContain('Due 30 days after the invoice date once issued.');
    expect(text).not.toContain('Reverse charge');
    expect(text).not.toContain('Payment reference');
  });

  it('prints the logo only while the entity still has the one the invoice was issued with', async () => {
    const h = harness();
    const entity = await sellerEntity(h);
    const customer = await createCustomer(h, { name: 'Logo Check' });
    const draft = await createDraft(h, customer.id, { lines: LINES });
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { logo: dataUrl(discPng(32, [0, 128, 0])) } });
    // the draft now names the new logo: it shows
    expect((await pdfOf(h, draft.invoice.id)).bytes.toString('latin1')).toMatch(/\/Subtype \/Image/);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    // changed before the PDF job ran: the finalized invoice names another logo, so none is printed
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { logo: null } });
    await h.drainJobs();
    expect((await pdfOf(h, draft.invoice.id)).bytes.toString('latin1')).not.toMatch(/\/Subtype \/Image/);
  });
});
