// Bank transfers matched to invoices by payment reference (docs/payments.md, "Bank transfers"):
// one bank line at a time, each in its own transaction, recorded through the same path as mark
// paid (`applyPayment`). A line is recorded at most once per tenant (its key, unique on the
// payment transaction), and a line that cannot be matched exactly touches nothing: it is refused
// with the reason.
import type { Clock } from '../../kernel/clock.js';
import { formatMinor, parseAmountMinor } from '../../kernel/money.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { applyPayment } from './lifecycle.js';
import * as repo from './repository.js';
import type { InvoiceRow } from './repository.js';
import type { BankLineResult, ImportBankLine } from '../batch-jobs/index.js';

/** One credit line of a bank statement, checked for form by the caller: the batch jobs' port type (batch-jobs/ports.ts). */
export type BankLine = ImportBankLine;
export type { BankLineResult };

/** Upper case, letters and digits only: how payment references are compared (they are numbers without separators). */
export function normalizedReference(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/**
 * What a line's reference text may name: the whole text without separators ("INV-0001",
 * "INV 0001"), or one of its words ("Payment for INV-0001, thanks"). Words are not searched for
 * inside other words, so INV0001 never matches a line about INV00012.
 */
export function referenceCandidates(text: string): string[] {
  const words = text.split(/[\s,;:()[\]]+/).map(normalizedReference);
  return [...new Set([normalizedReference(text), ...words])].filter((word) => word.length >= 3);
}

const money = (minor: bigint, currency: string) => `${formatMinor(minor, currency)} ${currency}`;

/** Why this invoice cannot take the line, or null when it can. */
function refusal(invoice: InvoiceRow, line: BankLine): string | null {
  const name = `invoice ${invoice.invoice_number ?? invoice.id}`;
  if (invoice.status !== 'FINALIZED') return `${name} is ${invoice.status}; only a FINALIZED invoice takes payments; nothing recorded`;
  if (invoice.currency !== line.currency) return `currency ${line.currency} is not the currency of ${name} (${invoice.currency}); nothing recorded`;
  let amountMinor: bigint;
  try {
    amountMinor = parseAmountMinor(line.amount, invoice.currency);
  } catch {
    return `amount '${line.amount}' has more decimals than ${invoice.currency} allows; nothing recorded`;
  }
  const remainingMinor = invoice.amount_due_minor - invoice.amount_paid_minor;
  if (invoice.payment_status === 'PAID' || remainingMinor <= 0n) return `${name} is already PAID; this line of ${money(amountMinor, line.currency)} would be an over-payment; nothing recorded`;
  if (amountMinor > remainingMinor) {
    return `amount ${money(amountMinor, line.currency)} is more than the ${money(remainingMinor, invoice.currency)} still due on ${name} (over-payment); nothing recorded`;
  }
  return null;
}

export function createBankTransfers(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  /** Matches one line and records it as a payment of its invoice, or says why not. */
  async function record(tenantId: string, line: BankLine): Promise<BankLineResult> {
    return withTx(pool, async (tx) => {
      // one writer per line key: two uploads of the same line at once record it once
      await scoped(tx, tenantId).query(`SELECT pg_advisory_xact_lock(hashtextextended('bank-line:' || $1 || ':' || $2, 0)) /* tenant_id */`, [line.key]);
      const earlier = await repo.findPaymentOfBankLine(tx, tenantId, line.key);
      if (earlier) {
        const invoice = await repo.findInvoice(tx, tenantId, earlier.invoice_id);
        return { status: 'ALREADY_RECORDED', invoice_id: earlier.invoice_id, invoice_number: invoice?.invoice_number ?? null, payment_id: earlier.id };
      }
      const candidates = referenceCandidates(line.reference);
      const payer = line.payer ? ` (payer ${line.payer})` : '';
      if (candidates.length === 0) return { status: 'REFUSED', reason: `reference '${line.reference}' names no payment reference${payer}, e.g. 'INV0001'; nothing recorded` };
      const invoices = await repo.lockInvoicesByReference(tx, tenantId, candidates, 5);
      if (invoices.length === 0) return { status: 'REFUSED', reason: `no invoice has the payment reference '${line.reference}'${payer}; nothing recorded` };
      if (invoices.length > 1) {
        const names = invoices.map((i) => i.invoice_number ?? i.id).join(', ');
        return { status: 'REFUSED', reason: `reference '${line.reference}' is ambiguous: it matches invoices ${names}; record it by hand (mark paid); nothing recorded` };
      }
      const invoice = invoices[0]!;
      const refused = refusal(invoice, line);
      if (refused) return { status: 'REFUSED', reason: refused };
      await applyPayment(tx, tenantId, clock, invoice, parseAmountMinor(line.amount, invoice.currency), line.bank_line_id ?? line.reference, new Date(line.paid_at), line.key);
      const payment = (await repo.findPaymentOfBankLine(tx, tenantId, line.key))!;
      return { status: 'RECORDED', invoice_id: invoice.id, invoice_number: invoice.invoice_number, payment_id: payment.id };
    });
  }

  return { record };
}

export type BankTransfers = ReturnType<typeof createBankTransfers>;
