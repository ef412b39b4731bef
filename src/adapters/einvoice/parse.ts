// Reads a CII or UBL document back into the neutral model with fast-xml-parser, independently of
// the builders: the rules are checked on what this reads, so a builder that drops or misplaces a
// value is caught. Namespace prefixes are dropped (the element names of each syntax are distinct
// enough); every value is kept as the text written.
import type { XMLParser } from 'fast-xml-parser';
import { atFirstUse } from '../../kernel/lazy.js';
import type { EInvoiceAddress, EInvoiceDocument, EInvoiceLine, EInvoiceParty, EInvoiceVat, VatCategory } from './model.js';

type Node = Record<string, unknown>;

/** The parser, made at the first document: fast-xml-parser is imported then, not when the server starts (docs/performance.md, "Memory"). */
const xmlParser = atFirstUse(async (): Promise<XMLParser> => {
  const { XMLParser } = await import('fast-xml-parser');
  return new XMLParser(PARSER_OPTIONS);
});

const PARSER_OPTIONS = {
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // every element is a list, so a repeated element never changes the shape
  isArray: (_name: string, _path: unknown, _leaf: boolean, isAttribute: boolean) => !isAttribute,
};

const all = (node: Node | undefined, name: string): Node[] => {
  const value = node?.[name];
  return Array.isArray(value) ? (value as unknown[]).map((v) => (typeof v === 'object' && v !== null ? (v as Node) : { '#text': v })) : [];
};
const one = (node: Node | undefined, ...path: string[]): Node | undefined => {
  let current = node;
  for (const name of path) current = all(current, name)[0];
  return current;
};
const text = (node: Node | undefined, ...path: string[]): string | null => {
  const found = one(node, ...path);
  if (found === undefined) return null;
  const value = found['#text'];
  return value === undefined || value === null ? '' : String(value);
};
const attribute = (node: Node | undefined, name: string): string | null => {
  const value = node?.[`@${name}`];
  return value === undefined ? null : String(value);
};
/** 20260401 (format 102) as 2026-04-01; anything else as written. */
const fromDate102 = (value: string | null): string | null =>
  value !== null && /^\d{8}$/.test(value) ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}` : value;

/** Which syntax a document is in, by its root element. */
export async function parseEInvoice(xml: string): Promise<EInvoiceDocument> {
  const root = (await xmlParser()).parse(xml) as Node;
  const cii = one(root, 'CrossIndustryInvoice');
  if (cii) return fromCii(cii);
  const ubl = one(root, 'Invoice') ?? one(root, 'CreditNote');
  if (ubl) return fromUbl(ubl, one(root, 'CreditNote') !== undefined);
  throw new Error('not a CII CrossIndustryInvoice nor a UBL Invoice or CreditNote');
}

// ---- CII ----

function ciiParty(node: Node | undefined): EInvoiceParty {
  const address = one(node, 'PostalTradeAddress');
  const registrations = all(node, 'SpecifiedTaxRegistration').map((r) => one(r, 'ID'));
  const uri = one(node, 'URIUniversalCommunication', 'URIID');
  const contact = one(node, 'DefinedTradeContact');
  return {
    name: text(node, 'Name'),
    vatId: text(registrations.find((id) => attribute(id, 'schemeID') === 'VA')),
    taxRegistrationId: text(registrations.find((id) => attribute(id, 'schemeID') === 'FC')),
    legalRegistrationId: text(node, 'SpecifiedLegalOrganization', 'ID'),
    address: address
      ? {
          line1: text(address, 'LineOne'), line2: text(address, 'LineTwo'), city: text(address, 'CityName'), postcode: text(address, 'PostcodeCode'),
          subdivision: text(address, 'CountrySubDivisionName'), country: text(address, 'CountryID'),
        }
      : null,
    electronicAddress: uri ? { scheme: attribute(uri, 'schemeID') ?? '', value: text(uri) ?? '' } : null,
    contact: contact
      ? { name: text(contact, 'PersonName'), phone: text(contact, 'TelephoneUniversalCommunication', 'CompleteNumber'), email: text(contact, 'EmailURIUniversalCommunication', 'URIID') }
      : null,
  };
}

const ciiDate = (node: Node | undefined, name: string) => fromDate102(text(node, name, 'DateTimeString'));

function fromCii(root: Node): EInvoiceDocument {
  const context = one(root, 'ExchangedDocumentContext');
  const header = one(root, 'ExchangedDocument');
  const transaction = one(root, 'SupplyChainTradeTransaction');
  const agreement = one(transaction, 'ApplicableHeaderTradeAgreement');
  const settlement = one(transaction, 'ApplicableHeaderTradeSettlement');
  const means = one(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  const sums = one(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const terms = one(settlement, 'SpecifiedTradePaymentTerms');
  const period = one(settlement, 'BillingSpecifiedPeriod');
  const preceding = one(settlement, 'InvoiceReferencedDocument');
  const lines: EInvoiceLine[] = all(transaction, 'IncludedSupplyChainTradeLineItem').map((item) => {
    const lineSettlement = one(item, 'SpecifiedLineTradeSettlement');
    const quantity = one(item, 'SpecifiedLineTradeDelivery', 'BilledQuantity');
    const linePeriod = one(lineSettlement, 'BillingSpecifiedPeriod');
    const allowance = all(lineSettlement, 'SpecifiedTradeAllowanceCharge').find((a) => text(a, 'ChargeIndicator', 'Indicator') === 'false');
    return {
      id: text(item, 'AssociatedDocumentLineDocument', 'LineID') ?? '',
      name: text(item, 'SpecifiedTradeProduct', 'Name') ?? '',
      quantity: text(quantity) ?? '',
      unitCode: attribute(quantity, 'unitCode') ?? '',
      netPrice: text(item, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount') ?? '',
      allowance: allowance ? text(allowance, 'ActualAmount') : null,
      netAmount: text(lineSettlement, 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount') ?? '',
      category: (text(lineSettlement, 'ApplicableTradeTax', 'CategoryCode') ?? '') as VatCategory,
      rate: text(lineSettlement, 'ApplicableTradeTax', 'RateApplicablePercent'),
      periodStart: ciiDate(linePeriod, 'StartDateTime'),
      periodEnd: ciiDate(linePeriod, 'EndDateTime'),
    };
  });
  const vat: EInvoiceVat[] = all(settlement, 'ApplicableTradeTax').map((tax) => ({
    category: (text(tax, 'CategoryCode') ?? '') as VatCategory,
    rate: text(tax, 'RateApplicablePercent'),
    taxableAmount: text(tax, 'BasisAmount') ?? '',
    taxAmount: text(tax, 'CalculatedAmount') ?? '',
    exemptionReason: text(tax, 'ExemptionReason'),
    exemptionCode: text(tax, 'ExemptionReasonCode'),
  }));
  const account = one(means, 'PayeePartyCreditorFinancialAccount');
  return {
    customizationId: text(context, 'GuidelineSpecifiedDocumentContextParameter', 'ID'),
    profileId: text(context, 'BusinessProcessSpecifiedDocumentContextParameter', 'ID'),
    typeCode: text(header, 'TypeCode'),
    number: text(header, 'ID'),
    issueDate: ciiDate(header, 'IssueDateTime'),
    dueDate: ciiDate(terms, 'DueDateDateTime'),
    currency: text(settlement, 'InvoiceCurrencyCode'),
    buyerReference: text(agreement, 'BuyerReference'),
    purchaseOrder: text(agreement, 'BuyerOrderReferencedDocument', 'IssuerAssignedID'),
    precedingInvoice: preceding ? { number: text(preceding, 'IssuerAssignedID') ?? '', issueDate: ciiDate(preceding, 'FormattedIssueDateTime') } : null,
    notes: all(header, 'IncludedNote').map((note) => text(note, 'Content') ?? ''),
    periodStart: ciiDate(period, 'StartDateTime'),
    periodEnd: ciiDate(period, 'EndDateTime'),
    seller: ciiParty(one(agreement, 'SellerTradeParty')),
    buyer: ciiParty(one(agreement, 'BuyerTradeParty')),
    payment: means
      ? {
          meansCode: text(means, 'TypeCode') ?? '', iban: text(account, 'IBANID'), accountNumber: text(account, 'ProprietaryID'),
          accountName: text(account, 'AccountName'), bic: text(means, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID'),
          remittance: text(settlement, 'PaymentReference'),
        }
      : null,
    paymentTerms: text(terms, 'Description'),
    lines,
    vat,
    totals: {
      lineNet: text(sums, 'LineTotalAmount') ?? '',
      allowances: text(sums, 'AllowanceTotalAmount') ?? '0',
      charges: text(sums, 'ChargeTotalAmount') ?? '0',
      taxExclusive: text(sums, 'TaxBasisTotalAmount') ?? '',
      tax: text(sums, 'TaxTotalAmount') ?? '0',
      taxInclusive: text(sums, 'GrandTotalAmount') ?? '',
      prepaid: text(sums, 'TotalPrepaidAmount') ?? '0',
      rounding: text(sums, 'RoundingAmount') ?? '0',
      payable: text(sums, 'DuePayableAmount') ?? '',
    },
  };
}

// ---- UBL ----

function ublParty(node: Node | undefined): EInvoiceParty {
  const party = one(node, 'Party');
  const address = one(party, 'PostalAddress');
  const schemes = all(party, 'PartyTaxScheme');
  const endpoint = one(party, 'EndpointID');
  const contact = one(party, 'Contact');
  const ublAddress: EInvoiceAddress | null = address
    ? {
        line1: text(address, 'StreetName'), line2: text(address, 'AdditionalStreetName'), city: text(address, 'CityName'), postcode: text(address, 'PostalZone'),
        subdivision: text(address, 'CountrySubentity'), country: text(address, 'Country', 'IdentificationCode'),
      }
    : null;
  return {
    name: text(party, 'PartyLegalEntity', 'RegistrationName'),
    vatId: text(schemes.find((s) => text(s, 'TaxScheme', 'ID') === 'VAT'), 'CompanyID'),
    taxRegistrationId: text(schemes.find((s) => text(s, 'TaxScheme', 'ID') !== 'VAT'), 'CompanyID'),
    legalRegistrationId: text(party, 'PartyLegalEntity', 'CompanyID'),
    address: ublAddress,
    electronicAddress: endpoint ? { scheme: attribute(endpoint, 'schemeID') ?? '', value: text(endpoint) ?? '' } : null,
    contact: contact ? { name: text(contact, 'Name'), phone: text(contact, 'Telephone'), email: text(contact, 'ElectronicMail') } : null,
  };
}

function fromUbl(root: Node, credit: boolean): EInvoiceDocument {
  const period = one(root, 'InvoicePeriod');
  const means = one(root, 'PaymentMeans');
  const account = one(means, 'PayeeFinancialAccount');
  const iban = text(account, 'ID');
  const sums = one(root, 'LegalMonetaryTotal');
  const taxTotal = one(root, 'TaxTotal');
  const preceding = one(root, 'BillingReference', 'InvoiceDocumentReference');
  const lines: EInvoiceLine[] = all(root, credit ? 'CreditNoteLine' : 'InvoiceLine').map((line) => {
    const quantity = one(line, credit ? 'CreditedQuantity' : 'InvoicedQuantity');
    const allowance = all(line, 'AllowanceCharge').find((a) => text(a, 'ChargeIndicator') === 'false');
    const linePeriod = one(line, 'InvoicePeriod');
    return {
      id: text(line, 'ID') ?? '',
      name: text(line, 'Item', 'Name') ?? '',
      quantity: text(quantity) ?? '',
      unitCode: attribute(quantity, 'unitCode') ?? '',
      netPrice: text(line, 'Price', 'PriceAmount') ?? '',
      allowance: allowance ? text(allowance, 'Amount') : null,
      netAmount: text(line, 'LineExtensionAmount') ?? '',
      category: (text(line, 'Item', 'ClassifiedTaxCategory', 'ID') ?? '') as VatCategory,
      rate: text(line, 'Item', 'ClassifiedTaxCategory', 'Percent'),
      periodStart: text(linePeriod, 'StartDate'),
      periodEnd: text(linePeriod, 'EndDate'),
    };
  });
  const vat: EInvoiceVat[] = all(taxTotal, 'TaxSubtotal').map((subtotal) => ({
    category: (text(subtotal, 'TaxCategory', 'ID') ?? '') as VatCategory,
    rate: text(subtotal, 'TaxCategory', 'Percent'),
    taxableAmount: text(subtotal, 'TaxableAmount') ?? '',
    taxAmount: text(subtotal, 'TaxAmount') ?? '',
    exemptionReason: text(subtotal, 'TaxCategory', 'TaxExemptionReason'),
    exemptionCode: text(subtotal, 'TaxCategory', 'TaxExemptionReasonCode'),
  }));
  return {
    customizationId: text(root, 'CustomizationID'),
    profileId: text(root, 'ProfileID'),
    typeCode: text(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode'),
    number: text(root, 'ID'),
    issueDate: text(root, 'IssueDate'),
    dueDate: credit ? text(means, 'PaymentDueDate') : text(root, 'DueDate'),
    currency: text(root, 'DocumentCurrencyCode'),
    buyerReference: text(root, 'BuyerReference'),
    purchaseOrder: text(root, 'OrderReference', 'ID'),
    precedingInvoice: preceding ? { number: text(preceding, 'ID') ?? '', issueDate: text(preceding, 'IssueDate') } : null,
    notes: all(root, 'Note').map((note) => text(note) ?? ''),
    periodStart: text(period, 'StartDate'),
    periodEnd: text(period, 'EndDate'),
    seller: ublParty(one(root, 'AccountingSupplierParty')),
    buyer: ublParty(one(root, 'AccountingCustomerParty')),
    payment: means
      ? {
          meansCode: text(means, 'PaymentMeansCode') ?? '', iban: iban && /^[A-Z]{2}\d{2}/.test(iban) ? iban : null, accountNumber: iban && !/^[A-Z]{2}\d{2}/.test(iban) ? iban : null,
          accountName: text(account, 'Name'), bic: text(account, 'FinancialInstitutionBranch', 'ID'), remittance: text(means, 'PaymentID'),
        }
      : null,
    paymentTerms: text(root, 'PaymentTerms', 'Note'),
    lines,
    vat,
    totals: {
      lineNet: text(sums, 'LineExtensionAmount') ?? '',
      allowances: text(sums, 'AllowanceTotalAmount') ?? '0',
      charges: text(sums, 'ChargeTotalAmount') ?? '0',
      taxExclusive: text(sums, 'TaxExclusiveAmount') ?? '',
      tax: text(taxTotal, 'TaxAmount') ?? '0',
      taxInclusive: text(sums, 'TaxInclusiveAmount') ?? '',
      prepaid: text(sums, 'PrepaidAmount') ?? '0',
      rounding: text(sums, 'PayableRoundingAmount') ?? '0',
      payable: text(sums, 'PayableAmount') ?? '',
    },
  };
}
