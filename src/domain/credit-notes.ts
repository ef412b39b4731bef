// Credit notes: give back all or part of a finalized invoice's lines. Amounts on a credit note
// are positive (the amount credited); the tax credited follows the credited share of each line.
import { minorToDecimal, sumMinor, toMinor, type CurrencyCode } from '../kernel/money.js';
import { BillingRuleError } from './errors.js';
import { taxBreakdown, type TaxBreakdownRow, type TaxDecision } from './tax.js';

/** A finalized invoice line with what earlier (non-voided) credit notes already took from it. */
export interface CreditableLine {
  readonly lineId: string;
  readonly name: string;
  readonly taxableMinor: bigint;
  readonly taxMinor: bigint;
  readonly tax: TaxDecision;
  readonly creditedTaxableMinor: bigint;
  readonly creditedTaxMinor: bigint;
}

export type CreditRequest =
  | { readonly scope: 'INVOICE' }
  /** amountMinor is the net (pre-tax) amount to credit on that line; its tax follows. */
  | { readonly scope: 'LINES'; readonly lines: readonly { readonly lineId: string; readonly amountMinor: bigint }[] };

export interface CreditNoteLine {
  readonly lineId: string;
  readonly name: string;
  readonly taxableMinor: bigint;
  readonly taxMinor: bigint;
  readonly totalMinor: bigint;
  readonly tax: TaxDecision;
}

export interface CreditNoteDraft {
  readonly lines: readonly CreditNoteLine[];
  readonly subtotalMinor: bigint;
  readonly taxMinor: bigint;
  readonly totalMinor: bigint;
  readonly taxBreakdown: readonly TaxBreakdownRow[];
}

function remainingOf(line: CreditableLine): { taxableMinor: bigint; taxMinor: bigint } {
  return { taxableMinor: line.taxableMinor - line.creditedTaxableMinor, taxMinor: line.taxMinor - line.creditedTaxMinor };
}

/**
 * Tax for crediting `amountMinor` of a line: the remaining tax in proportion to the remaining
 * taxable amount, and exactly the remaining tax when the rest of the line is credited. Basing the
 * share on what remains (not on the original line) makes successive partial credits add up to
 * exactly the line's tax.
 */
function creditedTaxMinor(line: CreditableLine, amountMinor: bigint, currency: CurrencyCode): bigint {
  const remaining = remainingOf(line);
  if (amountMinor === remaining.taxableMinor) return remaining.taxMinor;
  const share = minorToDecimal(remaining.taxMinor, currency).times(amountMinor.toString()).div(remaining.taxableMinor.toString());
  return toMinor(share, currency);
}

function creditLine(line: CreditableLine, amountMinor: bigint, currency: CurrencyCode): CreditNoteLine {
  const taxMinor = creditedTaxMinor(line, amountMinor, currency);
  return { lineId: line.lineId, name: line.name, taxableMinor: amountMinor, taxMinor, totalMinor: amountMinor + taxMinor, tax: line.tax };
}

export function computeCreditNote(invoiceLines: readonly CreditableLine[], request: CreditRequest, currency: CurrencyCode): CreditNoteDraft {
  let lines: CreditNoteLine[];
  if (request.scope === 'INVOICE') {
    // Everything still uncredited, including negative (credit) lines, so the note equals the invoice's remainder.
    lines = invoiceLines
      .filter((line) => remainingOf(line).taxableMinor !== 0n || remainingOf(line).taxMinor !== 0n)
      .map((line) => {
        const remaining = remainingOf(line);
        return { lineId: line.lineId, name: line.name, ...remaining, totalMinor: remaining.taxableMinor + remaining.taxMinor, tax: line.tax };
      });
  } else {
    const byId = new Map(invoiceLines.map((line) => [line.lineId, line]));
    const seen = new Set<string>();
    lines = request.lines.map(({ lineId, amountMinor }) => {
      const line = byId.get(lineId);
      if (line === undefined) throw new BillingRuleError('UNKNOWN_LINE', `invoice has no line ${lineId}`);
      if (seen.has(lineId)) throw new BillingRuleError('INVALID_QUANTITY', `line ${lineId} is listed twice`);
      seen.add(lineId);
      const remainingMinor = remainingOf(line).taxableMinor;
      if (amountMinor <= 0n) throw new BillingRuleError('INVALID_QUANTITY', `credit for line ${lineId} must be above zero`);
      if (amountMinor > remainingMinor) {
        throw new BillingRuleError('CREDIT_EXCEEDS_REMAINING', `line ${lineId} has ${remainingMinor.toString()} left to credit, asked ${amountMinor.toString()}`);
      }
      return creditLine(line, amountMinor, currency);
    });
  }
  const subtotalMinor = sumMinor(lines.map((line) => line.taxableMinor));
  const taxMinor = sumMinor(lines.map((line) => line.taxMinor));
  return {
    lines,
    subtotalMinor,
    taxMinor,
    totalMinor: subtotalMinor + taxMinor,
    taxBreakdown: taxBreakdown(lines.map((line) => ({ tax: line.tax, netMinor: line.taxableMinor, taxMinor: line.taxMinor }))),
  };
}
