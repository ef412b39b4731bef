import { Anchor, Badge, Box, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { getInvoiceSummary, getUsageSummary, listInvoices, type GetInvoiceSummaryResponse } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { useSession } from '../../app/session';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime, date, dayjs, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';

type CurrencyFigures = GetInvoiceSummaryResponse['currencies'][number];

// The charts' code (uPlot) downloads as soon as Home's own code runs, beside the session and
// data requests rather than before them.
const charts = import('./HomeCharts');
const MrrChart = lazy(async () => ({ default: (await charts).MrrChart }));
const InvoicedChart = lazy(async () => ({ default: (await charts).InvoicedChart }));

/** Charts plot numbers; amounts stay strings everywhere else (this is drawing, not arithmetic). */
const plotted = (figures: CurrencyFigures) => figures.by_month.map((m) => ({ month: dayjs(`${m.month}-01`).format('MMM YY'), MRR: Number(m.mrr), Invoiced: Number(m.invoiced), Unpaid: Number(m.unpaid) }));

function CurrencyCharts({ figures }: { figures: CurrencyFigures }) {
  const data = plotted(figures);
  const latest = figures.by_month.at(-1);
  const mrrTitle = `MRR by month, ${figures.currency}`;
  const invoicedTitle = `Invoiced and still unpaid by month, ${figures.currency}`;
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Figure label={`MRR this month (${figures.currency})`} value={money(latest?.mrr, figures.currency)} />
        <Figure label={`Invoiced this month (${figures.currency})`} value={money(latest?.invoiced, figures.currency)} />
        <Figure label={`Unpaid today (${figures.currency})`} value={money(figures.unpaid, figures.currency)} note={`${figures.unpaid_invoices} finalized invoice${figures.unpaid_invoices === 1 ? '' : 's'} not fully paid`} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <ChartCard title={mrrTitle}>
          <Suspense fallback={<Box h={220} />}>
            <MrrChart data={data} title={mrrTitle} />
          </Suspense>
        </ChartCard>
        <ChartCard title={invoicedTitle}>
          <Suspense fallback={<Box h={220} />}>
            <InvoicedChart data={data} title={invoicedTitle} />
          </Suspense>
        </ChartCard>
      </SimpleGrid>
    </Stack>
  );
}

function Figure({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="sm" c="gray.7">
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
      {note && (
        <Text size="xs" c="gray.7">
          {note}
        </Text>
      )}
    </Card>
  );
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder padding="md" component="figure" m={0} aria-label={title}>
      <Title order={3} size="h5" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

export default function HomeScreen() {
  const session = useSession();
  const summary = useQuery({ queryKey: ['invoices', 'summary'], queryFn: async () => (await getInvoiceSummary({ client, query: { months: 12 } })).data! });
  const recent = useQuery({ queryKey: ['invoices', 'recent'], queryFn: async () => (await listInvoices({ client, query: { per_page: 5, statuses: ['FINALIZED', 'UNCOLLECTIBLE'] } })).data! });
  const today = dayjs.utc().format('YYYY-MM-DD');
  const usage = useQuery({
    queryKey: ['usage', 'today', today],
    queryFn: async () => (await getUsageSummary({ client, query: { start_date: today, end_date: dayjs.utc().add(1, 'day').format('YYYY-MM-DD') } })).data!,
  });

  return (
    <>
      <PageHeader title="Home" description={`${session.organization?.name ?? ''}: revenue and activity of the ${session.environment} environment over the last 12 months.`} />
      <Stack gap="xl">
        <QueryState query={summary}>
          {(s) =>
            s.currencies.length === 0 ? (
              <EmptyState title="No invoice yet">
                MRR, invoiced and unpaid amounts appear here with the first invoice. Create a plan and subscribe a customer to it; invoices follow on the billing dates (docs/quickstart.md walks through it).
              </EmptyState>
            ) : (
              s.currencies.map((figures) => <CurrencyCharts key={figures.currency} figures={figures} />)
            )
          }
        </QueryState>

        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          <section aria-labelledby="recent-invoices">
            <Title order={2} size="h4" id="recent-invoices" mb="xs">
              Recent invoices
            </Title>
            <QueryState query={recent}>
              {(page) => (
                <DataTable
                  caption="The five latest finalized invoices"
                  rows={page.data}
                  rowKey={(i) => i.id}
                  empty={<EmptyState title="No finalized invoice yet">Invoices are listed here once finalized, by hand or after their grace period.</EmptyState>}
                  columns={[
                    { header: 'Number', render: (i) => i.invoice_number },
                    { header: 'Customer', render: (i) => i.customer_details?.name ?? i.customer_id },
                    { header: 'Date', render: (i) => date(i.invoice_date) },
                    { header: 'Total', numeric: true, render: (i) => money(i.total, i.currency) },
                    { header: 'Payment', render: (i) => <Badge color={i.payment_status === 'PAID' ? 'teal.9' : 'gray.8'}>{i.payment_status}</Badge> },
                  ]}
                />
              )}
            </QueryState>
          </section>

          <section aria-labelledby="failed-payments">
            <Title order={2} size="h4" id="failed-payments" mb="xs">
              Failed payments
            </Title>
            <QueryState query={summary}>
              {(s) => (
                <DataTable
                  caption="The latest failed payment attempts"
                  rows={s.failed_payments}
                  rowKey={(p) => p.id}
                  empty={<EmptyState title="No failed payment">Payments that a provider refuses are listed here. Connect a payment provider in Settings to charge invoices automatically.</EmptyState>}
                  columns={[
                    { header: 'When', render: (p) => dateTime(p.created_at) },
                    { header: 'Invoice', render: (p) => p.invoice_number ?? p.invoice_id },
                    { header: 'Customer', render: (p) => p.customer_name ?? p.customer_id },
                    { header: 'Amount', numeric: true, render: (p) => money(p.amount, p.currency) },
                    { header: 'Reason', render: (p) => p.error ?? '—' },
                  ]}
                />
              )}
            </QueryState>
          </section>
        </SimpleGrid>

        <section aria-labelledby="usage-today">
          <Title order={2} size="h4" id="usage-today" mb="xs">
            Usage ingested today ({today}, UTC)
          </Title>
          <QueryState query={usage}>
            {(u) => (
              <DataTable
                caption="Usage of every customer today, per billable metric"
                rows={u.usage}
                rowKey={(m) => m.metric_id}
                empty={
                  <EmptyState title="No billable metric yet">
                    Define a billable metric, then send events to <Anchor href="/docs">POST /api/v1/events</Anchor>; today&apos;s totals show here.
                  </EmptyState>
                }
                columns={[
                  { header: 'Metric', render: (m) => m.metric_name },
                  { header: 'Code', render: (m) => <code>{m.metric_code}</code> },
                  { header: 'Today', numeric: true, render: (m) => money(m.total_value) },
                ]}
              />
            )}
          </QueryState>
        </section>
      </Stack>
      <Group mt="xl" />
    </>
  );
}
