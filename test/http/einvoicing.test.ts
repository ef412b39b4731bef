// Golden e-invoices (docs/einvoicing.md): each case finalizes an invoice of an entity that opted
// in, then reads the XML back (fast-xml-parser, through the project's parser) and compares every
// amount with the invoice as the API shows it, and looks for the XML inside the PDF/A-3.
import { describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { useHarness, type Harness } from '../harness/app.js';
import { Dec } from '../../src/kernel/money.js';
import { resolveTax, type InvoiceLineInput, type TaxCustomer, type TaxDecision } from '../../src/domain/index.js';
import { parseEInvoice, type EInvoiceDocument } from '../../src/adapters/einvoice/index.js';
import { STANDARD_VAT_RATES } from '../../src/modules/invoices/billing/context.js';
import { createCustomer, createDraft, outbox } from './invoices-support.js';
import { separateEInvoiceXml } from '../../src/modules/invoices/index.js';
import { assembleInvoice } from '../../src/domain/index.js';

const harness = useHarness();

const RATES = Object.fromEntries(Object.entries(STANDARD_VAT_RATES).map(([country, rate]) => [country, new Dec(rate)]));

const SELLER = {
  legal_name: 'Tally Billing SAS', country: 'FR', vat_number: 'FR83404833048', registration_number: '404833048',
  address_line1: '8 avenue des Ternes', city: 'Paris', zip_code: '75017',
  bank_details: { account_holder: 'Tally Billing SAS', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
  // the seller contact XRechnung requires (BG-6) and the Peppol participant id (BT-34, SIRET scheme 0009)
  contact_name: 'Accounts receivable', contact_phone: '+33 1 23 45 67 89', contact_email: 'billing@tally.example',
  peppol_endpoint_scheme: '0009', peppol_endpoint_id: '40483304800010',
};
const SELLER_CONTACT = { name: 'Accounts receivable', phone: '+33 1 23 45 67 89', email: 'billing@tally.example' };

async function entity(h: Harness, format: string, overrides: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await h.request('POST', '/api/v1/invoicing-entities', { body: { ...SELLER, e_invoicing_format: format, ...overrides } });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ e_invoicing_enabled: true, e_invoicing_format: format });
  return res.json();
}

/** The tax our decision gives this seller and customer (src/domain/tax.ts). */
const taxFor = (customer: TaxCustomer): TaxDecision => resolveTax({ entityCountry: 'FR', customer, standardRates: RATES });

async function finalized(h: Harness, draftId: string) {
  const fin = await h.request('POST', `/api/v1/invoices/${draftId}/finalize`);
  expect(fin.statusCode, fin.body).toBe(200);
  await h.drainJobs();
  return (await h.request('GET', `/api/v1/invoices/${draftId}`)).json();
}

async function xmlOf(h: Harness, url: string): Promise<{ xml: string; doc: EInvoiceDocument; filename: string }> {
  const res = await h.request('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toContain('application/xml');
  const xml = res.body;
  return { xml, doc: await parseEInvoice(xml), filename: /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1]! };
}

/** The files embedded in a PDF, as pdf.js (a PDF reader) lists them from the EmbeddedFiles name tree. */
async function attachments(pdf: Buffer): Promise<Record<string, { filename: string; content: Uint8Array }>> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false }).promise;
  try {
    return ((await doc.getAttachments()) ?? {}) as Record<string, { filename: string; content: Uint8Array }>;
  } finally {
    await doc.destroy();
  }
}

/** Every amount of the parsed document against the invoice the API shows. */
function expectAmountsMatch(doc: EInvoiceDocument, invoice: Record<string, any>): void {
  expect(doc.currency).toBe(invoice.currency);
  expect(doc.number).toBe(invoice.invoice_number);
  expect(doc.issueDate).toBe(invoice.invoice_date);
  expect(doc.dueDate).toBe(invoice.due_date);
  expect(doc.lines).toHaveLength(invoice.line_items.length);
  invoice.line_items.forEach((line: Record<string, string>, index: number) => {
    const parsed = doc.lines[index]!;
    expect(parsed.netAmount).toBe(line.taxable_amount);
    expect(parsed.name).toBe(line.name);
    // discount shown as a line allowance, net = quantity × price − allowance
    expect(parsed.allowance ?? new Dec(0).toFixed(line.discount!.split('.')[1]?.length ?? 0)).toBe(line.discount);
    expect(new Dec(parsed.quantity).times(parsed.netPrice).minus(parsed.allowance ?? 0).toString()).toBe(new Dec(line.taxable_amount!).toString());
  });
  const taxable = (rows: { taxableAmount: string }[]) => rows.reduce((sum, row) => sum.plus(row.taxableAmount), new Dec(0));
  const tax = (rows: { taxAmount: string }[]) => rows.reduce((sum, row) => sum.plus(row.taxAmount), new Dec(0));
  const invoiceTaxable = invoice.tax_breakdown.reduce((sum: Dec, row: Record<string, string>) => sum.plus(row.taxable_amount!), new Dec(0));
  expect(taxable(doc.vat).toString()).toBe(invoiceTaxable.toString());
  expect(tax(doc.vat).toString()).toBe(new Dec(invoice.tax_amount).toString());
  const lineNet = new Dec(invoice.subtotal).minus(invoice.discount).toFixed(invoice.subtotal.split('.')[1]?.length ?? 0);
  expect(doc.totals).toEqual({
    lineNet, allowances: expect.any(String), charges: expect.any(String), taxExclusive: lineNet, tax: invoice.tax_amount, taxInclusive: invoice.total,
    prepaid: new Dec(invoice.applied_credits).plus(invoice.prepaid_credits).toFixed(invoice.total.split('.')[1]?.length ?? 0),
    rounding: expect.any(String), payable: invoice.amount_due,
  });
  expect(new Dec(doc.totals.allowances).isZero() && new Dec(doc.totals.charges).isZero() && new Dec(doc.totals.rounding).isZero()).toBe(true);
}

describe('e-invoicing: opting in', () => {
  it('sets the format on the entity, validates it by name, and keeps the switch and the format together', async () => {
    const h = harness();
    const created = await entity(h, 'XRECHNUNG_UBL');
    const url = `/api/v1/invoicing-entities/${created.id}`;
    const bad = await h.request('PATCH', url, { body: { e_invoicing_format: 'ZUGFERD' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('e_invoicing_format must be one of FACTURX, XRECHNUNG_UBL, XRECHNUNG_CII, PEPPOL_BIS') });
    const contradiction = await h.request('PATCH', url, { body: { e_invoicing_format: 'FACTURX', e_invoicing_enabled: false } });
    expect(contradiction.statusCode).toBe(400);
    expect(contradiction.json().message).toContain('e_invoicing_enabled');
    expect((await h.request('GET', url)).json()).toMatchObject({ e_invoicing_enabled: true, e_invoicing_format: 'XRECHNUNG_UBL' });
    expect((await h.request('PATCH', url, { body: { e_invoicing_enabled: false } })).json()).toMatchObject({ e_invoicing_enabled: false, e_invoicing_format: null });
    // switching back on without a format: Factur-X
    expect((await h.request('PATCH', url, { body: { e_invoicing_enabled: true } })).json()).toMatchObject({ e_invoicing_enabled: true, e_invoicing_format: 'FACTURX' });
    expect((await h.request('PATCH', url, { body: { e_invoicing_format: null } })).json()).toMatchObject({ e_invoicing_enabled: false, e_invoicing_format: null });
  });
});

describe('golden e-invoices', () => {
  it('domestic standard rate, Factur-X: valid CII embedded as factur-x.xml in the PDF/A-3', async () => {
    const h = harness();
    const seller = await entity(h, 'FACTURX');
    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_email: 'ap@acme.example', vat_number: 'FR40123456824', billing_address: { line1: '12 rue de la Paix', city: 'Paris', zip_code: '75002', country: 'FR' } });
    const tax = taxFor({ country: 'FR', vatNumber: 'FR40123456824' });
    expect(tax.treatment).toBe('STANDARD');
    const draft = await createDraft(h, customer.id, { tax, periodStart: '2026-03-01', periodEnd: '2026-04-01', purchaseOrder: 'PO-77' });
    const invoice = await finalized(h, draft.invoice.id);
    expect(invoice.e_invoicing).toEqual({ format: 'FACTURX', status: 'VALID', errors: [], download_url: `/api/v1/invoices/${invoice.id}/e-invoice` });
    const event = (await outbox(h, invoice.id)).find((e) => e.event_type === 'invoice.accounting_pdf_generated')!;
    expect(event.payload.e_invoicing).toEqual(invoice.e_invoicing);

    const { xml, doc, filename } = await xmlOf(h, invoice.e_invoicing.download_url);
    expect(filename).toBe(`${invoice.invoice_number}-factur-x.xml`);
    expect(doc).toMatchObject({
      customizationId: 'urn:cen.eu:en16931:2017', typeCode: '380', purchaseOrder: 'PO-77', buyerReference: 'PO-77', periodStart: '2026-03-01', periodEnd: '2026-03-31',
      seller: { name: 'Tally Billing SAS', vatId: 'FR83404833048', legalRegistrationId: '404833048', address: { country: 'FR', city: 'Paris' } },
      buyer: { name: 'ACME SAS', vatId: 'FR40123456824', electronicAddress: { scheme: 'EM', value: 'ap@acme.example' } },
      payment: { meansCode: '58', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
      vat: [{ category: 'S', rate: '20', taxableAmount: '120.00', taxAmount: '24.00', exemptionReason: null }],
    });
    expect(doc.lines.map((line) => [line.quantity, line.netPrice, line.category, line.rate])).toEqual([['1', '100', 'S', '20'], ['1', '20.00', 'S', '20']]);
    expectAmountsMatch(doc, invoice);

    const pdf = await h.request('GET', `/api/v1/invoices/${invoice.id}/download`);
    const raw = pdf.rawPayload;
    const files = await attachments(raw);
    expect(Object.values(files).map((file) => file.filename)).toEqual(['factur-x.xml']);
    expect(Buffer.from(Object.values(files)[0]!.content).toString('utf8')).toBe(xml);
    const text = raw.toString('latin1');
    expect(text).toContain('/AFRelationship /Alternative');
    expect(text).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(text).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(text).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    // the hybrid PDF carries it: mails send no separate XML
    expect(await separateEInvoiceXml(h.db.pool, h.tenant.id, invoice.id, invoice.invoice_number)).toBeUndefined();
  });

  it('reverse charge B2B within the EU, XRechnung UBL: category AE with its exemption, both VAT numbers', async () => {
    const h = harness();
    const seller = await entity(h, 'XRECHNUNG_UBL');
    const customer = await createCustomer(h, { name: 'Beispiel GmbH', invoicing_entity_id: seller.id, vat_number: 'DE123456789', billing_address: { line1: 'Hauptstr. 1', city: 'Berlin', zip_code: '10115', country: 'DE' } });
    const tax = taxFor({ country: 'DE', vatNumber: 'DE123456789' });
    expect(tax.treatment).toBe('REVERSE_CHARGE');
    const invoice = await finalized(h, (await createDraft(h, customer.id, { tax })).invoice.id);
    expect(invoice.e_invoicing).toMatchObject({ format: 'XRECHNUNG_UBL', status: 'VALID', errors: [] });
    const { xml, doc, filename } = await xmlOf(h, invoice.e_invoicing.download_url);
    expect(filename).toBe(`${invoice.invoice_number}.xml`);
    expect(xml).toContain('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"');
    expect(doc).toMatchObject({
      customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0', profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
      buyerReference: expect.any(String), seller: { vatId: 'FR83404833048', contact: SELLER_CONTACT, electronicAddress: { scheme: '0009', value: '40483304800010' } }, buyer: { vatId: 'DE123456789', address: { country: 'DE' } },
      vat: [{ category: 'AE', rate: '0', taxableAmount: '120.00', taxAmount: '0.00', exemptionCode: 'VATEX-EU-AE', exemptionReason: expect.stringContaining('Reverse charge') }],
    });
    expect(xml).toContain('<cbc:EndpointID schemeID="0009">40483304800010</cbc:EndpointID>');
    expect(xml).toMatch(/<cac:Contact>\s*<cbc:Name>Accounts receivable<\/cbc:Name>\s*<cbc:Telephone>\+33 1 23 45 67 89<\/cbc:Telephone>\s*<cbc:ElectronicMail>billing@tally.example<\/cbc:ElectronicMail>/);
    expect(doc.lines.every((line) => line.category === 'AE' && line.rate === '0')).toBe(true);
    expectAmountsMatch(doc, invoice);
    // UBL travels alone: the PDF stays a plain PDF, and mails carry the XML beside it
    expect(Object.keys(await attachments((await h.request('GET', `/api/v1/invoices/${invoice.id}/download`)).rawPayload))).toEqual([]);
    expect((await separateEInvoiceXml(h.db.pool, h.tenant.id, invoice.id, invoice.invoice_number))?.content.toString('utf8')).toBe(xml);
  });

  it('export outside the EU, Peppol BIS: category G', async () => {
    const h = harness();
    const seller = await entity(h, 'PEPPOL_BIS');
    // Peppol routes to the buyer's endpoint (BT-49, PEPPOL-EN16931-R010): the billing e-mail
    const customer = await createCustomer(h, { name: 'Example Inc.', currency: 'USD', billing_email: 'ap@example.com', invoicing_entity_id: seller.id, billing_address: { line1: '1 Market St', city: 'San Francisco', zip_code: '94105', state: 'CA', country: 'US' } });
    const tax = taxFor({ country: 'US' });
    expect(tax.treatment).toBe('EXPORT');
    const invoice = await finalized(h, (await createDraft(h, customer.id, { tax, currency: 'USD' })).invoice.id);
    expect(invoice.e_invoicing).toMatchObject({ format: 'PEPPOL_BIS', status: 'VALID', errors: [] });
    const { doc } = await xmlOf(h, invoice.e_invoicing.download_url);
    expect(doc).toMatchObject({
      customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0', currency: 'USD',
      seller: { electronicAddress: { scheme: '0009', value: '40483304800010' }, contact: SELLER_CONTACT },
      buyer: { address: { country: 'US', subdivision: 'CA' } },
      vat: [{ category: 'G', rate: '0', taxableAmount: '120.00', taxAmount: '0.00', exemptionCode: 'VATEX-EU-G' }],
    });
    expectAmountsMatch(doc, invoice);
  });

  it('mixed rates with a coupon, XRechnung CII: one VAT row per rate, discounts as line allowances, embedded as xrechnung.xml', async () => {
    const h = harness();
    const seller = await entity(h, 'XRECHNUNG_CII');
    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_address: { line1: '3 place du Marché', city: 'Lyon', zip_code: '69001', country: 'FR' } });
    const standard = taxFor({ country: 'FR' });
    const reduced: TaxDecision = { ...standard, rate: new Dec('0.055') };
    const lines: InvoiceLineInput[] = [
      { name: 'Platform', category: 'RECURRING', amount: new Dec('99.99'), quantity: new Dec('1'), unitPrice: new Dec('99.99') },
      { name: 'Seats', category: 'RECURRING', amount: new Dec('33.33'), quantity: new Dec('3'), unitPrice: new Dec('11.11') },
      { name: 'E-books', category: 'ONE_TIME', amount: new Dec('17.49'), tax: reduced },
    ];
    const computed = assembleInvoice({ currency: 'EUR', taxInclusive: false, lines, tax: standard, coupons: [{ couponId: 'cpn_ten', kind: 'PERCENTAGE', percent: new Dec('10') }] });
    expect(computed.discountMinor).toBeGreaterThan(0n);
    // the support's createDraft assembles without coupons: the couponed computation is stored directly
    const withCoupon = await h.service.invoicing.invoices.createDraft(h.tenant.id, {
      customerId: customer.id, invoiceType: 'ONE_OFF', invoiceDate: '2026-03-02', autoAdvance: false, subscriptionId: null, periodStart: null, periodEnd: null,
      purchaseOrder: null, memo: 'Thank you', autoCharge: null, computed, lineDetails: [],
    });
    const invoice = await finalized(h, withCoupon.invoice.id);
    expect(invoice.discount).not.toBe('0.00');
    expect(invoice.e_invoicing).toMatchObject({ format: 'XRECHNUNG_CII', status: 'VALID', errors: [] });
    const { xml, doc, filename } = await xmlOf(h, invoice.e_invoicing.download_url);
    expect(filename).toBe(`${invoice.invoice_number}-xrechnung.xml`);
    expect(doc.notes).toEqual(['Thank you']);
    expect(doc.seller.contact).toEqual(SELLER_CONTACT);
    expect(xml).toMatch(/<ram:DefinedTradeContact>\s*<ram:PersonName>Accounts receivable<\/ram:PersonName>\s*<ram:TelephoneUniversalCommunication>\s*<ram:CompleteNumber>\+33 1 23 45 67 89<\/ram:CompleteNumber>/);
    expect(doc.vat.map((row) => [row.category, row.rate])).toEqual([['S', '20'], ['S', '5.5']]);
    expect(doc.lines.filter((line) => line.allowance !== null)).toHaveLength(3);
    expect(doc.lines[1]).toMatchObject({ quantity: '3', netPrice: '11.11' });
    expectAmountsMatch(doc, invoice);
    // each rate's tax is what the invoice's lines at that rate carry
    for (const row of doc.vat) {
      const atRate = invoice.line_items.filter((line: Record<string, string>) => new Dec(line.tax_rate!).times(100).equals(row.rate!));
      expect(row.taxAmount).toBe(atRate.reduce((sum: Dec, line: Record<string, string>) => sum.plus(line.tax_amount!), new Dec(0)).toFixed(2));
    }
    const files = await attachments((await h.request('GET', `/api/v1/invoices/${invoice.id}/download`)).rawPayload);
    expect(Object.values(files).map((file) => file.filename)).toEqual(['xrechnung.xml']);
    expect(Buffer.from(Object.values(files)[0]!.content).toString('utf8')).toBe(xml);
  });

  it('credit note (381) naming the invoice, Factur-X, embedded in the credit note PDF', async () => {
    const h = harness();
    const seller = await entity(h, 'FACTURX');
    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_address: { line1: '12 rue de la Paix', city: 'Paris', zip_code: '75002', country: 'FR' } });
    const invoice = await finalized(h, (await createDraft(h, customer.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    const created = await h.request('POST', '/api/v1/credit-notes', {
      body: { invoice_id: invoice.id, reason: 'Seats not used', credit_type: 'CREDIT_TO_BALANCE', lines: [{ invoice_line_id: invoice.line_items[0].id, amount: '33.33' }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().e_invoicing).toMatchObject({ status: 'NOT_APPLICABLE', format: null });
    const note = (await h.request('POST', `/api/v1/credit-notes/${created.json().id}/finalize`)).json();
    expect(note.e_invoicing).toEqual({ format: 'FACTURX', status: 'VALID', errors: [], download_url: `/api/v1/credit-notes/${note.id}/e-invoice` });
    const { xml, doc } = await xmlOf(h, note.e_invoicing.download_url);
    expect(doc).toMatchObject({
      typeCode: '381', number: note.credit_note_number, currency: 'EUR', precedingInvoice: { number: invoice.invoice_number, issueDate: invoice.invoice_date },
      notes: ['Seats not used'], paymentTerms: expect.stringContaining(`deducted from invoice ${invoice.invoice_number}`),
      lines: [{ netAmount: note.line_items[0].taxable_amount, category: 'S', rate: '20' }],
      vat: [{ category: 'S', rate: '20', taxableAmount: note.subtotal, taxAmount: note.tax_amount }],
      totals: { lineNet: note.subtotal, taxExclusive: note.subtotal, tax: note.tax_amount, taxInclusive: note.total, payable: note.total, prepaid: '0.00' },
    });
    expect(note.subtotal).toBe('33.33');
    expect(note.tax_amount).toBe('6.67');
    const pdf = (await h.request('GET', `/api/v1/credit-notes/${note.id}/download`)).rawPayload;
    const files = await attachments(pdf);
    expect(Object.values(files).map((file) => file.filename)).toEqual(['factur-x.xml']);
    expect(Buffer.from(Object.values(files)[0]!.content).toString('utf8')).toBe(xml);
    expect((await h.request('GET', `/api/v1/credit-notes/${note.id}`)).json().e_invoicing.status).toBe('VALID');
  });

  it('JPY, a 0-decimal currency, Peppol BIS: amounts without decimals, rounding consistent', async () => {
    const h = harness();
    const seller = await entity(h, 'PEPPOL_BIS');
    const customer = await createCustomer(h, { currency: 'JPY', billing_email: 'ap@example.jp', invoicing_entity_id: seller.id, vat_number: 'FR40123456824', billing_address: { line1: '1 rue du Japon', city: 'Paris', zip_code: '75016', country: 'FR' } });
    const lines: InvoiceLineInput[] = [
      { name: 'Licences', category: 'RECURRING', amount: new Dec('999'), quantity: new Dec('3'), unitPrice: new Dec('333') },
      { name: 'Support', category: 'RECURRING', amount: new Dec('1234') },
    ];
    const invoice = await finalized(h, (await createDraft(h, customer.id, { currency: 'JPY', lines, tax: taxFor({ country: 'FR', vatNumber: 'FR40123456824' }), lineDetails: [] })).invoice.id);
    expect(invoice.total).toBe('2680');
    expect(invoice.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    const { doc } = await xmlOf(h, invoice.e_invoicing.download_url);
    expect(doc.vat).toEqual([expect.objectContaining({ category: 'S', rate: '20', taxableAmount: '2233', taxAmount: '447' })]);
    expect(doc.totals).toMatchObject({ lineNet: '2233', tax: '447', taxInclusive: '2680', payable: '2680' });
    expectAmountsMatch(doc, invoice);
  });

  it('a document that fails rules is INVALID with the rule ids, and finalization goes on', async () => {
    const h = harness();
    // no VAT number: standard-rated lines need the seller's (BR-S-02)
    const seller = await entity(h, 'FACTURX', { vat_number: null });
    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' } });
    const invoice = await finalized(h, (await createDraft(h, customer.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(invoice.status).toBe('FINALIZED');
    expect(invoice.e_invoicing).toMatchObject({ format: 'FACTURX', status: 'INVALID', errors: [{ rule: 'BR-S-02', message: expect.stringContaining('vat_number') }] });
    // the XML is still there to look at, but an invalid document is not presented as a hybrid PDF
    expect((await h.request('GET', invoice.e_invoicing.download_url)).statusCode).toBe(200);
    expect(Object.keys(await attachments((await h.request('GET', `/api/v1/invoices/${invoice.id}/download`)).rawPayload))).toEqual([]);
    // an entity that never opted in: no e-invoice
    const plainCustomer = await createCustomer(h);
    const plain = await finalized(h, (await createDraft(h, plainCustomer.id)).invoice.id);
    expect(plain.e_invoicing).toEqual({ format: null, status: 'NOT_APPLICABLE', errors: [], download_url: null });
    expect((await h.request('GET', `/api/v1/invoices/${plain.id}/e-invoice`)).statusCode).toBe(404);
  });

  it('the other categories our tax decision gives: E for an exempt customer, Z beside S for a 0 % line, O for an export by a seller without a VAT number', async () => {
    const h = harness();
    const address = { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' };
    const seller = await entity(h, 'FACTURX');
    const exemptCustomer = await createCustomer(h, { invoicing_entity_id: seller.id, is_tax_exempt: true, billing_address: address });
    const exemptTax = taxFor({ country: 'FR', taxExempt: true });
    expect(exemptTax.treatment).toBe('EXEMPT');
    const exempt = await finalized(h, (await createDraft(h, exemptCustomer.id, { tax: exemptTax })).invoice.id);
    expect(exempt.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    const exemptDoc = (await xmlOf(h, exempt.e_invoicing.download_url)).doc;
    expect(exemptDoc.vat).toEqual([expect.objectContaining({ category: 'E', rate: '0', taxAmount: '0.00', exemptionReason: 'Exempt from VAT: the customer is VAT exempt' })]);
    expectAmountsMatch(exemptDoc, exempt);

    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_address: address });
    const standard = taxFor({ country: 'FR' });
    const zeroRated: InvoiceLineInput[] = [
      { name: 'Platform', category: 'RECURRING', amount: new Dec('100') },
      { name: 'Newspaper', category: 'ONE_TIME', amount: new Dec('12.50'), tax: { ...standard, rate: new Dec('0') } },
    ];
    const mixed = await finalized(h, (await createDraft(h, customer.id, { lines: zeroRated, tax: standard, lineDetails: [] })).invoice.id);
    expect(mixed.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    const mixedDoc = (await xmlOf(h, mixed.e_invoicing.download_url)).doc;
    expect(mixedDoc.vat.map((row) => [row.category, row.rate, row.taxableAmount, row.taxAmount, row.exemptionReason])).toEqual([['S', '20', '100.00', '20.00', null], ['Z', '0', '12.50', '0.00', null]]);
    expectAmountsMatch(mixedDoc, mixed);

    const unregistered = await entity(h, 'FACTURX', { vat_number: null, registration_number: null });
    const abroad = await createCustomer(h, { currency: 'USD', invoicing_entity_id: unregistered.id, billing_address: { line1: '1 Market St', city: 'San Francisco', zip_code: '94105', country: 'US' } });
    const exportTax = taxFor({ country: 'US' });
    expect(exportTax.treatment).toBe('EXPORT');
    const outOfScope = await finalized(h, (await createDraft(h, abroad.id, { currency: 'USD', tax: exportTax })).invoice.id);
    expect(outOfScope.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    const outDoc = (await xmlOf(h, outOfScope.e_invoicing.download_url)).doc;
    expect(outDoc.vat).toEqual([expect.objectContaining({ category: 'O', rate: null, taxAmount: '0.00', exemptionCode: 'VATEX-EU-O' })]);
    expect(outDoc.seller.vatId).toBeNull();
    expectAmountsMatch(outDoc, outOfScope);
  });

  it('a 3-decimal currency (KWD) is INVALID with BR-DEC, never a crash: finalized, XML downloadable, not embedded', async () => {
    const h = harness();
    const seller = await entity(h, 'FACTURX');
    const customer = await createCustomer(h, { currency: 'KWD', invoicing_entity_id: seller.id, vat_number: 'FR40123456824', billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' } });
    const lines: InvoiceLineInput[] = [{ name: 'Licence', category: 'RECURRING', amount: new Dec('10.125'), quantity: new Dec('1'), unitPrice: new Dec('10.125') }];
    const invoice = await finalized(h, (await createDraft(h, customer.id, { currency: 'KWD', lines, tax: taxFor({ country: 'FR', vatNumber: 'FR40123456824' }), lineDetails: [] })).invoice.id);
    expect(invoice).toMatchObject({ status: 'FINALIZED', currency: 'KWD', subtotal: '10.125', tax_amount: '2.025', total: '12.150' });
    expect(invoice.e_invoicing.status).toBe('INVALID');
    // BR-DEC only: BR-CO-17 checks a 3-decimal tax to the fils, so the one cause is reported once per amount
    expect([...new Set(invoice.e_invoicing.errors.map((e: { rule: string }) => e.rule))]).toEqual(['BR-DEC']);
    expect(invoice.e_invoicing.errors[0].message).toContain('has more than two decimals');
    const { doc } = await xmlOf(h, invoice.e_invoicing.download_url);
    expectAmountsMatch(doc, invoice);
    expect(Object.keys(await attachments((await h.request('GET', `/api/v1/invoices/${invoice.id}/download`)).rawPayload))).toEqual([]);
  });

  it('BR-CO-17 allows per-line rounding: a rate whose rounded line taxes drift a cent from taxable × rate is VALID and carries the tax the invoice charges', async () => {
    const h = harness();
    const seller = await entity(h, 'FACTURX');
    const customer = await createCustomer(h, { invoicing_entity_id: seller.id, billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' } });
    const reduced: TaxDecision = { ...taxFor({ country: 'FR' }), rate: new Dec('0.055') };
    // three lines of 0.33 at 5.5 %: 0.01815 rounds to 0.02 per line (0.06), the rate's 0.99 × 5.5 % = 0.05445 to 0.05
    const lines: InvoiceLineInput[] = [1, 2, 3].map((n) => ({ name: `Book ${n}`, category: 'ONE_TIME' as const, amount: new Dec('0.33') }));
    const invoice = await finalized(h, (await createDraft(h, customer.id, { lines, tax: reduced, lineDetails: [] })).invoice.id);
    expect(invoice).toMatchObject({ status: 'FINALIZED', subtotal: '0.99', tax_amount: '0.06', total: '1.05' });
    expect(invoice.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    expectAmountsMatch((await xmlOf(h, invoice.e_invoicing.download_url)).doc, invoice);
  });

  it('the CIUS rules run on their formats: Peppol without the buyer endpoint, XRechnung without the buyer post code nor bank details', async () => {
    const h = harness();
    const peppol = await entity(h, 'PEPPOL_BIS');
    const address = { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' };
    const noEndpoint = await createCustomer(h, { invoicing_entity_id: peppol.id, billing_address: address });
    const peppolInvoice = await finalized(h, (await createDraft(h, noEndpoint.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(peppolInvoice.e_invoicing).toMatchObject({ format: 'PEPPOL_BIS', status: 'INVALID', errors: [{ rule: 'PEPPOL-EN16931-R010', message: expect.stringContaining('billing_email') }] });

    const xrechnung = await entity(h, 'XRECHNUNG_UBL', { bank_details: null });
    const noPostcode = await createCustomer(h, { invoicing_entity_id: xrechnung.id, billing_address: { ...address, zip_code: null } });
    const xrInvoice = await finalized(h, (await createDraft(h, noPostcode.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(xrInvoice.status).toBe('FINALIZED');
    expect(xrInvoice.e_invoicing.errors.map((e: { rule: string }) => e.rule)).toEqual(['BR-DE-1', 'BR-DE-9']);
    // the same customer under Factur-X (EN 16931 only) is valid: BR-DE rules are XRechnung's
    const facturx = await entity(h, 'FACTURX', { bank_details: null });
    const sameButFacturx = await createCustomer(h, { invoicing_entity_id: facturx.id, billing_address: { ...address, zip_code: null } });
    expect((await finalized(h, (await createDraft(h, sameButFacturx.id, { tax: taxFor({ country: 'FR' }) })).invoice.id)).e_invoicing.status).toBe('VALID');
  });

  it('XRechnung without a seller contact and Peppol without a seller endpoint: INVALID with BR-DE-2, 5, 6, 7 and PEPPOL-EN16931-R020', async () => {
    const h = harness();
    const address = { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' };
    const xrechnung = await entity(h, 'XRECHNUNG_CII', { contact_name: null, contact_phone: null, contact_email: null });
    const customer = await createCustomer(h, { invoicing_entity_id: xrechnung.id, billing_address: address });
    const invoice = await finalized(h, (await createDraft(h, customer.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(invoice.e_invoicing.status).toBe('INVALID');
    expect(invoice.e_invoicing.errors.map((e: { rule: string }) => e.rule)).toEqual(['BR-DE-2', 'BR-DE-5', 'BR-DE-6', 'BR-DE-7']);
    expect(invoice.e_invoicing.errors[1].message).toContain('set contact_name on the invoicing entity');

    const peppol = await entity(h, 'PEPPOL_BIS', { peppol_endpoint_scheme: null, peppol_endpoint_id: null });
    const buyer = await createCustomer(h, { invoicing_entity_id: peppol.id, billing_email: 'ap@example.com', billing_address: address });
    const peppolInvoice = await finalized(h, (await createDraft(h, buyer.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(peppolInvoice.e_invoicing).toMatchObject({ status: 'INVALID', errors: [{ rule: 'PEPPOL-EN16931-R020', message: expect.stringContaining('peppol_endpoint_id') }] });
    // setting the endpoint later does not change the issued document, but the next invoice carries it
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${peppol.id}`, { body: { peppol_endpoint_scheme: '0088', peppol_endpoint_id: '4035811991021' } })).statusCode).toBe(200);
    const next = await finalized(h, (await createDraft(h, buyer.id, { tax: taxFor({ country: 'FR' }) })).invoice.id);
    expect(next.e_invoicing).toMatchObject({ status: 'VALID', errors: [] });
    expect((await xmlOf(h, next.e_invoicing.download_url)).xml).toContain('<cbc:EndpointID schemeID="0088">4035811991021</cbc:EndpointID>');
  });
});
