import { today, type Clock } from '../../kernel/clock.js';
import { notFound } from '../../kernel/errors.js';
import { pageRequest, paginationMeta, type Page } from '../../kernel/paging.js';
import type { Pool } from '../../db/pool.js';
import { clockOfCustomer, findCustomer, type CustomerRow, type TestClockTime } from '../customers/index.js';
import { LIVE_STATUSES } from '../../domain/index.js';
import { currentPeriodOf, loadSubscriptionRecords, type SubscriptionView } from '../subscriptions/index.js';
import type { MetricUsageResult } from '../usage/index.js';
import { findInvoice, nextInvoiceDateOf, type InvoicesService, type InvoiceDetail } from '../invoices/index.js';
import type { PortalPrincipal } from './tokens-service.js';

/** The usage API's subscription report (GET /api/v1/usage/subscription/{id}), passed in by the composition root. */
export type SubscriptionUsageReport = (
  tenantId: string,
  subscriptionId: string,
  query: Record<string, never>,
) => Promise<{ periodStart: string; periodEnd: string; usage: MetricUsageResult[] }>;

export interface PortalViewsDeps {
  pool: Pool;
  clock: Clock;
  /** Moves due subscription statuses first, so the portal shows what the API shows. */
  advanceDue: (tenantId: string) => Promise<unknown>;
  subscriptionUsage: SubscriptionUsageReport;
  invoices: Pick<InvoicesService, 'list' | 'pdf' | 'eInvoice'>;
  /** A customer on a test clock sees its subscriptions at the clock's time (test-clocks). */
  testClockTime?: TestClockTime;
}

export interface PortalSubscription {
  subscription: SubscriptionView;
  currentPeriodStart: string;
  currentPeriodEnd: string | null;
  nextInvoiceDate: string | null;
}

export interface PortalSubscriptionUsage {
  subscription: SubscriptionView;
  periodStart: string;
  periodEnd: string;
  usage: MetricUsageResult[];
}

/** Statuses a customer sees in the portal: drafts and voided invoices are the merchant's business. */
const VISIBLE_INVOICE_STATUSES = ['FINALIZED', 'UNCOLLECTIBLE'];

export function createPortalViewsService(deps: PortalViewsDeps) {
  const { pool, clock } = deps;

  async function customer(principal: PortalPrincipal): Promise<CustomerRow> {
    const row = await findCustomer(pool, principal.tenantId, principal.customerId);
    // The token references the customer by foreign key, so this only happens on a broken database.
    if (!row) throw notFound('customer');
    return row;
  }

  async function subscriptions(principal: PortalPrincipal): Promise<PortalSubscription[]> {
    await deps.advanceDue(principal.tenantId);
    const records = await loadSubscriptionRecords(pool, principal.tenantId, { customerId: principal.customerId });
    const todayDate = today(await clockOfCustomer(pool, principal.tenantId, await customer(principal), clock, deps.testClockTime));
    return records.map((record) => {
      const current = currentPeriodOf(record.subscription, todayDate);
      return { subscription: record.subscription, currentPeriodStart: current.start, currentPeriodEnd: current.end, nextInvoiceDate: nextInvoiceDateOf(record, todayDate) };
    });
  }

  /** Current-period usage of each live subscription, computed by the usage API's own code path. */
  async function usage(principal: PortalPrincipal): Promise<PortalSubscriptionUsage[]> {
    const live = (await subscriptions(principal)).filter((s) => LIVE_STATUSES.includes(s.subscription.status));
    const out: PortalSubscriptionUsage[] = [];
    for (const { subscription } of live) {
      const report = await deps.subscriptionUsage(principal.tenantId, subscription.id, {});
      out.push({ subscription, periodStart: report.periodStart, periodEnd: report.periodEnd, usage: report.usage });
    }
    return out;
  }

  async function invoices(principal: PortalPrincipal, query: { page?: number; per_page?: number }): Promise<Page<InvoiceDetail>> {
    const page = pageRequest(query.page, query.per_page);
    const result = await deps.invoices.list(principal.tenantId, {
      customer_id: principal.customerId,
      statuses: VISIBLE_INVOICE_STATUSES,
      order_by: 'invoice_date.desc',
      page: page.page,
      per_page: page.perPage,
    });
    // The invoice list also matches the customer's alias; keep only this customer's own invoices.
    const data = result.data.filter((d) => d.invoice.customer_id === principal.customerId);
    return { data, pagination_meta: data.length === result.data.length ? result.pagination_meta : paginationMeta(page, data.length) };
  }

  /** The PDF of one of the token's customer's visible invoices; anything else is a 404. */
  async function invoicePdf(principal: PortalPrincipal, invoiceId: string): Promise<{ content: Buffer; filename: string }> {
    const invoice = await findInvoice(pool, principal.tenantId, invoiceId);
    if (!invoice || invoice.customer_id !== principal.customerId || !VISIBLE_INVOICE_STATUSES.includes(invoice.status)) throw notFound('invoice');
    return deps.invoices.pdf(principal.tenantId, invoiceId);
  }

  /** The structured e-invoice (XML) of one of the token's customer's visible invoices; anything else, or an invoice without one, is a 404. */
  async function invoiceEInvoice(principal: PortalPrincipal, invoiceId: string): Promise<{ content: Buffer; filename: string }> {
    const invoice = await findInvoice(pool, principal.tenantId, invoiceId);
    if (!invoice || invoice.customer_id !== principal.customerId || !VISIBLE_INVOICE_STATUSES.includes(invoice.status)) throw notFound('invoice');
    return deps.invoices.eInvoice(principal.tenantId, invoiceId);
  }

  return { customer, subscriptions, usage, invoices, invoicePdf, invoiceEInvoice };
}

export type PortalViewsService = ReturnType<typeof createPortalViewsService>;
