// Writes the model as an OASIS UBL 2.1 Invoice or CreditNote, the syntax of Peppol BIS Billing 3.0
// and of XRechnung's UBL flavour. Element order follows the UBL schema; absent values are left out.
import type { XmlCreate } from './model.js';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { EInvoiceDocument, EInvoiceParty, Syntax, VatCategory } from './model.js';

export const UBL_NS = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  creditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;

const cac = (parent: XMLBuilder, name: string): XMLBuilder => parent.ele(UBL_NS.cac, `cac:${name}`);
const cbc = (parent: XMLBuilder, name: string, text: string, attributes?: Record<string, string>): XMLBuilder =>
  parent.ele(UBL_NS.cbc, `cbc:${name}`, attributes).txt(text);
const optional = (parent: XMLBuilder, name: string, text: string | null | undefined) => {
  if (text !== null && text !== undefined && text !== '') cbc(parent, name, text);
};

function party(parent: XMLBuilder, name: string, p: EInvoiceParty): void {
  const element = cac(cac(parent, name), 'Party');
  if (p.electronicAddress) cbc(element, 'EndpointID', p.electronicAddress.value, { schemeID: p.electronicAddress.scheme });
  if (p.address) {
    const address = cac(element, 'PostalAddress');
    optional(address, 'StreetName', p.address.line1);
    optional(address, 'AdditionalStreetName', p.address.line2);
    optional(address, 'CityName', p.address.city);
    optional(address, 'PostalZone', p.address.postcode);
    optional(address, 'CountrySubentity', p.address.subdivision);
    if (p.address.country) cbc(cac(address, 'Country'), 'IdentificationCode', p.address.country);
  }
  for (const [id, scheme] of [[p.vatId, 'VAT'], [p.taxRegistrationId, 'TAX']] as const) {
    if (!id) continue;
    const tax = cac(element, 'PartyTaxScheme');
    cbc(tax, 'CompanyID', id);
    cbc(cac(tax, 'TaxScheme'), 'ID', scheme);
  }
  const legal = cac(element, 'PartyLegalEntity');
  optional(legal, 'RegistrationName', p.name);
  optional(legal, 'CompanyID', p.legalRegistrationId);
  if (p.contact) {
    const contact = cac(element, 'Contact');
    optional(contact, 'Name', p.contact.name);
    optional(contact, 'Telephone', p.contact.phone);
    optional(contact, 'ElectronicMail', p.contact.email);
  }
}

function taxCategory(parent: XMLBuilder, name: 'TaxCategory' | 'ClassifiedTaxCategory', category: VatCategory, rate: string | null, exemption?: { reason: string | null; code: string | null }): void {
  const element = cac(parent, name);
  cbc(element, 'ID', category);
  optional(element, 'Percent', rate);
  optional(element, 'TaxExemptionReasonCode', exemption?.code);
  optional(element, 'TaxExemptionReason', exemption?.reason);
  cbc(cac(element, 'TaxScheme'), 'ID', 'VAT');
}

/** `create` is xmlbuilder2's, loaded by the caller at first use (index.ts). */
export function buildUbl(create: XmlCreate, doc: EInvoiceDocument, syntax: Syntax): string {
  const credit = doc.typeCode === '381';
  const currency = { currencyID: doc.currency ?? '' };
  const root = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(credit ? UBL_NS.creditNote : UBL_NS.invoice, credit ? 'CreditNote' : 'Invoice')
    .att('xmlns:cac', UBL_NS.cac).att('xmlns:cbc', UBL_NS.cbc);
  cbc(root, 'CustomizationID', syntax.customizationId);
  optional(root, 'ProfileID', syntax.profileId);
  cbc(root, 'ID', doc.number ?? '');
  cbc(root, 'IssueDate', doc.issueDate ?? '');
  // a UBL 2.1 credit note has no DueDate; its due date goes with the payment means (below)
  if (!credit) optional(root, 'DueDate', doc.dueDate);
  cbc(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode', doc.typeCode ?? '');
  for (const note of doc.notes) cbc(root, 'Note', note);
  cbc(root, 'DocumentCurrencyCode', doc.currency ?? '');
  optional(root, 'BuyerReference', doc.buyerReference);
  if (doc.periodStart || doc.periodEnd) {
    const period = cac(root, 'InvoicePeriod');
    optional(period, 'StartDate', doc.periodStart);
    optional(period, 'EndDate', doc.periodEnd);
  }
  if (doc.purchaseOrder) cbc(cac(root, 'OrderReference'), 'ID', doc.purchaseOrder);
  if (doc.precedingInvoice) {
    const reference = cac(cac(root, 'BillingReference'), 'InvoiceDocumentReference');
    cbc(reference, 'ID', doc.precedingInvoice.number);
    optional(reference, 'IssueDate', doc.precedingInvoice.issueDate);
  }
  party(root, 'AccountingSupplierParty', doc.seller);
  party(root, 'AccountingCustomerParty', doc.buyer);
  if (doc.payment) {
    const means = cac(root, 'PaymentMeans');
    cbc(means, 'PaymentMeansCode', doc.payment.meansCode);
    if (credit) optional(means, 'PaymentDueDate', doc.dueDate);
    optional(means, 'PaymentID', doc.payment.remittance);
    const accountId = doc.payment.iban ?? doc.payment.accountNumber;
    if (accountId) {
      const account = cac(means, 'PayeeFinancialAccount');
      cbc(account, 'ID', accountId);
      optional(account, 'Name', doc.payment.accountName);
      if (doc.payment.bic) cbc(cac(account, 'FinancialInstitutionBranch'), 'ID', doc.payment.bic);
    }
  }
  if (doc.paymentTerms) cbc(cac(root, 'PaymentTerms'), 'Note', doc.paymentTerms);
  const taxTotal = cac(root, 'TaxTotal');
  cbc(taxTotal, 'TaxAmount', doc.totals.tax, currency);
  for (const row of doc.vat) {
    const subtotal = cac(taxTotal, 'TaxSubtotal');
    cbc(subtotal, 'TaxableAmount', row.taxableAmount, currency);
    cbc(subtotal, 'TaxAmount', row.taxAmount, currency);
    taxCategory(subtotal, 'TaxCategory', row.category, row.rate, { reason: row.exemptionReason, code: row.exemptionCode });
  }
  const t = doc.totals;
  const sums = cac(root, 'LegalMonetaryTotal');
  cbc(sums, 'LineExtensionAmount', t.lineNet, currency);
  cbc(sums, 'TaxExclusiveAmount', t.taxExclusive, currency);
  cbc(sums, 'TaxInclusiveAmount', t.taxInclusive, currency);
  cbc(sums, 'AllowanceTotalAmount', t.allowances, currency);
  cbc(sums, 'ChargeTotalAmount', t.charges, currency);
  cbc(sums, 'PrepaidAmount', t.prepaid, currency);
  cbc(sums, 'PayableRoundingAmount', t.rounding, currency);
  cbc(sums, 'PayableAmount', t.payable, currency);
  for (const line of doc.lines) {
    const element = cac(root, credit ? 'CreditNoteLine' : 'InvoiceLine');
    cbc(element, 'ID', line.id);
    cbc(element, credit ? 'CreditedQuantity' : 'InvoicedQuantity', line.quantity, { unitCode: line.unitCode });
    cbc(element, 'LineExtensionAmount', line.netAmount, currency);
    if (line.periodStart || line.periodEnd) {
      const period = cac(element, 'InvoicePeriod');
      optional(period, 'StartDate', line.periodStart);
      optional(period, 'EndDate', line.periodEnd);
    }
    if (line.allowance) {
      const allowance = cac(element, 'AllowanceCharge');
      cbc(allowance, 'ChargeIndicator', 'false');
      cbc(allowance, 'AllowanceChargeReason', 'Discount');
      cbc(allowance, 'Amount', line.allowance, currency);
    }
    const item = cac(element, 'Item');
    cbc(item, 'Name', line.name);
    taxCategory(item, 'ClassifiedTaxCategory', line.category, line.rate);
    cbc(cac(element, 'Price'), 'PriceAmount', line.netPrice, currency);
  }
  return root.end({ prettyPrint: true });
}
