import type { Decimal } from 'decimal.js';
import type { Clock } from '../../kernel/clock.js';
import { MS_PER_HOUR } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { sumMinor } from '../../kernel/money.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvents } from '../../db/outbox.js';
import type { BillingOccasion, Invoice, TaxBreakdownRow, TaxDecision } from '../../domain/index.js';
import { ensureDefaultEntity, findEntities, findEntity, sellerDetails, type InvoicingEntityRow } from './entities.js';
import { customerSnapshot, requireCustomer } from './customer.js';
import type { CustomerRow } from '../customers/index.js';
import { invoiceEventData } from './events.js';
import { insertContentBulk, insertInvoicesBulk } from './billing/bulk-repository.js';
import type { InvoiceRow, InvoiceType, NewLine, TaxBreakdownDbRow } from './repository.js';

/** Display details of a computed line that the invoice math does not carry. */
export interface LineDetail {
  description?: string | null;
  metricId?: string | null;
  /** The subscription fee a line bills. */
  componentId?: string | null;
  subLines?: readonly { name: string; quantity: Decimal | string; unitPrice: Decimal | string; totalMinor: bigint; attributes?: Readonly<Record<string, unknown>> | null }[];
}

export interface DraftInvoiceInput {
  customerId: string;
  subscriptionId?: string | null;
  invoiceType: InvoiceType;
  /** Calendar date (YYYY-MM-DD) the invoice is issued for. */
  invoiceDate: string;
  periodStart?: string | null;
  periodEnd?: string | null;
  netTerms?: number | null;
  planName?: string | null;
  memo?: string | null;
  purchaseOrder?: string | null;
  invoicingEntityId?: string | null;
  /** The pure computation's result (domain assembleInvoice). */
  computed: Invoice;
  /** Same order as `computed.lines`; a minimum-commitment line added by the math has none. */
  lineDetails?: readonly (LineDetail | undefined)[];
  couponNames?: Readonly<Record<string, string>>;
  /** true: finalizes by itself once the entity's grace period after the invoice date is over. */
  autoAdvance?: boolean;
  /** Whether finalization charges it; null or absent: as the customer's payment setting says. */
  autoCharge?: boolean | null;
  /** Subscription invoices: the engine occasion it was computed for (a refresh recomputes it). */
  occasion?: BillingOccasion | null;
}

export function taxName(tax: Pick<TaxDecision, 'treatment' | 'rate' | 'country'>): string {
  const percent = tax.rate.times(100).toString();
  switch (tax.treatment) {
    case 'STANDARD': return `VAT ${percent}%${tax.country ? ` (${tax.country})` : ''}`;
    case 'CUSTOM': return `Tax ${percent}%`;
    case 'EXEMPT': return 'Exempt';
    case 'REVERSE_CHARGE': return 'Reverse charge';
    case 'EXPORT': return 'Export, zero-rated';
    default: return 'No tax';
  }
}

export function breakdownRows(rows: readonly TaxBreakdownRow[]): TaxBreakdownDbRow[] {
  return rows.map((row, index) => ({
    position: index + 1,
    name: taxName(row),
    treatment: row.treatment,
    tax_rate: row.rate.toString(),
    country: row.country,
    taxable_minor: row.taxableMinor,
    tax_minor: row.taxMinor,
  }));
}

/** The computed amounts as they are stored on the invoice row (before finalization applies the balance). */
export function amountsOf(computed: Invoice): Pick<InvoiceRow,
  'subtotal_minor' | 'subtotal_recurring_minor' | 'discount_minor' | 'tax_minor' | 'total_minor' | 'amount_due_minor' | 'tax_inclusive'> {
  return {
    subtotal_minor: computed.subtotalMinor,
    // everything that is not metered usage, as the reference counts it
    subtotal_recurring_minor: sumMinor(computed.lines.filter((line) => line.category !== 'USAGE').map((line) => line.amountMinor)),
    discount_minor: computed.discountMinor,
    tax_minor: computed.taxMinor,
    total_minor: computed.totalMinor,
    amount_due_minor: computed.totalMinor > 0n ? computed.totalMinor : 0n,
    tax_inclusive: computed.taxInclusive,
  };
}

export function couponLines(computed: Invoice, names: Readonly<Record<string, string>> = {}): InvoiceRow['coupons'] {
  return computed.couponApplications
    .filter((application) => application.discountMinor > 0n)
    .map((application) => ({ coupon_id: application.couponId, name: names[application.couponId] ?? `Coupon ${application.couponId}`, total_minor: application.discountMinor.toString() }));
}

export function lineRows(invoiceId: string, input: Pick<DraftInvoiceInput, 'computed' | 'lineDetails' | 'invoiceDate'>, nowMs: number): NewLine[] {
  return input.computed.lines.map((line, index) => {
    const detail = input.lineDetails?.[index];
    const id = newId('invoiceLine', nowMs);
    return {
      line: {
        id,
        invoice_id: invoiceId,
        line_no: line.lineNo,
        name: line.name,
        description: detail?.description ?? null,
        category: line.category,
        quantity: line.quantity?.toString() ?? null,
        unit_price: line.unitPrice?.toString() ?? null,
        start_date: line.periodStart ?? input.invoiceDate,
        end_date: line.periodEnd ?? line.periodStart ?? input.invoiceDate,
        amount_minor: line.amountMinor,
        discount_minor: line.discountMinor,
        taxable_minor: line.taxableMinor,
        tax_rate: line.tax.rate.toString(),
        tax_treatment: line.tax.treatment,
        tax_country: line.tax.country,
        tax_minor: line.taxMinor,
        total_minor: line.totalMinor,
        metric_id: detail?.metricId ?? null,
        component_id: detail?.componentId ?? null,
      },
      subLines: (detail?.subLines ?? []).map((sub, position) => ({
        id: `${id}_${position + 1}`,
        invoice_line_id: id,
        position: position + 1,
        name: sub.name,
        quantity: sub.quantity.toString(),
        unit_price: sub.unitPrice.toString(),
        total_minor: sub.totalMinor,
        attributes: sub.attributes ?? null,
      })),
    };
  });
}

/**
 * When a draft finalizes by itself: midnight UTC of the invoice date plus the grace period (until
 * then late usage updates the draft); null when its subscription does not auto-advance (it waits
 * for a manual finalize).
 */
export function finalizeAfter(invoiceDate: string, entity: InvoicingEntityRow, autoAdvance?: boolean): Date | null {
  if (autoAdvance === false) return null;
  return new Date(Date.parse(`${invoiceDate}T00:00:00.000Z`) + entity.grace_period_hours * MS_PER_HOUR);
}

/** Whether a draft finalizing after `finalizeAt` (see finalizeAfter) is past its grace period at `now`. */
export function graceOver(finalizeAt: Date | null, now: Date): boolean {
  return finalizeAt !== null && finalizeAt <= now;
}

/** JSON with keys sorted: jsonb read back orders keys its own way, so compare through this. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Drafts with the seller details of their entity as it is now (a draft shows the entity's
 * current name, address, numbers and bank details until finalization freezes them); other rows
 * as they are. `changed`: drafts whose seller details differ from what they hold.
 */
export async function withCurrentSeller(db: Queryable, tenantId: string, rows: readonly InvoiceRow[]): Promise<{ rows: InvoiceRow[]; changed: Set<string> }> {
  const drafts = rows.filter((row) => row.status === 'DRAFT');
  if (drafts.length === 0) return { rows: [...rows], changed: new Set() };
  const entities = await findEntities(db, tenantId, drafts.map((row) => row.invoicing_entity_id));
  const changed = new Set<string>();
  // each entity's details once, not once per draft (a finalizer batch holds up to 1,000 drafts of one entity)
  const sellers = new Map([...entities].map(([id, entity]) => {
    const seller = sellerDetails(entity);
    return [id, { seller, canonical: canonicalJson(seller) }];
  }));
  const out = rows.map((row) => {
    const current = row.status === 'DRAFT' ? sellers.get(row.invoicing_entity_id) : undefined;
    if (!current) return row;
    const { seller, canonical } = current;
    if (canonical === canonicalJson(row.seller_details)) return row;
    changed.add(row.id);
    return { ...row, seller_details: seller };
  });
  return { rows: out, changed };
}

/** The DRAFT row of a computed invoice (no number, no due date yet). */
export function newDraftRow(input: DraftInvoiceInput, customer: CustomerRow, seller: InvoicingEntityRow, now: Date): InvoiceRow {
  return {
    id: newId('invoice', now.getTime()),
    invoicing_entity_id: seller.id,
    customer_id: customer.id,
    subscription_id: input.subscriptionId ?? null,
    invoice_type: input.invoiceType,
    status: 'DRAFT',
    payment_status: 'UNPAID',
    invoice_number: null,
    currency: input.computed.currency,
    invoice_date: input.invoiceDate,
    period_start: input.periodStart ?? null,
    period_end: input.periodEnd ?? null,
    due_date: null,
    net_terms: input.netTerms ?? seller.net_terms,
    ...amountsOf(input.computed),
    applied_credits_minor: 0n,
    amount_paid_minor: 0n,
    credit_carried_forward_minor: 0n,
    prepaid_credits_minor: 0n,
    prepaid_credits: [],
    customer_details: customerSnapshot(customer, now),
    seller_details: sellerDetails(seller),
    coupons: couponLines(input.computed, input.couponNames),
    memo: input.memo ?? null,
    purchase_order: input.purchaseOrder ?? null,
    auto_charge: input.autoCharge ?? null,
    reference: null,
    plan_name: input.planName ?? null,
    finalize_after: finalizeAfter(input.invoiceDate, seller, input.autoAdvance),
    pdf_document_id: null,
    created_at: now,
    updated_at: now,
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    marked_as_uncollectible_at: null,
  };
}

/**
 * Stores a computed invoice as a DRAFT with its lines, sub-lines and tax breakdown, and writes
 * `invoice.created`, in the caller's transaction. A second draft for the same subscription
 * period fails on the unique index (see the scheduler, which relies on it).
 */
export async function insertDraft(tx: Queryable, tenantId: string, clock: Clock, input: DraftInvoiceInput): Promise<InvoiceRow> {
  const now = clock.now();
  const customer = await requireCustomer(tx, tenantId, input.customerId, 'customer_id');
  const entity = input.invoicingEntityId
    ? await findEntity(tx, tenantId, input.invoicingEntityId)
    : customer.invoicing_entity_id
      ? await findEntity(tx, tenantId, customer.invoicing_entity_id)
      : undefined;
  const seller = entity ?? (await ensureDefaultEntity(tx, tenantId, clock));
  const row = newDraftRow(input, customer, seller, now);
  // the billing run's statements with a batch of one; no content hash, so a refresh always rewrites it
  const inserted = await insertInvoicesBulk(tx, tenantId, [{ ...row, billing_occasion: input.occasion ?? null, content_hash: null }], 'fail');
  row.custom_properties = inserted.get(row.id);
  await insertContentBulk(tx, tenantId, lineRows(row.id, input, now.getTime()), breakdownRows(input.computed.taxBreakdown).map((b) => ({ ...b, invoice_id: row.id })));
  await writeOutboxEvents(scoped(tx, tenantId), clock, [{ type: 'invoice.created', objectId: row.id, data: invoiceEventData(row) }]);
  return row;
}
