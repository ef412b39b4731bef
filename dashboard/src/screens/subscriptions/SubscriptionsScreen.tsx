import { Button, Group, Select, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { listCustomers, listPlans, listSubscriptions } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pages } from '../../components/Pages';
import { QueryState } from '../../components/QueryState';
import { StatusBadge, STATUSES, statusText } from './parts';

const PER_PAGE = 25;

/** The environment's subscriptions, filtered as the API filters them (customer, plan, status). */
export default function SubscriptionsScreen() {
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [planId, setPlanId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [page, setPage] = useState(0);
  const customers = useQuery({ queryKey: ['customers', 'picker'], queryFn: async () => (await listCustomers({ client, query: { per_page: 100 } })).data!.data });
  const plans = useQuery({ queryKey: ['catalog', 'plans'], queryFn: async () => (await listPlans({ client, query: { per_page: 100 } })).data!.data });
  const subscriptions = useQuery({
    queryKey: ['subscriptions', 'list', customerId, planId, status, page],
    queryFn: async () =>
      (await listSubscriptions({ client, query: { customer_id: customerId ?? undefined, plan_id: planId ?? undefined, statuses: status ? [status as (typeof STATUSES)[number]] : undefined, page, per_page: PER_PAGE } })).data!,
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(customerId || planId || status);
  const filter = (set: (value: string | null) => void) => (value: string | null) => {
    set(value);
    setPage(0);
  };

  return (
    <>
      <PageHeader
        title="Subscriptions"
        description="Customers on a plan: what they pay, for which period, and what changes are scheduled."
        actions={
          <Button component={Link} to="/subscriptions/new">
            New subscription
          </Button>
        }
      />
      <Stack gap="md">
        <Group align="flex-end">
          <Select label="Customer" placeholder="All customers" clearable searchable data={(customers.data ?? []).map((c) => ({ value: c.id, label: c.name }))} value={customerId} onChange={filter(setCustomerId)} w={260} />
          <Select label="Plan" placeholder="All plans" clearable searchable data={(plans.data ?? []).map((p) => ({ value: p.id, label: p.name }))} value={planId} onChange={filter(setPlanId)} w={220} />
          <Select label="Status" placeholder="Any status" clearable data={STATUSES.map((s) => ({ value: s, label: statusText(s) }))} value={status} onChange={filter(setStatus)} w={200} />
        </Group>
        <QueryState query={subscriptions}>
          {(result) => (
            <>
              <DataTable
                caption={`${filtered ? 'Matching subscriptions' : 'All subscriptions'}: ${result.pagination_meta.total_items}`}
                rows={result.data}
                rowKey={(s) => s.id}
                empty={
                  filtered ? (
                    <EmptyState title="No subscription matches these filters">Clear a filter, or pick another customer, plan or status.</EmptyState>
                  ) : (
                    <EmptyState
                      title="No subscription yet"
                      action={
                        <Button component={Link} to="/subscriptions/new">
                          New subscription
                        </Button>
                      }
                    >
                      Publish a plan in Catalog and create a customer first; then subscribe the customer here (you see its first invoice before confirming), or with POST
                      /api/v1/subscriptions from your server.
                    </EmptyState>
                  )
                }
                columns={[
                  { header: 'Customer', render: (s) => <Text component={Link} to={`/subscriptions/${s.id}`} c="indigo.8" fw={600} size="sm">{s.customer_name}</Text> },
                  { header: 'Plan', render: (s) => `${s.plan_name} v${s.plan_version}` },
                  { header: 'Status', render: (s) => <StatusBadge status={s.status} /> },
                  { header: 'Current period', render: (s) => `${date(s.current_period_start)} → ${date(s.current_period_end)}` },
                  { header: 'Ends', render: (s) => (s.cancel_effective_date ? `cancels ${date(s.cancel_effective_date)}` : s.end_date ? date(s.end_date) : '—') },
                  { header: 'MRR', numeric: true, render: (s) => money(s.mrr, s.currency) },
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
