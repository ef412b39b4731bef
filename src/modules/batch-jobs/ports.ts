/**
 * What batch jobs need from later modules, passed in by the composition root (src/composition.ts)
 * so this module imports neither usage nor customers. The shapes are the usage ingest service's
 * and the customers service's own; structural types keep the two sides in step at compile time.
 */

/** One event as the usage ingest service takes it (POST /api/v1/events/ingest, item shape). */
export interface ImportEvent {
  event_id: string;
  code: string;
  customer_id: string;
  timestamp?: string;
  properties: Record<string, string>;
}

export interface IngestEvents {
  (
    tenantId: string,
    events: readonly ImportEvent[],
    options: { allowBackfilling: boolean; allowPartialFailures: boolean; strict: boolean },
  ): Promise<{ ingested: number; duplicates: number; failures: { index: number; event_id: string; reason: string }[]; accepted: boolean }>;
}

export interface ImportAddress {
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  zip_code?: string | null;
  country?: string | null;
}

/** The create-customer body of POST /api/v1/customers, the fields a CSV row can carry. */
export interface ImportCustomer {
  name: string;
  currency: string;
  alias?: string | null;
  billing_email?: string | null;
  invoicing_emails?: string[];
  phone?: string | null;
  vat_number?: string | null;
  is_tax_exempt?: boolean | null;
  billing_address?: ImportAddress | null;
}

/** Creates a customer exactly as the API does (validation, outbox `customer.created`). */
export type CreateCustomer = (tenantId: string, input: ImportCustomer) => Promise<{ id: string }>;

/** One credit line of a bank statement, as the invoices module's bank transfers record it. */
export interface ImportBankLine {
  /** Identifies the line across files: the same line uploaded again has the same key. */
  key: string;
  /** When the money arrived (RFC 3339). */
  paid_at: string;
  /** Decimal string above zero, e.g. "120.00". */
  amount: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** The text the payer wrote; it must name one invoice's payment reference. */
  reference: string;
  payer: string | null;
  /** The bank's own id of the line, when the statement has one. */
  bank_line_id: string | null;
}

export type BankLineResult =
  | { status: 'RECORDED' | 'ALREADY_RECORDED'; invoice_id: string; invoice_number: string | null; payment_id: string }
  | { status: 'REFUSED'; reason: string };

/** Matches a bank line to one invoice by payment reference and records it as a payment there, once per line key. */
export type RecordBankPayment = (tenantId: string, line: ImportBankLine) => Promise<BankLineResult>;

export interface BatchJobPorts {
  ingestEvents: IngestEvents;
  createCustomer: CreateCustomer;
  recordBankPayment: RecordBankPayment;
}
