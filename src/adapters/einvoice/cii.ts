// Writes the model as a UN/CEFACT Cross Industry Invoice (D16B), the syntax of Factur-X / ZUGFeRD
// and of XRechnung's CII flavour. Element order follows the CII schema; absent values are left out.
import type { XmlCreate } from './model.js';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { EInvoiceDocument, EInvoiceParty, Syntax } from './model.js';

export const CII_NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
} as const;

/** YYYY-MM-DD as CII's date format 102 (YYYYMMDD). */
const date102 = (date: string) => date.replaceAll('-', '');

const ram = (parent: XMLBuilder, name: string, text?: string | null, attributes?: Record<string, string>): XMLBuilder => {
  const element = parent.ele(CII_NS.ram, `ram:${name}`, attributes);
  if (text !== undefined && text !== null) element.txt(text);
  return element;
};
/** Only when there is a value. */
const optional = (parent: XMLBuilder, name: string, text: string | null | undefined) => {
  if (text !== null && text !== undefined && text !== '') ram(parent, name, text);
};
const dateTime = (parent: XMLBuilder, name: string, date: string, type: 'udt' | 'qdt' = 'udt') => {
  ram(parent, name).ele(CII_NS[type], `${type}:DateTimeString`, { format: '102' }).txt(date102(date));
};

function party(parent: XMLBuilder, name: string, p: EInvoiceParty): void {
  const element = ram(parent, name);
  optional(element, 'Name', p.name);
  if (p.legalRegistrationId) ram(ram(element, 'SpecifiedLegalOrganization'), 'ID', p.legalRegistrationId);
  if (p.contact) {
    const contact = ram(element, 'DefinedTradeContact');
    optional(contact, 'PersonName', p.contact.name);
    if (p.contact.phone) ram(ram(contact, 'TelephoneUniversalCommunication'), 'CompleteNumber', p.contact.phone);
    if (p.contact.email) ram(ram(contact, 'EmailURIUniversalCommunication'), 'URIID', p.contact.email);
  }
  if (p.address) {
    const address = ram(element, 'PostalTradeAddress');
    optional(address, 'PostcodeCode', p.address.postcode);
    optional(address, 'LineOne', p.address.line1);
    optional(address, 'LineTwo', p.address.line2);
    optional(address, 'CityName', p.address.city);
    optional(address, 'CountryID', p.address.country);
    optional(address, 'CountrySubDivisionName', p.address.subdivision);
  }
  if (p.electronicAddress) ram(ram(element, 'URIUniversalCommunication'), 'URIID', p.electronicAddress.value, { schemeID: p.electronicAddress.scheme });
  if (p.vatId) ram(ram(element, 'SpecifiedTaxRegistration'), 'ID', p.vatId, { schemeID: 'VA' });
  if (p.taxRegistrationId) ram(ram(element, 'SpecifiedTaxRegistration'), 'ID', p.taxRegistrationId, { schemeID: 'FC' });
}

function period(parent: XMLBuilder, start: string | null, end: string | null): void {
  if (!start && !end) return;
  const element = ram(parent, 'BillingSpecifiedPeriod');
  if (start) dateTime(element, 'StartDateTime', start);
  if (end) dateTime(element, 'EndDateTime', end);
}

/** `create` is xmlbuilder2's, loaded by the caller at first use (index.ts). */
export function buildCii(create: XmlCreate, doc: EInvoiceDocument, syntax: Syntax): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(CII_NS.rsm, 'rsm:CrossIndustryInvoice')
    .att('xmlns:ram', CII_NS.ram).att('xmlns:udt', CII_NS.udt).att('xmlns:qdt', CII_NS.qdt);

  const context = root.ele(CII_NS.rsm, 'rsm:ExchangedDocumentContext');
  if (syntax.profileId) ram(ram(context, 'BusinessProcessSpecifiedDocumentContextParameter'), 'ID', syntax.profileId);
  ram(ram(context, 'GuidelineSpecifiedDocumentContextParameter'), 'ID', syntax.customizationId);

  const header = root.ele(CII_NS.rsm, 'rsm:ExchangedDocument');
  ram(header, 'ID', doc.number);
  ram(header, 'TypeCode', doc.typeCode);
  dateTime(header, 'IssueDateTime', doc.issueDate ?? '');
  for (const note of doc.notes) ram(ram(header, 'IncludedNote'), 'Content', note);

  const transaction = root.ele(CII_NS.rsm, 'rsm:SupplyChainTradeTransaction');
  for (const line of doc.lines) {
    const item = ram(transaction, 'IncludedSupplyChainTradeLineItem');
    ram(ram(item, 'AssociatedDocumentLineDocument'), 'LineID', line.id);
    ram(ram(item, 'SpecifiedTradeProduct'), 'Name', line.name);
    ram(ram(ram(item, 'SpecifiedLineTradeAgreement'), 'NetPriceProductTradePrice'), 'ChargeAmount', line.netPrice);
    ram(ram(item, 'SpecifiedLineTradeDelivery'), 'BilledQuantity', line.quantity, { unitCode: line.unitCode });
    const settlement = ram(item, 'SpecifiedLineTradeSettlement');
    const tax = ram(settlement, 'ApplicableTradeTax');
    ram(tax, 'TypeCode', 'VAT');
    ram(tax, 'CategoryCode', line.category);
    optional(tax, 'RateApplicablePercent', line.rate);
    period(settlement, line.periodStart, line.periodEnd);
    if (line.allowance) {
      const allowance = ram(settlement, 'SpecifiedTradeAllowanceCharge');
      ram(allowance, 'ChargeIndicator').ele(CII_NS.udt, 'udt:Indicator').txt('false');
      ram(allowance, 'ActualAmount', line.allowance);
      ram(allowance, 'Reason', 'Discount');
    }
    ram(ram(settlement, 'SpecifiedTradeSettlementLineMonetarySummation'), 'LineTotalAmount', line.netAmount);
  }

  const agreement = ram(transaction, 'ApplicableHeaderTradeAgreement');
  optional(agreement, 'BuyerReference', doc.buyerReference);
  party(agreement, 'SellerTradeParty', doc.seller);
  party(agreement, 'BuyerTradeParty', doc.buyer);
  if (doc.purchaseOrder) ram(ram(agreement, 'BuyerOrderReferencedDocument'), 'IssuerAssignedID', doc.purchaseOrder);
  ram(transaction, 'ApplicableHeaderTradeDelivery');

  const settlement = ram(transaction, 'ApplicableHeaderTradeSettlement');
  optional(settlement, 'PaymentReference', doc.payment?.remittance);
  ram(settlement, 'InvoiceCurrencyCode', doc.currency);
  if (doc.payment) {
    const means = ram(settlement, 'SpecifiedTradeSettlementPaymentMeans');
    ram(means, 'TypeCode', doc.payment.meansCode);
    if (doc.payment.iban || doc.payment.accountNumber) {
      const account = ram(means, 'PayeePartyCreditorFinancialAccount');
      optional(account, 'IBANID', doc.payment.iban);
      optional(account, 'AccountName', doc.payment.accountName);
      optional(account, 'ProprietaryID', doc.payment.iban ? null : doc.payment.accountNumber);
    }
    if (doc.payment.bic) ram(ram(means, 'PayeeSpecifiedCreditorFinancialInstitution'), 'BICID', doc.payment.bic);
  }
  for (const row of doc.vat) {
    const tax = ram(settlement, 'ApplicableTradeTax');
    ram(tax, 'CalculatedAmount', row.taxAmount);
    ram(tax, 'TypeCode', 'VAT');
    optional(tax, 'ExemptionReason', row.exemptionReason);
    ram(tax, 'BasisAmount', row.taxableAmount);
    ram(tax, 'CategoryCode', row.category);
    optional(tax, 'ExemptionReasonCode', row.exemptionCode);
    optional(tax, 'RateApplicablePercent', row.rate);
  }
  period(settlement, doc.periodStart, doc.periodEnd);
  if (doc.paymentTerms || doc.dueDate) {
    const terms = ram(settlement, 'SpecifiedTradePaymentTerms');
    optional(terms, 'Description', doc.paymentTerms);
    if (doc.dueDate) dateTime(terms, 'DueDateDateTime', doc.dueDate);
  }
  const sums = ram(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const t = doc.totals;
  ram(sums, 'LineTotalAmount', t.lineNet);
  ram(sums, 'ChargeTotalAmount', t.charges);
  ram(sums, 'AllowanceTotalAmount', t.allowances);
  ram(sums, 'TaxBasisTotalAmount', t.taxExclusive);
  ram(sums, 'TaxTotalAmount', t.tax, { currencyID: doc.currency ?? '' });
  ram(sums, 'RoundingAmount', t.rounding);
  ram(sums, 'GrandTotalAmount', t.taxInclusive);
  ram(sums, 'TotalPrepaidAmount', t.prepaid);
  ram(sums, 'DuePayableAmount', t.payable);
  if (doc.precedingInvoice) {
    const reference = ram(settlement, 'InvoiceReferencedDocument');
    ram(reference, 'IssuerAssignedID', doc.precedingInvoice.number);
    if (doc.precedingInvoice.issueDate) dateTime(reference, 'FormattedIssueDateTime', doc.precedingInvoice.issueDate, 'qdt');
  }
  return root.end({ prettyPrint: true });
}
