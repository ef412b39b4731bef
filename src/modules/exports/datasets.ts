// The datasets an export writes: their columns (docs/export.md lists them) and how each is read,
// through the owning module's exported readers (passed in as `ExportSources`).
import { formatMinor } from '../../kernel/money.js';
import { MS_PER_DAY } from '../../kernel/clock.js';
import type { CreditNoteRow } from '../credit-notes/index.js';
import type { ChangeWindow, ExportedInvoiceLine, ExportedPayment, InvoiceRow, KeysetCursor } from '../invoices/index.js';
import type { DailyUsageReader } from '../usage/index.js';

export const DATASETS = ['invoices', 'invoice_lines', 'credit_notes', 'payments', 'usage_daily'] as const;
export type DatasetName = (typeof DATASETS)[number];

/**
 * Column types of the files. Money is a decimal string with the currency's digits, as the API
 * writes it ("144.00", "100" for JPY); dates are YYYY-MM-DD strings; timestamps are UTC
 * instants (Parquet TIMESTAMP in milliseconds, CSV RFC 3339).
 */
export type ColumnType = 'string' | 'decimal' | 'integer' | 'boolean' | 'timestamp';
export interface Column {
  name: string;
  type: ColumnType;
}
export type Value = string | bigint | boolean | Date | null;
export type ExportRecord = Record<string, Value>;

/** A window of one dataset: rows changed after `after` (null: from the start) up to and including `upTo`. */
export type Window = ChangeWindow;

type Read<R> = (tenantId: string, window: Window, cursor: KeysetCursor | null, limit: number) => Promise<R[]>;

/** The readers of the owning modules (the composition root binds them to the pool). */
export interface ExportSources {
  invoices: Read<InvoiceRow>;
  invoiceLines: Read<ExportedInvoiceLine>;
  creditNotes: Read<CreditNoteRow>;
  payments: Read<ExportedPayment>;
  usage: DailyUsageReader;
}

const col = (name: string, type: ColumnType = 'string'): Column => ({ name, type });

const INVOICE_COLUMNS: Column[] = [
  col('id'), col('invoice_number'), col('status'), col('payment_status'), col('invoice_type'), col('customer_id'), col('subscription_id'),
  col('invoicing_entity_id'), col('currency'), col('invoice_date'), col('period_start'), col('period_end'), col('due_date'), col('net_terms', 'integer'),
  col('subtotal', 'decimal'), col('discount', 'decimal'), col('tax_amount', 'decimal'), col('total', 'decimal'), col('applied_credits', 'decimal'),
  col('prepaid_credits', 'decimal'), col('amount_due', 'decimal'), col('amount_paid', 'decimal'), col('tax_inclusive', 'boolean'), col('purchase_order'),
  col('created_at', 'timestamp'), col('updated_at', 'timestamp'), col('finalized_at', 'timestamp'), col('paid_at', 'timestamp'), col('voided_at', 'timestamp'),
  col('marked_as_uncollectible_at', 'timestamp'),
];

function invoiceRecord(row: InvoiceRow): ExportRecord {
  const money = (minor: bigint) => formatMinor(minor, row.currency);
  return {
    id: row.id, invoice_number: row.invoice_number, status: row.status, payment_status: row.payment_status, invoice_type: row.invoice_type,
    customer_id: row.customer_id, subscription_id: row.subscription_id, invoicing_entity_id: row.invoicing_entity_id, currency: row.currency,
    invoice_date: row.invoice_date, period_start: row.period_start, period_end: row.period_end, due_date: row.due_date, net_terms: BigInt(row.net_terms),
    subtotal: money(row.subtotal_minor), discount: money(row.discount_minor), tax_amount: money(row.tax_minor), total: money(row.total_minor),
    applied_credits: money(row.applied_credits_minor), prepaid_credits: money(row.prepaid_credits_minor), amount_due: money(row.amount_due_minor),
    amount_paid: money(row.amount_paid_minor), tax_inclusive: row.tax_inclusive, purchase_order: row.purchase_order,
    created_at: row.created_at, updated_at: row.updated_at, finalized_at: row.finalized_at, paid_at: row.paid_at, voided_at: row.voided_at,
    marked_as_uncollectible_at: row.marked_as_uncollectible_at,
  };
}

const LINE_COLUMNS: Column[] = [
  col('id'), col('invoice_id'), col('invoice_number'), col('customer_id'), col('currency'), col('line_no', 'integer'), col('name'), col('description'),
  col('category'), col('quantity', 'decimal'), col('unit_price', 'decimal'), col('start_date'), col('end_date'), col('amount_subtotal', 'decimal'),
  col('discount', 'decimal'), col('taxable_amount', 'decimal'), col('tax_rate', 'decimal'), col('tax_treatment'), col('tax_country'),
  col('tax_amount', 'decimal'), col('amount_total', 'decimal'), col('metric_id'), col('finalized_at', 'timestamp'),
];

function lineRecord(row: ExportedInvoiceLine): ExportRecord {
  const money = (minor: bigint) => formatMinor(minor, row.currency);
  return {
    id: row.id, invoice_id: row.invoice_id, invoice_number: row.invoice_number, customer_id: row.customer_id, currency: row.currency,
    line_no: BigInt(row.line_no), name: row.name, description: row.description, category: row.category, quantity: row.quantity, unit_price: row.unit_price,
    start_date: row.start_date, end_date: row.end_date, amount_subtotal: money(row.amount_minor), discount: money(row.discount_minor),
    taxable_amount: money(row.taxable_minor), tax_rate: row.tax_rate, tax_treatment: row.tax_treatment, tax_country: row.tax_country,
    tax_amount: money(row.tax_minor), amount_total: money(row.total_minor), metric_id: row.metric_id, finalized_at: row.finalized_at,
  };
}

const CREDIT_NOTE_COLUMNS: Column[] = [
  col('id'), col('credit_note_number'), col('invoice_id'), col('customer_id'), col('invoicing_entity_id'), col('status'), col('credit_type'), col('reason'),
  col('currency'), col('subtotal', 'decimal'), col('tax_amount', 'decimal'), col('total', 'decimal'), col('debt_cancelled', 'decimal'),
  col('credited_to_balance', 'decimal'), col('refunded', 'decimal'), col('refund_status'), col('created_at', 'timestamp'), col('updated_at', 'timestamp'),
  col('finalized_at', 'timestamp'), col('voided_at', 'timestamp'),
];

function creditNoteRecord(row: CreditNoteRow): ExportRecord {
  const money = (minor: bigint) => formatMinor(minor, row.currency);
  return {
    id: row.id, credit_note_number: row.credit_note_number, invoice_id: row.invoice_id, customer_id: row.customer_id, invoicing_entity_id: row.invoicing_entity_id,
    status: row.status, credit_type: row.credit_type, reason: row.reason, currency: row.currency, subtotal: money(row.subtotal_minor),
    tax_amount: money(row.tax_minor), total: money(row.total_minor), debt_cancelled: money(row.debt_cancelled_minor), credited_to_balance: money(row.credited_minor),
    refunded: money(row.refunded_minor), refund_status: row.refund_status, created_at: row.created_at, updated_at: row.updated_at,
    finalized_at: row.finalized_at, voided_at: row.voided_at,
  };
}

const PAYMENT_COLUMNS: Column[] = [
  col('id'), col('invoice_id'), col('customer_id'), col('currency'), col('amount', 'decimal'), col('status'), col('payment_type'), col('provider_transaction_id'),
  col('error'), col('processed_at', 'timestamp'), col('created_at', 'timestamp'),
];

function paymentRecord(row: ExportedPayment): ExportRecord {
  return {
    id: row.id, invoice_id: row.invoice_id, customer_id: row.customer_id, currency: row.currency, amount: formatMinor(row.amount_minor, row.currency),
    status: row.status, payment_type: row.payment_type, provider_transaction_id: row.provider_transaction_id, error: row.error,
    processed_at: row.processed_at, created_at: row.created_at,
  };
}

const USAGE_COLUMNS: Column[] = [
  col('day'), col('customer_id'), col('customer_ref'), col('metric_id'), col('metric_code'), col('aggregation'), col('value', 'decimal'), col('event_count', 'integer'),
];

/** Rows are read in pages of this many. */
const PAGE = 1_000;

/** Reads every row of a keyset-paged source in the window. */
async function readAll<R>(read: Read<R>, keyOf: (row: R) => KeysetCursor, tenantId: string, window: Window): Promise<R[]> {
  const out: R[] = [];
  let cursor: KeysetCursor | null = null;
  for (;;) {
    const page = await read(tenantId, window, cursor, PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
    cursor = keyOf(page[page.length - 1]!);
  }
}

export interface Dataset {
  name: DatasetName;
  columns: Column[];
  /**
   * Where the window of a new run ends, given the service time `now` and how long changes are
   * given to commit (`settleMs`). Usage is exported by whole UTC days only.
   */
  windowEnd(now: Date, settleMs: number): Date;
  /** The dataset's records in the window, in a stable order. */
  read(tenantId: string, window: Window): Promise<ExportRecord[]>;
}

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / MS_PER_DAY) * MS_PER_DAY);
const settled = (now: Date, settleMs: number) => new Date(now.getTime() - settleMs);

/** Usage days in [after, upTo): every whole UTC day of the window (after null: from the tenant's first event). */
async function readUsageDays(usage: DailyUsageReader, tenantId: string, window: Window): Promise<ExportRecord[]> {
  const first = window.after ?? (await usage.firstDay(tenantId, window.upTo));
  const out: ExportRecord[] = [];
  if (!first) return out;
  for (let day = startOfUtcDay(first); day < window.upTo; day = new Date(day.getTime() + MS_PER_DAY)) {
    for (const row of await usage.day(tenantId, day)) out.push({ ...row });
  }
  return out;
}

export function datasets(sources: ExportSources): Dataset[] {
  const byChange = (at: (row: { id: string }) => Date) => (row: { id: string }) => ({ at: at(row), id: row.id });
  return [
    {
      name: 'invoices', columns: INVOICE_COLUMNS, windowEnd: settled,
      read: async (tenantId, window) => (await readAll(sources.invoices, byChange((r) => (r as InvoiceRow).updated_at), tenantId, window)).map(invoiceRecord),
    },
    {
      name: 'invoice_lines', columns: LINE_COLUMNS, windowEnd: settled,
      read: async (tenantId, window) => (await readAll(sources.invoiceLines, byChange((r) => (r as ExportedInvoiceLine).finalized_at), tenantId, window)).map(lineRecord),
    },
    {
      name: 'credit_notes', columns: CREDIT_NOTE_COLUMNS, windowEnd: settled,
      read: async (tenantId, window) => (await readAll(sources.creditNotes, byChange((r) => (r as CreditNoteRow).updated_at), tenantId, window)).map(creditNoteRecord),
    },
    {
      name: 'payments', columns: PAYMENT_COLUMNS, windowEnd: settled,
      read: async (tenantId, window) => (await readAll(sources.payments, byChange((r) => (r as ExportedPayment).created_at), tenantId, window)).map(paymentRecord),
    },
    {
      // a day is exported once it has ended and the settle time has passed
      name: 'usage_daily', columns: USAGE_COLUMNS, windowEnd: (now, settleMs) => startOfUtcDay(settled(now, settleMs)),
      read: (tenantId, window) => readUsageDays(sources.usage, tenantId, window),
    },
  ];
}
