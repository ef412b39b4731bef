import { Badge, SimpleGrid, Stack } from '@mantine/core';
import type { PreviewUpcomingInvoiceResponse, SubscriptionDetailsResponse } from '@tally-billing/sdk';
import { DataTable } from '../../components/DataTable';
import { Figure } from '../../components/Section';
import { date, money } from '../../components/format';

export type Invoice = PreviewUpcomingInvoiceResponse;
export type SubscriptionDetails = SubscriptionDetailsResponse;
export type Fee = SubscriptionDetails['components'][number]['fee'];

export const STATUSES = ['PENDING_ACTIVATION', 'TRIAL_ACTIVE', 'ACTIVE', 'PAST_DUE', 'CANCELLED', 'COMPLETED'] as const;
const STATUS_COLORS: Record<string, string> = { ACTIVE: 'green', TRIAL_ACTIVE: 'blue', PENDING_ACTIVATION: 'gray', PAST_DUE: 'orange', CANCELLED: 'red', COMPLETED: 'gray' };

/** A status as words ("trial active"). */
export const statusText = (status: string) => status.toLowerCase().replace('_', ' ');

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge variant="light" color={STATUS_COLORS[status] ?? 'gray'} c="gray.9">
      {statusText(status)}
    </Badge>
  );
}

const TERMS: Record<string, string> = { ONE_TIME: 'once', MONTHLY: 'per month', QUARTERLY: 'per quarter', SEMIANNUAL: 'per half-year', ANNUAL: 'per year' };

/** The fee of a subscription row in one line ("49.00 per month", "3 × 10.00 per seat"); amounts stay decimal strings. */
export function feeText(fee: Fee, currency: string, period: string): string {
  const per = TERMS[period] ?? period.toLowerCase();
  switch (fee.type) {
    case 'SLOT':
      return `${fee.initial_slots ?? 0} × ${money(fee.unit_rate, currency)} ${per} per ${fee.unit ?? 'slot'}`;
    case 'USAGE':
      return `usage of the metric, ${fee.model?.type.toLowerCase().replace('_', ' ') ?? 'priced'}${fee.model?.rate ? ` at ${money(fee.model.rate, currency)} per unit` : ''}`;
    case 'CAPACITY':
      return `${money(fee.rate, currency)} ${per} for ${fee.included ?? 0} units, then ${money(fee.overage_rate, currency)} per unit`;
    case 'RECURRING':
    case 'ONE_TIME':
      return `${fee.quantity ?? 1} × ${money(fee.rate ?? fee.unit_rate, currency)} ${per}`;
    default:
      return `${money(fee.rate, currency)} ${per}`;
  }
}

/** An invoice computed by the API and not stored (id "upcoming"): its date, period, lines and totals. */
export function InvoicePreview({ invoice, caption }: { invoice: Invoice; caption: string }) {
  return (
    <Stack gap="xs" data-testid="invoice-preview">
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        <Figure label="Invoice date" value={date(invoice.invoice_date)} />
        <Figure label="Period" value={`${date(invoice.period_start)} → ${date(invoice.period_end)}`} />
        <Figure label="Subtotal" value={money(invoice.subtotal, invoice.currency)} />
        <Figure label="Total" value={money(invoice.total, invoice.currency)} />
      </SimpleGrid>
      <DataTable
        caption={caption}
        rows={invoice.line_items}
        rowKey={(l) => l.id}
        columns={[
          { header: 'Line', render: (l) => l.name },
          { header: 'Dates', render: (l) => `${date(l.start_date)} → ${date(l.end_date)}` },
          { header: 'Quantity', numeric: true, render: (l) => l.quantity },
          { header: 'Amount', numeric: true, render: (l) => money(l.amount_total, invoice.currency) },
        ]}
      />
    </Stack>
  );
}

/** Today's date in UTC, the service's calendar (a customer on a test clock has its own: the API then refuses or schedules by it). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);
