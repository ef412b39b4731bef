// Bank payment CSV (BANK_PAYMENT_CSV_IMPORT, docs/batch-jobs.md): the credit lines of a bank
// statement, each matched to one invoice by its payment reference and recorded as a payment
// there through the invoices module (a port). This file reads and checks the rows and gives each
// line its key; the matching and its refusals are the invoices module's.
import { createHash } from 'node:crypto';
import { AppError, badRequest } from '../../kernel/errors.js';
import { Dec } from '../../kernel/money.js';
import { parseRfc3339 } from '../../domain/usage/index.js';
import type { CsvItem } from './csv.js';
import type { ChunkOutcome } from './event-import.js';
import type { ImportBankLine, RecordBankPayment } from './ports.js';
import type { ItemFailure } from './repository.js';

/** Rows per chunk: each row is its own transaction. */
export const BANK_PAYMENT_CHUNK_SIZE = 100;
const REQUIRED = ['date', 'amount', 'currency', 'reference'] as const;

/** Bank exports carry more columns (balance, value date...): only these are read, the others are ignored. */
export function checkBankPaymentHeader(header: readonly string[]): void {
  const missing = REQUIRED.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    throw badRequest(`csv header must have the columns ${REQUIRED.join(', ')} (payer and bank_line_id are optional); missing ${missing.map((c) => `'${c}'`).join(', ')}`);
  }
}

export function bankLineIdentifierOf(item: CsvItem): string | null {
  if (!('values' in item)) return null;
  return item.values.bank_line_id || item.values.reference || null;
}

/** "2026-04-20" (the day's midnight, UTC) or an RFC 3339 date-time with a zone. */
function paidAt(text: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const at = new Date(`${text}T00:00:00.000Z`);
    if (!Number.isNaN(at.getTime()) && at.toISOString().startsWith(text)) return at.toISOString();
  }
  const at = text.length > 10 ? parseRfc3339(text) : undefined;
  if (!at) throw badRequest(`date '${text}' must be a date such as 2026-04-20 or an RFC 3339 date-time such as 2026-04-20T09:30:00Z`);
  return at.toISOString();
}

/** The line a row describes, without its key; a bad field is a 400 naming it (the row's failure reason). */
export function bankLineFromRow(values: Record<string, string>): Omit<ImportBankLine, 'key'> {
  const amount = values.amount ?? '';
  if (/^-/.test(amount) || /^[0.]+$/.test(amount)) throw badRequest(`amount '${amount}' is not money received: only lines above zero are payments`);
  if (!/^\d+(\.\d+)?$/.test(amount)) throw badRequest(`amount '${amount}' must be a decimal number with a dot, e.g. 120.00`);
  const currency = (values.currency ?? '').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw badRequest(`currency '${values.currency ?? ''}' must be a 3-letter ISO 4217 code such as EUR`);
  const reference = values.reference ?? '';
  if (reference === '') throw badRequest("reference is empty: the line must carry the invoice's payment reference, e.g. INV0001");
  return { paid_at: paidAt(values.date ?? ''), amount, currency, reference, payer: values.payer || null, bank_line_id: values.bank_line_id || null };
}

/**
 * Gives every row its line key, the same whenever the same line is uploaded again: the SHA-256 of
 * the bank's line id when the file has one, else of the line's fields (amount and reference in a
 * normal form) and how many identical lines came before it in the file, so two identical
 * transfers on one day stay two lines while a statement uploaded twice records each once.
 */
export function keyBankLines(items: readonly CsvItem[]): CsvItem[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    if (!('values' in item)) return item;
    const v = item.values;
    const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    if (v.bank_line_id) return { ...item, key: hash(JSON.stringify(['bank_line_id', v.bank_line_id])) };
    let amount = v.amount ?? '';
    try {
      amount = new Dec(amount).toFixed();
    } catch {
      // not a number: the row fails when processed; its key only needs to be stable
    }
    const fields = JSON.stringify([v.date ?? '', amount, (v.currency ?? '').toUpperCase(), (v.reference ?? '').toUpperCase().replace(/\s+/g, ' '), v.payer ?? '']);
    const occurrence = seen.get(fields) ?? 0;
    seen.set(fields, occurrence + 1);
    return { ...item, key: hash(JSON.stringify([fields, occurrence])) };
  });
}

/**
 * Records one payment per row through the port. A row the port refuses (no invoice, ambiguous,
 * wrong currency, over-payment, not payable) or cannot read is a failure with the reason; a line
 * recorded before (by an earlier file or job) is processed, not matched again. `matched` counts
 * the payments this job recorded (rows an earlier attempt of the chunk recorded included).
 */
export async function importBankPaymentChunk(
  record: RecordBankPayment,
  tenantId: string,
  chunk: { firstItemIndex: number; items: readonly CsvItem[] },
  recordedByJob: ReadonlyMap<number, string>,
  recordRecorded: (itemIndex: number, paymentId: string) => Promise<void>,
): Promise<ChunkOutcome> {
  const failures: ItemFailure[] = [];
  let processed = 0;
  let matched = 0;
  for (const [offset, item] of chunk.items.entries()) {
    const itemIndex = chunk.firstItemIndex + offset;
    const identifier = bankLineIdentifierOf(item);
    if ('error' in item) {
      failures.push({ itemIndex, identifier, reason: item.error });
      continue;
    }
    let line: ImportBankLine;
    try {
      line = { ...bankLineFromRow(item.values), key: item.key! };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      failures.push({ itemIndex, identifier, reason: error.message });
      continue;
    }
    const result = await record(tenantId, line);
    if (result.status === 'REFUSED') {
      failures.push({ itemIndex, identifier, reason: result.reason });
      continue;
    }
    processed += 1;
    if (result.status === 'RECORDED') {
      await recordRecorded(itemIndex, result.payment_id);
      matched += 1;
    } else if (recordedByJob.get(itemIndex) === result.payment_id) {
      matched += 1;
    }
  }
  return { status: 'COMPLETED', processed, failed: failures.length, failures, matched };
}
