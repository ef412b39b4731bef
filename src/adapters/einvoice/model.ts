// An EN 16931 invoice or credit note as the structured formats carry it: one neutral model that the
// builders (cii.ts, ubl.ts) write and the parser (parse.ts) reads back, so the rules (rules.ts) are
// checked on what the XML says, not on what the builder meant. Names follow the standard's
// business terms (BT-n); amounts are decimal strings as written in the XML.

/** The formats an invoicing entity can opt into (docs/einvoicing.md). */
export type EInvoiceFormat = 'FACTURX' | 'XRECHNUNG_UBL' | 'XRECHNUNG_CII' | 'PEPPOL_BIS';
export const E_INVOICE_FORMATS: readonly EInvoiceFormat[] = ['FACTURX', 'XRECHNUNG_UBL', 'XRECHNUNG_CII', 'PEPPOL_BIS'];

/** UNTDID 5305 VAT category codes we emit (BT-118, BT-151). */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE' | 'G' | 'O';

/** UNTDID 1001: 380 commercial invoice, 381 credit note. */
export type DocumentTypeCode = '380' | '381';

export interface Syntax {
  /** CII (UN/CEFACT Cross Industry Invoice D16B) or UBL 2.1. */
  syntax: 'CII' | 'UBL';
  /** BT-24, the specification identifier. */
  customizationId: string;
  /** BT-23, the business process, where the format asks for one. */
  profileId: string | null;
  /** Factur-X / ZUGFeRD: the name of the XML attached to the PDF/A-3 and its XMP conformance level; null: no hybrid PDF. */
  attachment: { fileName: string; conformanceLevel: string } | null;
}

const EN16931 = 'urn:cen.eu:en16931:2017';
const PEPPOL_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** BT-24 of XRechnung 3.0 and of Peppol BIS Billing 3.0 (their rules check it: BR-DE-21, PEPPOL-EN16931-R004). */
export const XRECHNUNG_3_0 = `${EN16931}#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0`;
export const PEPPOL_BIS_3_0 = `${EN16931}#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0`;

/** What each format writes. XRechnung in CII is attached to the PDF as ZUGFeRD's XRECHNUNG profile names it. */
export const SYNTAXES: Readonly<Record<EInvoiceFormat, Syntax>> = {
  FACTURX: { syntax: 'CII', customizationId: EN16931, profileId: null, attachment: { fileName: 'factur-x.xml', conformanceLevel: 'EN 16931' } },
  XRECHNUNG_CII: { syntax: 'CII', customizationId: XRECHNUNG_3_0, profileId: PEPPOL_PROCESS, attachment: { fileName: 'xrechnung.xml', conformanceLevel: 'XRECHNUNG' } },
  XRECHNUNG_UBL: { syntax: 'UBL', customizationId: XRECHNUNG_3_0, profileId: PEPPOL_PROCESS, attachment: null },
  PEPPOL_BIS: { syntax: 'UBL', customizationId: PEPPOL_BIS_3_0, profileId: PEPPOL_PROCESS, attachment: null },
};

export interface EInvoiceAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  postcode: string | null;
  subdivision: string | null;
  /** ISO 3166-1 alpha-2 (BT-40, BT-55). */
  country: string | null;
}

export interface EInvoiceParty {
  /** BT-27 / BT-44. */
  name: string | null;
  /** BT-31 / BT-48, with its country prefix. */
  vatId: string | null;
  /** BT-32: a tax registration that is not a VAT number (seller only). */
  taxRegistrationId: string | null;
  /** BT-30 / BT-47: company registry number. */
  legalRegistrationId: string | null;
  address: EInvoiceAddress | null;
  /** BT-34 / BT-49 with its EAS scheme (EM: e-mail). */
  electronicAddress: { scheme: string; value: string } | null;
  /** BG-6 seller contact (BT-41 point, BT-42 telephone, BT-43 e-mail); null when none is written (always for the buyer). */
  contact: { name: string | null; phone: string | null; email: string | null } | null;
}

export interface EInvoiceLine {
  /** BT-126. */
  id: string;
  /** BT-153. */
  name: string;
  /** BT-129, with its unit (BT-130, UN/ECE rec. 20: C62 "one"). */
  quantity: string;
  unitCode: string;
  /** BT-146, never negative (BR-27). */
  netPrice: string;
  /** BT-136: the line's discount (coupons), included in the line net amount. */
  allowance: string | null;
  /** BT-131 = quantity × price − allowance. */
  netAmount: string;
  /** BT-151 and BT-152 (percent; null for O, which has no rate). */
  category: VatCategory;
  rate: string | null;
  /** BT-134 / BT-135, inclusive dates. */
  periodStart: string | null;
  periodEnd: string | null;
}

export interface EInvoiceVat {
  category: VatCategory;
  /** Percent (BT-119); null for O. */
  rate: string | null;
  /** BT-116. */
  taxableAmount: string;
  /** BT-117. */
  taxAmount: string;
  /** BT-120 and BT-121 (VATEX code). */
  exemptionReason: string | null;
  exemptionCode: string | null;
}

export interface EInvoiceTotals {
  /** BT-106: Σ line net amounts. */
  lineNet: string;
  /** BT-107 / BT-108: document-level allowances and charges (we put discounts on lines: both 0). */
  allowances: string;
  charges: string;
  /** BT-109. */
  taxExclusive: string;
  /** BT-110. */
  tax: string;
  /** BT-112. */
  taxInclusive: string;
  /** BT-113: paid before (customer balance, prepaid credits, payments). */
  prepaid: string;
  /** BT-114. */
  rounding: string;
  /** BT-115. */
  payable: string;
}

export interface EInvoiceDocument {
  /** BT-24 and BT-23 as written. */
  customizationId: string | null;
  profileId: string | null;
  typeCode: DocumentTypeCode | string | null;
  /** BT-1. */
  number: string | null;
  /** BT-2, BT-9: YYYY-MM-DD. */
  issueDate: string | null;
  dueDate: string | null;
  /** BT-5. */
  currency: string | null;
  /** BT-10 (XRechnung requires it). */
  buyerReference: string | null;
  /** BT-13. */
  purchaseOrder: string | null;
  /** BG-3: the invoice a credit note corrects (BT-25, BT-26). */
  precedingInvoice: { number: string; issueDate: string | null } | null;
  /** BT-22. */
  notes: string[];
  /** BG-14, inclusive dates. */
  periodStart: string | null;
  periodEnd: string | null;
  seller: EInvoiceParty;
  buyer: EInvoiceParty;
  /** BG-16: UNTDID 4461 code (58 SEPA credit transfer, 30 credit transfer), account and remittance information. */
  payment: { meansCode: string; iban: string | null; accountNumber: string | null; accountName: string | null; bic: string | null; remittance: string | null } | null;
  /** BT-20. */
  paymentTerms: string | null;
  lines: EInvoiceLine[];
  vat: EInvoiceVat[];
  totals: EInvoiceTotals;
}

/** One failed rule: its official id (BR-CO-10...) and what was found. */
export interface RuleFailure {
  rule: string;
  message: string;
}

/** xmlbuilder2's `create`, which the builders take from the caller: the library is imported at the first document (index.ts). */
export type XmlCreate = typeof import('xmlbuilder2').create;
