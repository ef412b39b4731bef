// E-invoices (docs/einvoicing.md): writes an EN 16931 document in the syntax of a format, reads
// the XML back and checks the rules on what was read.
import { buildCii } from './cii.js';
import { buildUbl } from './ubl.js';
import { SYNTAXES, type EInvoiceDocument, type EInvoiceFormat, type RuleFailure } from './model.js';
import { parseEInvoice } from './parse.js';
import { validateEInvoice } from './rules.js';

export * from './model.js';
export { parseEInvoice } from './parse.js';
export { ALL_RULES, PEPPOL_RULES, RULES, XRECHNUNG_RULES, ruleSetsOf, validateEInvoice, type Rule, type RuleSet } from './rules.js';

export interface GeneratedEInvoice {
  xml: string;
  /** The rules the document read back fails; empty: valid. */
  failures: RuleFailure[];
}

export function generateEInvoice(format: EInvoiceFormat, doc: EInvoiceDocument): GeneratedEInvoice {
  const syntax = SYNTAXES[format];
  const xml = syntax.syntax === 'CII' ? buildCii(doc, syntax) : buildUbl(doc, syntax);
  let failures: RuleFailure[];
  try {
    failures = validateEInvoice(parseEInvoice(xml));
  } catch (error) {
    failures = [{ rule: 'XML', message: `the document could not be read back: ${error instanceof Error ? error.message : String(error)}` }];
  }
  return { xml, failures };
}
