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

/**
 * Writes the document and checks it. xmlbuilder2 (and fast-xml-parser, parse.ts) are imported at
 * the first document, not when the server starts (docs/performance.md, "Memory").
 */
export async function generateEInvoice(format: EInvoiceFormat, doc: EInvoiceDocument): Promise<GeneratedEInvoice> {
  const syntax = SYNTAXES[format];
  const { create } = await import('xmlbuilder2');
  const xml = syntax.syntax === 'CII' ? buildCii(create, doc, syntax) : buildUbl(create, doc, syntax);
  let failures: RuleFailure[];
  try {
    failures = validateEInvoice(await parseEInvoice(xml));
  } catch (error) {
    failures = [{ rule: 'XML', message: `the document could not be read back: ${error instanceof Error ? error.message : String(error)}` }];
  }
  return { xml, failures };
}
