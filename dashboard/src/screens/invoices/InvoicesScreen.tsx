import { Group, Select, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { listInvoices } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { Pages } from '../../components/Pages';
import { CustomerFilter, StatusFilter } from './filters';
import { StatusBadge, stillToPay } from './parts';

const PER_PAGE = 25;
const ORDERS = [
  { value: 'invoice_date.desc', label: 'Newest invoice date first' },
  { value: 'invoice_date.asc', label: 'Oldest invoice date first' },
  { value: 'amount.desc', label: 'Largest total first' },
  { value: 'invoice_number.asc', label: 'Invoice number' },
  { value: 'customer_name.asc', label: 'Customer name' },
  { value: 'payment_status.asc', label: 'Payment status' },
];

export default function InvoicesScreen() {
  const [statuses, setStatuses] = useState<string[]>([]);
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [orderBy, setOrderBy] = useState(ORDERS[0]!.value);
  const [page, setPage] = useState(0);
  const filtered = statuses.length > 0 || customerId !== null;
  const invoices = useQuery({
    queryKey: ['invoices', 'list', statuses, customerId, orderBy, page],
    queryFn: async () => (await listInvoices({ client, query: { statuses: statuses.length ? statuses : undefined, customer_id: customerId ?? undefined, order_by: orderBy, page, per_page: PER_PAGE } })).data!,
    placeholderData: keepPreviousData,
  });
  const reset = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setPage(0);
  };

  return (
    <>
      <PageHeader title="Invoices" description="Every invoice of this environment: drafts waiting for their grace period, finalized ones and what is still owed. Open one to see its lines, taxes, payments and PDF." />
      <Stack gap="md">
        <Group align="flex-end">
          <StatusFilter statuses={['DRAFT', 'FINALIZED', 'UNCOLLECTIBLE', 'VOID']} value={statuses} onChange={reset(setStatuses)} />
          <CustomerFilter value={customerId} onChange={reset(setCustomerId)} />
          <Select label="Order" w={240} allowDeselect={false} data={ORDERS} value={orderBy} onChange={(v) => v && reset(setOrderBy)(v)} />
        </Group>
        <QueryState query={invoices}>
          {(result) => (
            <>
              <DataTable
                caption={`${filtered ? 'Invoices matching the filters' : 'All invoices'}: ${result.pagination_meta.total_items}`}
                rows={result.data}
                rowKey={(i) => i.id}
                empty={
                  filtered ? (
                    <EmptyState title="No invoice matches these filters">Clear the status or customer filter to see the other invoices.</EmptyState>
                  ) : (
                    <EmptyState title="No invoice yet">
                      Invoices are created when a subscription starts or a billing period ends. Subscribe a customer to a published plan (Customers, or POST /api/v1/subscriptions) and its first invoice appears here.
                    </EmptyState>
                  )
                }
                columns={[
                  { header: 'Number', render: (i) => <Text component={Link} to={`/invoices/${i.id}`} c="indigo.8" fw={600} size="sm" style={{ whiteSpace: 'nowrap' }}>{i.status === 'DRAFT' ? 'Draft' : i.invoice_number}</Text> },
                  { header: 'Customer', render: (i) => i.customer_details.name },
                  { header: 'Invoice date', render: (i) => date(i.invoice_date) },
                  { header: 'Due date', render: (i) => date(i.due_date) },
                  { header: 'Status', render: (i) => <StatusBadge status={i.status} /> },
                  { header: 'Payment', render: (i) => <StatusBadge status={i.payment_status} /> },
                  { header: 'Total', numeric: true, render: (i) => money(i.total, i.currency) },
                  { header: 'Still to pay', numeric: true, render: (i) => money(stillToPay(i), i.currency) },
                ]}
              />
              <Pages total={result.pagination_meta.total_pages} page={page} onChange={setPage} />
            </>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
