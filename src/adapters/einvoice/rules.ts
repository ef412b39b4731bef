// The EN 16931 business rules this project checks, by their official ids, over a parsed document
// (parse.ts). Each rule returns the failures it finds, with the values involved. The table is the
// list docs/einvoicing.md prints; it covers the core rules (BR-01..), the calculation rules
// (BR-CO-..), the decimal rules (BR-DEC-..) and the VAT-category rules of the categories we emit
// (S, Z, E, AE, G, O), then the rules of the two CIUS we write, XRechnung (BR-DE-..) and Peppol
// BIS Billing 3.0 (PEPPOL-EN16931-..), which run on the documents that declare that specification.
// It is not the whole standard (docs/einvoicing.md says what is left out).
import type { Decimal } from 'decimal.js';
import { Dec, formatMinor, minorToDecimal, toMinor } from '../../kernel/money.js';
import { PEPPOL_BIS_3_0, XRECHNUNG_3_0, type EInvoiceDocument, type EInvoiceLine, type EInvoiceVat, type RuleFailure, type VatCategory } from './model.js';

/** EN16931: every document; XRECHNUNG, PEPPOL: the documents whose specification identifier (BT-24) names that CIUS. */
export type RuleSet = 'EN16931' | 'XRECHNUNG' | 'PEPPOL';

export interface Rule {
  id: string;
  /** The rule as the standard states it, shortened. */
  text: string;
  /** Where the rule comes from; EN16931 when absent. */
  set?: RuleSet;
  check(doc: EInvoiceDocument): string[];
}


/** The rule sets a document is checked against: EN 16931, plus the CIUS its BT-24 declares. */
export function ruleSetsOf(doc: EInvoiceDocument): RuleSet[] {
  const id = doc.customizationId ?? '';
  return ['EN16931', ...(id.includes('urn:xeinkauf.de:kosit:xrechnung') ? ['XRECHNUNG' as const] : []), ...(id.includes('urn:fdc:peppol.eu:2017:poacc:billing:3.0') ? ['PEPPOL' as const] : [])];
}

const present = (value: string | null | undefined): boolean => value !== null && value !== undefined && value.trim() !== '';
const isNumber = (value: string | null | undefined): boolean => present(value) && /^-?\d+(\.\d+)?$/.test(value!.trim());
const num = (value: string | null | undefined): Decimal => (isNumber(value) ? new Dec(value!.trim()) : new Dec(0));
const sum = (values: (string | null | undefined)[]): Decimal => values.reduce((total: Decimal, value) => total.plus(num(value)), new Dec(0));
const decimals = (value: string | null | undefined): number => (present(value) ? (value!.split('.')[1] ?? '').length : 0);
const rateOf = (value: string | null): Decimal => num(value);
/**
 * The currency BR-CO-17 rounds in: the document's, so a 0-decimal currency (JPY) is rounded to its
 * unit and a 3-decimal one (KWD, BHD) to its fils (BR-DEC already reports those amounts: one
 * failure, not two). An unreadable currency (BR-05) rounds to two decimals, as EUR does.
 */
const taxCurrencyOf = (currency: string | null): string => (currency !== null && /^[A-Z]{3}$/.test(currency) ? currency : 'EUR');
const sameRate = (a: string | null, b: string | null): boolean => (a === null || b === null ? a === b : rateOf(a).equals(rateOf(b)));
/** BR-CO-09: a VAT identifier starts with its ISO 3166-1 country code (Greece: EL). */
const VAT_PREFIX = /^[A-Z]{2}/;

const when = (failed: boolean, message: string): string[] => (failed ? [message] : []);
const perLine = (doc: EInvoiceDocument, failed: (line: EInvoiceLine) => boolean, message: (line: EInvoiceLine) => string): string[] =>
  doc.lines.filter(failed).map(message);
const linesOf = (doc: EInvoiceDocument, category: VatCategory) => doc.lines.filter((line) => line.category === category);
const rowsOf = (doc: EInvoiceDocument, category: VatCategory) => doc.vat.filter((row) => row.category === category);
const sellerHasVatId = (doc: EInvoiceDocument) => present(doc.seller.vatId) || present(doc.seller.taxRegistrationId);

/** BR-x-08: the taxable amount of a category (and rate) is the sum of its lines' net amounts (no document allowances or charges are emitted). */
function taxableMatchesLines(doc: EInvoiceDocument, category: VatCategory, byRate: boolean): string[] {
  return rowsOf(doc, category).flatMap((row) => {
    const lines = linesOf(doc, category).filter((line) => !byRate || sameRate(line.rate, row.rate));
    const expected = sum(lines.map((line) => line.netAmount));
    return when(!num(row.taxableAmount).equals(expected),
      `VAT breakdown ${category}${byRate ? ` ${row.rate ?? ''}%` : ''}: taxable amount (BT-116) ${row.taxableAmount} must equal the sum of its line net amounts (BT-131), ${expected.toString()}`);
  });
}

/** BR-x-01: a category used on a line has a row in the VAT breakdown. */
function categoryInBreakdown(doc: EInvoiceDocument, category: VatCategory): string[] {
  return when(linesOf(doc, category).length > 0 && rowsOf(doc, category).length === 0, `lines of VAT category ${category} but no VAT breakdown (BG-23) of category ${category}`);
}

/** The rules shared by the zero-tax categories: rates 0, tax 0, a reason or none. */
function zeroTaxRules(category: 'Z' | 'E' | 'AE' | 'G', needsReason: boolean): Rule[] {
  const reasonRule: Rule = needsReason
    ? {
        id: `BR-${category}-10`, text: `A VAT breakdown of category ${category} has an exemption reason code (BT-121) or text (BT-120).`,
        check: (doc) => rowsOf(doc, category).flatMap((row) => when(!present(row.exemptionReason) && !present(row.exemptionCode), `VAT breakdown ${category} has no exemption reason (BT-120) or code (BT-121)`)),
      }
    : {
        id: `BR-${category}-10`, text: `A VAT breakdown of category ${category} has no exemption reason (BT-120, BT-121).`,
        check: (doc) => rowsOf(doc, category).flatMap((row) => when(present(row.exemptionReason) || present(row.exemptionCode), `VAT breakdown ${category} must not carry an exemption reason`)),
      };
  return [
    { id: `BR-${category}-01`, text: `Lines of category ${category} need a VAT breakdown of category ${category}.`, check: (doc) => categoryInBreakdown(doc, category) },
    {
      id: `BR-${category}-05`, text: `A line of category ${category} has a VAT rate (BT-152) of 0.`,
      check: (doc) => perLine(doc, (line) => line.category === category && !(isNumber(line.rate) && rateOf(line.rate).isZero()), (line) => `line ${line.id}: category ${category} needs rate 0, got ${line.rate ?? 'none'}`),
    },
    { id: `BR-${category}-08`, text: `The taxable amount of category ${category} is the sum of its line net amounts.`, check: (doc) => taxableMatchesLines(doc, category, false) },
    {
      id: `BR-${category}-09`, text: `The VAT amount (BT-117) of category ${category} is 0.`,
      check: (doc) => rowsOf(doc, category).flatMap((row) => when(!num(row.taxAmount).isZero(), `VAT breakdown ${category}: tax amount ${row.taxAmount} must be 0`)),
    },
    reasonRule,
  ];
}

export const RULES: readonly Rule[] = [
  { id: 'BR-01', text: 'An invoice has a specification identifier (BT-24).', check: (doc) => when(!present(doc.customizationId), 'the specification identifier (BT-24) is missing') },
  { id: 'BR-02', text: 'An invoice has an invoice number (BT-1).', check: (doc) => when(!present(doc.number), 'the invoice number (BT-1) is missing') },
  {
    id: 'BR-03', text: 'An invoice has an issue date (BT-2).',
    check: (doc) => when(!present(doc.issueDate) || !/^\d{4}-\d{2}-\d{2}$/.test(doc.issueDate!), `the issue date (BT-2) is missing or not a date: '${doc.issueDate ?? ''}'`),
  },
  { id: 'BR-04', text: 'An invoice has a type code (BT-3).', check: (doc) => when(doc.typeCode !== '380' && doc.typeCode !== '381', `the type code (BT-3) must be 380 or 381, got '${doc.typeCode ?? ''}'`) },
  { id: 'BR-05', text: 'An invoice has a currency code (BT-5).', check: (doc) => when(!present(doc.currency) || !/^[A-Z]{3}$/.test(doc.currency!), `the currency code (BT-5) must be ISO 4217, got '${doc.currency ?? ''}'`) },
  { id: 'BR-06', text: 'An invoice has the seller name (BT-27).', check: (doc) => when(!present(doc.seller.name), 'the seller name (BT-27) is missing') },
  { id: 'BR-07', text: 'An invoice has the buyer name (BT-44).', check: (doc) => when(!present(doc.buyer.name), 'the buyer name (BT-44) is missing') },
  { id: 'BR-08', text: 'An invoice has the seller postal address (BG-5).', check: (doc) => when(doc.seller.address === null, 'the seller postal address (BG-5) is missing') },
  { id: 'BR-09', text: 'The seller postal address has a country code (BT-40).', check: (doc) => when(!present(doc.seller.address?.country), 'the seller country code (BT-40) is missing') },
  { id: 'BR-10', text: 'An invoice has the buyer postal address (BG-8).', check: (doc) => when(doc.buyer.address === null, 'the buyer postal address (BG-8) is missing: set the customer\'s billing_address') },
  { id: 'BR-11', text: 'The buyer postal address has a country code (BT-55).', check: (doc) => when(!present(doc.buyer.address?.country), 'the buyer country code (BT-55) is missing: set billing_address.country on the customer') },
  { id: 'BR-12', text: 'An invoice has the sum of invoice line net amounts (BT-106).', check: (doc) => when(!isNumber(doc.totals.lineNet), 'the sum of line net amounts (BT-106) is missing') },
  { id: 'BR-13', text: 'An invoice has the total amount without VAT (BT-109).', check: (doc) => when(!isNumber(doc.totals.taxExclusive), 'the total without VAT (BT-109) is missing') },
  { id: 'BR-14', text: 'An invoice has the total amount with VAT (BT-112).', check: (doc) => when(!isNumber(doc.totals.taxInclusive), 'the total with VAT (BT-112) is missing') },
  { id: 'BR-15', text: 'An invoice has the amount due for payment (BT-115).', check: (doc) => when(!isNumber(doc.totals.payable), 'the amount due for payment (BT-115) is missing') },
  { id: 'BR-16', text: 'An invoice has at least one invoice line (BG-25).', check: (doc) => when(doc.lines.length === 0, 'the invoice has no line') },
  { id: 'BR-21', text: 'Each line has a line identifier (BT-126).', check: (doc) => perLine(doc, (line) => !present(line.id), () => 'a line has no identifier (BT-126)') },
  { id: 'BR-22', text: 'Each line has an invoiced quantity (BT-129).', check: (doc) => perLine(doc, (line) => !isNumber(line.quantity), (line) => `line ${line.id}: the quantity (BT-129) is missing`) },
  { id: 'BR-23', text: 'Each line has a unit of measure (BT-130).', check: (doc) => perLine(doc, (line) => !present(line.unitCode), (line) => `line ${line.id}: the unit of measure (BT-130) is missing`) },
  { id: 'BR-24', text: 'Each line has a line net amount (BT-131).', check: (doc) => perLine(doc, (line) => !isNumber(line.netAmount), (line) => `line ${line.id}: the net amount (BT-131) is missing`) },
  { id: 'BR-25', text: 'Each line has an item name (BT-153).', check: (doc) => perLine(doc, (line) => !present(line.name), (line) => `line ${line.id}: the item name (BT-153) is missing`) },
  { id: 'BR-26', text: 'Each line has an item net price (BT-146).', check: (doc) => perLine(doc, (line) => !isNumber(line.netPrice), (line) => `line ${line.id}: the net price (BT-146) is missing`) },
  { id: 'BR-27', text: 'The item net price (BT-146) is not negative.', check: (doc) => perLine(doc, (line) => num(line.netPrice).isNegative(), (line) => `line ${line.id}: the net price ${line.netPrice} is negative`) },
  {
    id: 'BR-45', text: 'Each VAT breakdown has a taxable amount (BT-116) and BR-46 a tax amount (BT-117).',
    check: (doc) => doc.vat.flatMap((row) => when(!isNumber(row.taxableAmount) || !isNumber(row.taxAmount), `VAT breakdown ${row.category}: taxable or tax amount missing`)),
  },
  { id: 'BR-47', text: 'Each VAT breakdown has a VAT category code (BT-118).', check: (doc) => doc.vat.flatMap((row) => when(!present(row.category), 'a VAT breakdown has no category code (BT-118)')) },
  {
    id: 'BR-48', text: 'Each VAT breakdown has a rate (BT-119), except category O.',
    check: (doc) => doc.vat.flatMap((row) => when(row.category !== 'O' && !isNumber(row.rate), `VAT breakdown ${row.category} has no rate (BT-119)`)),
  },
  {
    id: 'BR-55', text: 'A credit note (381) refers to the preceding invoice (BT-25).',
    check: (doc) => when(doc.typeCode === '381' && !present(doc.precedingInvoice?.number), 'the credit note does not name the invoice it corrects (BT-25)'),
  },
  {
    id: 'BR-CO-09', text: 'VAT identifiers (BT-31, BT-48) start with an ISO 3166-1 alpha-2 country code.',
    check: (doc) => [['seller', doc.seller.vatId], ['buyer', doc.buyer.vatId]].flatMap(([who, id]) => when(present(id) && !VAT_PREFIX.test(id!), `the ${who} VAT identifier '${id}' does not start with a country code, e.g. 'FR40123456824'`)),
  },
  {
    id: 'BR-CO-10', text: 'Sum of line net amounts (BT-106) = Σ line net amounts (BT-131).',
    check: (doc) => {
      const expected = sum(doc.lines.map((line) => line.netAmount));
      return when(!num(doc.totals.lineNet).equals(expected), `sum of line net amounts (BT-106) is ${doc.totals.lineNet}, the lines add up to ${expected.toString()}`);
    },
  },
  { id: 'BR-CO-11', text: 'Sum of allowances on document level (BT-107) = Σ document allowances (BT-92); none are emitted.', check: (doc) => when(!num(doc.totals.allowances).isZero(), `document allowances (BT-107) are ${doc.totals.allowances} but the document has none`) },
  { id: 'BR-CO-12', text: 'Sum of charges on document level (BT-108) = Σ document charges (BT-99); none are emitted.', check: (doc) => when(!num(doc.totals.charges).isZero(), `document charges (BT-108) are ${doc.totals.charges} but the document has none`) },
  {
    id: 'BR-CO-13', text: 'Total without VAT (BT-109) = Σ line net (BT-131) − allowances (BT-107) + charges (BT-108).',
    check: (doc) => {
      const expected = sum(doc.lines.map((line) => line.netAmount)).minus(num(doc.totals.allowances)).plus(num(doc.totals.charges));
      return when(!num(doc.totals.taxExclusive).equals(expected), `total without VAT (BT-109) is ${doc.totals.taxExclusive}, expected ${expected.toString()}`);
    },
  },
  {
    id: 'BR-CO-14', text: 'Total VAT (BT-110) = Σ VAT category tax amounts (BT-117).',
    check: (doc) => {
      const expected = sum(doc.vat.map((row) => row.taxAmount));
      return when(!num(doc.totals.tax).equals(expected), `total VAT (BT-110) is ${doc.totals.tax}, the VAT breakdown adds up to ${expected.toString()}`);
    },
  },
  {
    id: 'BR-CO-15', text: 'Total with VAT (BT-112) = total without VAT (BT-109) + total VAT (BT-110).',
    check: (doc) => {
      const expected = num(doc.totals.taxExclusive).plus(num(doc.totals.tax));
      return when(!num(doc.totals.taxInclusive).equals(expected), `total with VAT (BT-112) is ${doc.totals.taxInclusive}, expected ${expected.toString()}`);
    },
  },
  {
    id: 'BR-CO-16', text: 'Amount due (BT-115) = total with VAT (BT-112) − paid amount (BT-113) + rounding (BT-114).',
    check: (doc) => {
      const expected = num(doc.totals.taxInclusive).minus(num(doc.totals.prepaid)).plus(num(doc.totals.rounding));
      return when(!num(doc.totals.payable).equals(expected), `amount due (BT-115) is ${doc.totals.payable}, expected ${expected.toString()}`);
    },
  },
  {
    id: 'BR-CO-17',
    text: 'VAT category tax amount (BT-117) = taxable amount (BT-116) × rate (BT-119) / 100, rounded to the currency\'s minor unit; within one currency unit, as the CEN schematron checks it, because tax is rounded per line.',
    check: (doc) => doc.vat.flatMap((row: EInvoiceVat) => {
      if (row.rate === null) return when(!num(row.taxAmount).isZero(), `VAT breakdown ${row.category} without a rate must have a tax amount of 0, got ${row.taxAmount}`);
      const currency = taxCurrencyOf(doc.currency);
      // rounded by the money module's one rounding point, as the invoice's own tax is
      const expectedMinor = toMinor(num(row.taxableAmount).times(rateOf(row.rate)).div(100), currency);
      const expected = minorToDecimal(expectedMinor, currency);
      // Tax is rounded per invoice line (docs/billing-math.md), so a rate's tax is the sum of its
      // rounded lines and may differ from the rounded product by a few minor units. The CEN
      // schematron allows one currency unit for that reason; a stricter check would mark valid
      // invoices INVALID without any amount being wrong.
      return when(num(row.taxAmount).minus(expected).abs().greaterThan(1),
        `VAT breakdown ${row.category} ${row.rate}%: tax amount (BT-117) ${row.taxAmount} is not ${row.taxableAmount} × ${row.rate}% = ${formatMinor(expectedMinor, currency)}`);
    }),
  },
  { id: 'BR-CO-18', text: 'An invoice has at least one VAT breakdown (BG-23).', check: (doc) => when(doc.vat.length === 0, 'the invoice has no VAT breakdown (BG-23)') },
  {
    id: 'BR-CO-25', text: 'A positive amount due (BT-115) needs a payment due date (BT-9) or payment terms (BT-20).',
    check: (doc) => when(num(doc.totals.payable).greaterThan(0) && !present(doc.dueDate) && !present(doc.paymentTerms), 'an amount is due but there is no due date (BT-9) nor payment terms (BT-20)'),
  },
  {
    id: 'BR-DEC', text: 'Amounts have at most two decimals (BR-DEC-09..20 on the totals and the VAT breakdown, BR-DEC-23 on line net amounts).',
    check: (doc) => {
      const amounts: [string, string][] = [
        ['BT-106', doc.totals.lineNet], ['BT-107', doc.totals.allowances], ['BT-108', doc.totals.charges], ['BT-109', doc.totals.taxExclusive], ['BT-110', doc.totals.tax],
        ['BT-112', doc.totals.taxInclusive], ['BT-113', doc.totals.prepaid], ['BT-114', doc.totals.rounding], ['BT-115', doc.totals.payable],
        ...doc.vat.flatMap((row): [string, string][] => [['BT-116', row.taxableAmount], ['BT-117', row.taxAmount]]),
        ...doc.lines.map((line): [string, string] => ['BT-131', line.netAmount]),
      ];
      return amounts.filter(([, value]) => decimals(value) > 2).map(([term, value]) => `${term} ${value} has more than two decimals`);
    },
  },
  // Standard rate
  { id: 'BR-S-01', text: 'Lines of category S need a VAT breakdown of category S.', check: (doc) => categoryInBreakdown(doc, 'S') },
  {
    id: 'BR-S-02', text: 'An invoice with category S has the seller VAT identifier (BT-31) or tax registration (BT-32).',
    check: (doc) => when(linesOf(doc, 'S').length > 0 && !sellerHasVatId(doc), 'standard-rated lines but the seller has no VAT identifier (BT-31): set vat_number on the invoicing entity'),
  },
  {
    id: 'BR-S-05', text: 'A line of category S has a rate (BT-152) above 0.',
    check: (doc) => perLine(doc, (line) => line.category === 'S' && !(isNumber(line.rate) && rateOf(line.rate).greaterThan(0)), (line) => `line ${line.id}: category S needs a rate above 0, got ${line.rate ?? 'none'}`),
  },
  { id: 'BR-S-08', text: 'For each rate of category S, the taxable amount is the sum of the line net amounts at that rate.', check: (doc) => taxableMatchesLines(doc, 'S', true) },
  {
    id: 'BR-S-10', text: 'A VAT breakdown of category S has no exemption reason.',
    check: (doc) => rowsOf(doc, 'S').flatMap((row) => when(present(row.exemptionReason) || present(row.exemptionCode), 'VAT breakdown S must not carry an exemption reason')),
  },
  // Zero rated, exempt, reverse charge, export
  ...zeroTaxRules('Z', false),
  {
    id: 'BR-Z-02', text: 'An invoice with category Z has the seller VAT identifier (BT-31) or tax registration (BT-32).',
    check: (doc) => when(linesOf(doc, 'Z').length > 0 && !sellerHasVatId(doc), 'zero-rated lines but the seller has no VAT identifier (BT-31): set vat_number on the invoicing entity'),
  },
  ...zeroTaxRules('E', true),
  {
    id: 'BR-E-02', text: 'An invoice with category E has the seller VAT identifier (BT-31) or tax registration (BT-32).',
    check: (doc) => when(linesOf(doc, 'E').length > 0 && !sellerHasVatId(doc), 'exempt lines but the seller has no VAT identifier (BT-31): set vat_number on the invoicing entity'),
  },
  ...zeroTaxRules('AE', true),
  {
    id: 'BR-AE-02', text: 'An invoice with category AE has the seller VAT identifier (BT-31) and the buyer VAT identifier (BT-48) or legal registration (BT-47).',
    check: (doc) => when(linesOf(doc, 'AE').length > 0 && (!sellerHasVatId(doc) || (!present(doc.buyer.vatId) && !present(doc.buyer.legalRegistrationId))),
      'reverse charge needs the seller VAT identifier (BT-31, vat_number of the invoicing entity) and the buyer VAT identifier (BT-48, vat_number of the customer)'),
  },
  ...zeroTaxRules('G', true),
  {
    id: 'BR-G-02', text: 'An invoice with category G has the seller VAT identifier (BT-31) or tax registration (BT-32).',
    check: (doc) => when(linesOf(doc, 'G').length > 0 && !sellerHasVatId(doc), 'export lines but the seller has no VAT identifier (BT-31): set vat_number on the invoicing entity'),
  },
  // Not subject to VAT
  { id: 'BR-O-01', text: 'Lines of category O need a VAT breakdown of category O.', check: (doc) => categoryInBreakdown(doc, 'O') },
  {
    id: 'BR-O-02', text: 'An invoice with category O has no seller VAT identifier (BT-31) nor buyer VAT identifier (BT-48).',
    check: (doc) => when(linesOf(doc, 'O').length > 0 && (present(doc.seller.vatId) || present(doc.buyer.vatId)), 'lines not subject to VAT, but the seller or the buyer has a VAT identifier'),
  },
  {
    id: 'BR-O-05', text: 'A line of category O has no VAT rate (BT-152).',
    check: (doc) => perLine(doc, (line) => line.category === 'O' && line.rate !== null, (line) => `line ${line.id}: category O must have no rate, got ${line.rate ?? ''}`),
  },
  { id: 'BR-O-08', text: 'The taxable amount of category O is the sum of its line net amounts.', check: (doc) => taxableMatchesLines(doc, 'O', false) },
  { id: 'BR-O-09', text: 'The VAT amount of category O is 0.', check: (doc) => rowsOf(doc, 'O').flatMap((row) => when(!num(row.taxAmount).isZero(), `VAT breakdown O: tax amount ${row.taxAmount} must be 0`)) },
  {
    id: 'BR-O-10', text: 'A VAT breakdown of category O has an exemption reason code or text.',
    check: (doc) => rowsOf(doc, 'O').flatMap((row) => when(!present(row.exemptionReason) && !present(row.exemptionCode), 'VAT breakdown O has no exemption reason (BT-120) or code (BT-121)')),
  },
  {
    id: 'BR-O-11', text: 'An invoice with a VAT breakdown of category O has no other VAT category.',
    check: (doc) => when(rowsOf(doc, 'O').length > 0 && doc.vat.some((row) => row.category !== 'O'), 'category O cannot be mixed with other VAT categories'),
  },
];

const inPeriod = (date: string | null, doc: EInvoiceDocument) =>
  date === null || ((doc.periodStart === null || date >= doc.periodStart) && (doc.periodEnd === null || date <= doc.periodEnd));
/** Categories that need a seller VAT identifier under BR-DE-16 (of those we emit). */
const VAT_ID_CATEGORIES: readonly VatCategory[] = ['S', 'Z', 'E', 'AE', 'G'];

/**
 * XRechnung 3.0 (KoSIT), the BR-DE rules that bear on what we write. Left out: delivery
 * (BR-DE-10, 11: none is written), Skonto (BR-DE-18), cards and direct debit (BR-DE-24, 25, 30, 31).
 */
export const XRECHNUNG_RULES: readonly Rule[] = [
  {
    id: 'BR-DE-1', set: 'XRECHNUNG', text: 'An invoice has payment instructions (BG-16).',
    check: (doc) => when(doc.payment === null || !present(doc.payment.meansCode), 'XRechnung needs payment instructions (BG-16): set bank_details (an IBAN) on the invoicing entity'),
  },
  { id: 'BR-DE-2', set: 'XRECHNUNG', text: 'The seller contact group (BG-6) is given.', check: (doc) => when(doc.seller.contact === null, 'the seller contact (BG-6) is missing: set contact_name, contact_phone and contact_email on the invoicing entity') },
  { id: 'BR-DE-3', set: 'XRECHNUNG', text: 'The seller city (BT-37) is given.', check: (doc) => when(!present(doc.seller.address?.city), 'the seller city (BT-37) is missing: set city on the invoicing entity') },
  { id: 'BR-DE-4', set: 'XRECHNUNG', text: 'The seller post code (BT-38) is given.', check: (doc) => when(!present(doc.seller.address?.postcode), 'the seller post code (BT-38) is missing: set zip_code on the invoicing entity') },
  { id: 'BR-DE-5', set: 'XRECHNUNG', text: 'The seller contact point (BT-41) is given.', check: (doc) => when(!present(doc.seller.contact?.name), 'the seller contact point (BT-41) is missing: set contact_name on the invoicing entity, e.g. \'Accounts receivable\'') },
  { id: 'BR-DE-6', set: 'XRECHNUNG', text: 'The seller contact telephone number (BT-42) is given.', check: (doc) => when(!present(doc.seller.contact?.phone), 'the seller contact telephone (BT-42) is missing: set contact_phone on the invoicing entity, e.g. \'+49 30 1234567\'') },
  { id: 'BR-DE-7', set: 'XRECHNUNG', text: 'The seller contact e-mail address (BT-43) is given.', check: (doc) => when(!present(doc.seller.contact?.email), 'the seller contact e-mail (BT-43) is missing: set contact_email on the invoicing entity, e.g. \'billing@example.com\'') },
  { id: 'BR-DE-8', set: 'XRECHNUNG', text: 'The buyer city (BT-52) is given.', check: (doc) => when(!present(doc.buyer.address?.city), 'the buyer city (BT-52) is missing: set billing_address.city on the customer') },
  { id: 'BR-DE-9', set: 'XRECHNUNG', text: 'The buyer post code (BT-53) is given.', check: (doc) => when(!present(doc.buyer.address?.postcode), 'the buyer post code (BT-53) is missing: set billing_address.zip_code on the customer') },
  { id: 'BR-DE-15', set: 'XRECHNUNG', text: 'The buyer reference (BT-10, the Leitweg-ID for public buyers) is given.', check: (doc) => when(!present(doc.buyerReference), 'the buyer reference (BT-10) is missing: set purchase_order on the invoice, e.g. the buyer\'s Leitweg-ID') },
  {
    id: 'BR-DE-16', set: 'XRECHNUNG', text: 'With VAT category S, Z, E, AE or G, the seller VAT identifier (BT-31) or tax registration (BT-32) is given.',
    check: (doc) => when(doc.lines.some((line) => VAT_ID_CATEGORIES.includes(line.category)) && !sellerHasVatId(doc), 'the seller has no VAT identifier (BT-31) nor tax number (BT-32): set vat_number or tax_number on the invoicing entity'),
  },
  {
    id: 'BR-DE-17', set: 'XRECHNUNG', text: 'The type code (BT-3) is one of 326, 380, 384, 389, 381, 875, 876, 877.',
    check: (doc) => when(!['326', '380', '384', '389', '381', '875', '876', '877'].includes(doc.typeCode ?? ''), `the type code (BT-3) '${doc.typeCode ?? ''}' is not one XRechnung allows, e.g. 380`),
  },
  { id: 'BR-DE-21', set: 'XRECHNUNG', text: `The specification identifier (BT-24) is ${XRECHNUNG_3_0}.`, check: (doc) => when(doc.customizationId !== XRECHNUNG_3_0, `the specification identifier (BT-24) must be ${XRECHNUNG_3_0}, got '${doc.customizationId ?? ''}'`) },
  {
    id: 'BR-DE-23-a', set: 'XRECHNUNG', text: 'Payment means 30 or 58 (credit transfer) come with the account to pay to (BG-17, BT-84).',
    check: (doc) => when((doc.payment?.meansCode === '30' || doc.payment?.meansCode === '58') && !present(doc.payment.iban) && !present(doc.payment.accountNumber),
      `payment means ${doc.payment?.meansCode ?? ''} (credit transfer) without the account to pay to (BT-84): set bank_details.iban or account_number on the invoicing entity`),
  },
];

/**
 * Peppol BIS Billing 3.0, the PEPPOL-EN16931 rules that bear on what we write. Left out: the
 * accounting currency (R005, R054, R055: we write one currency), document allowances and charges
 * (R040..R046: none are written), direct debit (R061), code lists (CL..).
 */
export const PEPPOL_RULES: readonly Rule[] = [
  { id: 'PEPPOL-EN16931-R001', set: 'PEPPOL', text: 'The business process (BT-23) is given.', check: (doc) => when(!present(doc.profileId), 'the business process (BT-23) is missing') },
  {
    id: 'PEPPOL-EN16931-R002', set: 'PEPPOL', text: 'At most one note (BT-22) on document level.',
    check: (doc) => when(doc.notes.length > 1, `${doc.notes.length} document notes (BT-22), Peppol allows one`),
  },
  {
    id: 'PEPPOL-EN16931-R003', set: 'PEPPOL', text: 'A buyer reference (BT-10) or a purchase order reference (BT-13) is given.',
    check: (doc) => when(!present(doc.buyerReference) && !present(doc.purchaseOrder), 'neither a buyer reference (BT-10) nor a purchase order (BT-13): set purchase_order on the invoice'),
  },
  { id: 'PEPPOL-EN16931-R004', set: 'PEPPOL', text: `The specification identifier (BT-24) is ${PEPPOL_BIS_3_0}.`, check: (doc) => when(doc.customizationId !== PEPPOL_BIS_3_0, `the specification identifier (BT-24) must be ${PEPPOL_BIS_3_0}, got '${doc.customizationId ?? ''}'`) },
  {
    id: 'PEPPOL-EN16931-R007', set: 'PEPPOL', text: 'The business process (BT-23) has the form urn:fdc:peppol.eu:2017:poacc:billing:NN:1.0.',
    check: (doc) => when(present(doc.profileId) && !/^urn:fdc:peppol\.eu:2017:poacc:billing:\d{2}:1\.0$/.test(doc.profileId!), `the business process (BT-23) '${doc.profileId ?? ''}' is not urn:fdc:peppol.eu:2017:poacc:billing:NN:1.0`),
  },
  {
    id: 'PEPPOL-EN16931-R010', set: 'PEPPOL', text: 'The buyer electronic address (BT-49, the Peppol endpoint) is given.',
    check: (doc) => when(!present(doc.buyer.electronicAddress?.value) || !present(doc.buyer.electronicAddress?.scheme), 'the buyer electronic address (BT-49) is missing: set billing_email on the customer'),
  },
  {
    id: 'PEPPOL-EN16931-R020', set: 'PEPPOL', text: 'The seller electronic address (BT-34, the Peppol endpoint) is given.',
    check: (doc) => when(!present(doc.seller.electronicAddress?.value) || !present(doc.seller.electronicAddress?.scheme),
      'the seller electronic address (BT-34) is missing: set peppol_endpoint_scheme and peppol_endpoint_id on the invoicing entity, e.g. \'0088\' and \'4035811991021\''),
  },
  {
    id: 'PEPPOL-EN16931-R110', set: 'PEPPOL', text: 'A line period start (BT-134) is within the invoice period (BG-14).',
    check: (doc) => perLine(doc, (line) => !inPeriod(line.periodStart, doc), (line) => `line ${line.id}: period start ${line.periodStart ?? ''} is outside the invoice period ${doc.periodStart ?? ''}..${doc.periodEnd ?? ''}`),
  },
  {
    id: 'PEPPOL-EN16931-R111', set: 'PEPPOL', text: 'A line period end (BT-135) is within the invoice period (BG-14).',
    check: (doc) => perLine(doc, (line) => !inPeriod(line.periodEnd, doc), (line) => `line ${line.id}: period end ${line.periodEnd ?? ''} is outside the invoice period ${doc.periodStart ?? ''}..${doc.periodEnd ?? ''}`),
  },
  {
    id: 'PEPPOL-EN16931-R120', set: 'PEPPOL', text: 'Line net amount (BT-131) = quantity (BT-129) × net price (BT-146) − line allowance (BT-136), within 0.02 as Peppol\'s schematron allows.',
    check: (doc) => doc.lines.flatMap((line) => {
      const expected = num(line.quantity).times(num(line.netPrice)).minus(num(line.allowance));
      return when(num(line.netAmount).minus(expected).abs().greaterThan('0.02'), `line ${line.id}: net amount ${line.netAmount} is not ${line.quantity} × ${line.netPrice} − ${line.allowance ?? '0'} = ${expected.toString()}`);
    }),
  },
];

/** Every rule the project checks, in the order docs/einvoicing.md lists them. */
export const ALL_RULES: readonly Rule[] = [...RULES, ...XRECHNUNG_RULES, ...PEPPOL_RULES];

/** Every rule that applies to the document (ruleSetsOf); an empty list means it passed every rule we check. */
export function validateEInvoice(doc: EInvoiceDocument): RuleFailure[] {
  const sets = ruleSetsOf(doc);
  return ALL_RULES.filter((rule) => sets.includes(rule.set ?? 'EN16931'))
    .flatMap((rule) => rule.check(doc).map((message) => ({ rule: rule.id, message: `[${rule.id}] ${message}` })));
}
