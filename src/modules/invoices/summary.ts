import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses } from '../../http/schemas.js';
import { today, type Clock } from '../../kernel/clock.js';
import { decimal, formatMinor, minorToDecimal, toMinor } from '../../kernel/money.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

/**
 * The figures of the dashboard's Home (docs/dashboard.md): per currency and calendar month (UTC)
 * of the last `months`, what was invoiced, what of it is still unpaid, and the monthly recurring
 * revenue; and the latest failed payments.
 *
 * MRR of a month: the recurring lines (category RECURRING, not usage, proration or one-time) of
 * the tenant's non-void invoices whose service period covers the 15th of that month, each
 * counted for one month: its amount after discount, divided by its period's length in whole
 * months (a quarterly line counts a third). Drafts count: they are the revenue already agreed.
 */
export interface InvoiceSummary {
  months: string[];
  currencies: { currency: string; by_month: { month: string; mrr: string; invoiced: string; unpaid: string }[]; unpaid: string; unpaid_invoices: number }[];
  failed_payments: { id: string; invoice_id: string; invoice_number: string | null; customer_id: string; customer_name: string | null; amount: string; currency: string; error: string | null; created_at: string }[];
}

/** Average days in a month (365.25 / 12), to count a line's period in months. */
const DAYS_PER_MONTH = 30.4375;

/** The first day of each of the last `count` months, oldest first, the current month last. */
export function lastMonths(todayDate: string, count: number): string[] {
  const [year, month] = todayDate.split('-').map(Number) as [number, number];
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(Date.UTC(year, month - 1 - (count - 1 - i), 1));
    return d.toISOString().slice(0, 10);
  });
}

export async function invoiceSummary(db: Queryable, tenantId: string, todayDate: string, monthCount: number): Promise<InvoiceSummary> {
  const firstDays = lastMonths(todayDate, monthCount);
  const from = firstDays[0]!;
  const last = new Date(`${firstDays.at(-1)!}T00:00:00Z`);
  const until = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  const scope = scoped(db, tenantId);

  const issued = await scope.query<{ currency: string; month: string; invoiced_minor: string; unpaid_minor: string }>(
    `SELECT currency, to_char(invoice_date, 'YYYY-MM-01') AS month, sum(total_minor)::text AS invoiced_minor,
            sum(CASE WHEN status = 'FINALIZED' AND payment_status <> 'PAID' THEN GREATEST(amount_due_minor - amount_paid_minor, 0) ELSE 0 END)::text AS unpaid_minor
       FROM invoices
      WHERE tenant_id = $1 AND status IN ('FINALIZED', 'UNCOLLECTIBLE') AND invoice_date >= $2 AND invoice_date < $3
      GROUP BY 1, 2`,
    [from, until],
  );
  const recurring = await scope.query<{ currency: string; month: string; mrr_minor: string }>(
    `SELECT i.currency, to_char(m.month, 'YYYY-MM-01') AS month,
            sum((l.amount_minor - l.discount_minor)::numeric / GREATEST(1, round((l.end_date - l.start_date + 1) / ${DAYS_PER_MONTH})))::text AS mrr_minor
       FROM invoice_lines l
       JOIN invoices i ON i.tenant_id = l.tenant_id AND i.id = l.invoice_id
       JOIN unnest($2::date[]) AS m(month) ON l.start_date <= m.month + 14 AND l.end_date >= m.month + 14
      WHERE l.tenant_id = $1 AND l.category = 'RECURRING' AND i.status IN ('DRAFT', 'FINALIZED', 'UNCOLLECTIBLE')
      GROUP BY 1, 2`,
    [firstDays],
  );
  const open = await scope.query<{ currency: string; unpaid_minor: string; n: number }>(
    `SELECT currency, sum(GREATEST(amount_due_minor - amount_paid_minor, 0))::text AS unpaid_minor, count(*)::int AS n
       FROM invoices WHERE tenant_id = $1 AND status = 'FINALIZED' AND payment_status <> 'PAID' AND amount_due_minor > amount_paid_minor
      GROUP BY 1`,
  );
  const failed = await scope.query<{ id: string; invoice_id: string; invoice_number: string | null; customer_id: string; customer_name: string | null; amount_minor: bigint; currency: string; error: string | null; created_at: Date }>(
    `SELECT p.id, p.invoice_id, i.invoice_number, i.customer_id, i.customer_details->>'name' AS customer_name, p.amount_minor, p.currency, p.error, p.created_at
       FROM payment_transactions p JOIN invoices i ON i.tenant_id = p.tenant_id AND i.id = p.invoice_id
      WHERE p.tenant_id = $1 AND p.status = 'FAILED' AND p.payment_type = 'PAYMENT'
      ORDER BY p.created_at DESC, p.id DESC LIMIT 10`,
  );

  const currencies = [...new Set([...issued, ...recurring, ...open].map((r) => r.currency))].sort();
  // Sums of minor units arrive as numeric text (MRR's shares have fractions of a minor unit):
  // rounded once, by the money module's rounding point.
  const minor = (text: string | undefined, currency: string) => formatMinor(toMinor(decimal(text ?? '0').times(minorToDecimal(1n, currency)), currency), currency);
  return {
    months: firstDays.map((d) => d.slice(0, 7)),
    currencies: currencies.map((currency) => ({
      currency,
      by_month: firstDays.map((month) => ({
        month: month.slice(0, 7),
        mrr: minor(recurring.find((r) => r.currency === currency && r.month === month)?.mrr_minor, currency),
        invoiced: minor(issued.find((r) => r.currency === currency && r.month === month)?.invoiced_minor, currency),
        unpaid: minor(issued.find((r) => r.currency === currency && r.month === month)?.unpaid_minor, currency),
      })),
      unpaid: minor(open.find((r) => r.currency === currency)?.unpaid_minor, currency),
      unpaid_invoices: open.find((r) => r.currency === currency)?.n ?? 0,
    })),
    failed_payments: failed.map((p) => ({
      id: p.id,
      invoice_id: p.invoice_id,
      invoice_number: p.invoice_number,
      customer_id: p.customer_id,
      customer_name: p.customer_name,
      amount: formatMinor(BigInt(p.amount_minor), p.currency),
      currency: p.currency,
      error: p.error,
      created_at: p.created_at.toISOString(),
    })),
  };
}

const Month = Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'A calendar month in UTC, YYYY-MM', examples: ['2026-03'] });
const Money = (description: string) => Type.String({ description: `${description}; decimal string in the currency's minor-unit digits`, examples: ['490.00'] });

const SummaryResponse = Type.Object({
  months: Type.Array(Month, { description: 'The months covered, oldest first; the current month last' }),
  currencies: Type.Array(
    Type.Object({
      currency: Type.String({ examples: ['USD'] }),
      by_month: Type.Array(
        Type.Object({
          month: Month,
          mrr: Money('Monthly recurring revenue: recurring lines covering the 15th of the month, each counted for one month (a quarterly fee counts a third)'),
          invoiced: Money('Totals of the invoices dated in the month (finalized or uncollectible)'),
          unpaid: Money('What is still unpaid today of the finalized invoices dated in the month'),
        }),
      ),
      unpaid: Money('Everything finalized and still unpaid today, whatever its date'),
      unpaid_invoices: Type.Integer({ description: 'How many finalized invoices are not fully paid', examples: [3] }),
    }),
    { description: 'One entry per currency the tenant invoiced in; empty before the first invoice' },
  ),
  failed_payments: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Payment transaction ID' }),
      invoice_id: Type.String(),
      invoice_number: Type.Union([Type.String(), Type.Null()]),
      customer_id: Type.String(),
      customer_name: Type.Union([Type.String(), Type.Null()]),
      amount: Money('The amount that failed'),
      currency: Type.String(),
      error: Type.Union([Type.String(), Type.Null()], { description: 'What the payment provider said' }),
      created_at: Type.String({ format: 'date-time' }),
    }),
    { description: 'The 10 latest failed payment attempts, newest first' },
  ),
});

const summaryExample = {
  months: ['2026-02', '2026-03'],
  currencies: [
    {
      currency: 'USD',
      by_month: [
        { month: '2026-02', mrr: '49.00', invoiced: '49.00', unpaid: '0.00' },
        { month: '2026-03', mrr: '98.00', invoiced: '123.50', unpaid: '74.50' },
      ],
      unpaid: '74.50',
      unpaid_invoices: 1,
    },
  ],
  failed_payments: [],
};

/** `GET /api/v1/invoices/summary`: the Home figures of the dashboard. */
export function invoiceSummaryRoutes(pool: Pool, clock: Clock) {
  return (app: App) => {
    app.get('/api/v1/invoices/summary', {
      schema: {
        tags: ['Invoices'],
        operationId: 'get_invoice_summary',
        summary: 'Revenue, MRR and unpaid amounts by month',
        description:
          'Per currency and calendar month (UTC) of the last `months` (default 12, the current month included): the monthly recurring revenue (MRR), ' +
          'the totals invoiced and what of them is still unpaid; the unpaid total today; and the 10 latest failed payments. ' +
          'MRR of a month counts the recurring lines (not usage, proration or one-time) of non-void invoices, drafts included, whose period covers the 15th of the month, ' +
          'each divided by its period in whole months. Amounts are decimal strings.',
        querystring: Type.Object({ months: Type.Optional(Type.Integer({ minimum: 1, maximum: 36, default: 12, description: 'How many months, 1 to 36' })) }),
        response: { 200: documented(SummaryResponse, 'The figures', summaryExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => invoiceSummary(pool, authOf(request).tenantId, today(clock), request.query.months ?? 12));
  };
}
