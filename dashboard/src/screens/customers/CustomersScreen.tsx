import { Button, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { listCustomers } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pages } from '../../components/Pages';
import { QueryState } from '../../components/QueryState';
import { CustomerForm } from './CustomerForm';

const PER_PAGE = 25;

export default function CustomersScreen() {
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  // One request once typing pauses; the API matches part of the name, alias, e-mail or the id.
  const [term] = useDebouncedValue(search.trim(), 250);
  const [page, setPage] = useState(0);
  const [creating, setCreating] = useState(false);
  const customers = useQuery({
    queryKey: ['customers', 'list', term, page],
    queryFn: async () => (await listCustomers({ client, query: { search: term || undefined, page, per_page: PER_PAGE } })).data!,
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Customers"
        description="The people and companies you bill. Search by part of a name, alias or billing e-mail, or paste an id."
        actions={<Button onClick={() => setCreating(true)}>New customer</Button>}
      />
      <Stack gap="md">
        <TextInput
          label="Search customers"
          placeholder="acme, billing@acme.test, cus_…"
          value={search}
          w={420}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(0);
          }}
        />
        <QueryState query={customers}>
          {(result) => (
            <>
              <DataTable
                caption={term ? `Customers matching "${term}": ${result.pagination_meta.total_items}` : `All customers: ${result.pagination_meta.total_items}`}
                rows={result.data}
                rowKey={(c) => c.id}
                empty={
                  term ? (
                    <EmptyState title={`No customer matches "${term}"`}>Check the spelling, search by another part of the name, alias or e-mail, or create the customer.</EmptyState>
                  ) : (
                    <EmptyState title="No customer yet" action={<Button onClick={() => setCreating(true)}>New customer</Button>}>
                      Create your first customer here, or with POST /api/v1/customers from your server; then subscribe them to a published plan.
                    </EmptyState>
                  )
                }
                columns={[
                  { header: 'Name', render: (c) => <Text component={Link} to={`/customers/${c.id}`} c="indigo.8" fw={600} size="sm">{c.name}</Text> },
                  { header: 'Alias', render: (c) => (c.alias ? <code>{c.alias}</code> : '—') },
                  { header: 'Billing e-mail', render: (c) => c.billing_email ?? '—' },
                  { header: 'Currency', render: (c) => c.currency },
                  { header: 'Balance', numeric: true, render: (c) => money(c.balance, c.currency) },
                  { header: 'Created', render: (c) => dateTime(c.created_at) },
                ]}
              />
              <Pages total={result.pagination_meta.total_pages} page={page} onChange={setPage} />
            </>
          )}
        </QueryState>
      </Stack>
      <Modal opened={creating} onClose={() => setCreating(false)} title="New customer">
        <CustomerForm onDone={(customer) => navigate(`/customers/${customer.id}`)} />
      </Modal>
    </>
  );
}
