import { Anchor, Button, Code, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { listBatchJobs, listEvents, listUnresolvedCustomers } from '@tally-billing/sdk';
import { useState } from 'react';
import { Link } from 'react-router';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { BATCH_JOBS, StatusBadge } from './batchJobs';

const UNRESOLVED = ['events', 'unresolved-customers'];
const RECENT = ['events', 'recent'];
const EVENTS_PER_PAGE = 25;

/** The latest stored events, newest first, filtered by customer and code; older pages on demand (cursor). */
function RecentEvents() {
  const [customer, setCustomer] = useState('');
  const [code, setCode] = useState('');
  // strings, not an object: the debounced value must compare equal between renders
  const [customerTerm] = useDebouncedValue(customer.trim(), 250);
  const [codeTerm] = useDebouncedValue(code.trim(), 250);
  const filters = { customer_id: customerTerm || undefined, code: codeTerm || undefined };
  const events = useInfiniteQuery({
    queryKey: [...RECENT, filters],
    queryFn: async ({ pageParam }) => (await listEvents({ client, query: { ...filters, limit: EVENTS_PER_PAGE, cursor: pageParam } })).data!,
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const filtered = filters.customer_id !== undefined || filters.code !== undefined;
  return (
    <section aria-labelledby="recent-events-title">
      <Title order={2} size="h4" id="recent-events-title" mb={4}>
        Recent events
      </Title>
      <Text size="sm" c="gray.7" mb="sm" maw={760}>
        The events stored, most recently received first. <em>Stored as</em> is the customer reference kept with the event: the customer&apos;s id when a customer had the id or
        alias sent, else the alias as sent.
      </Text>
      <Group mb="sm" align="flex-end">
        <TextInput label="Customer" description="Id or alias, e.g. acme-42" value={customer} onChange={(e) => setCustomer(e.currentTarget.value)} w={260} />
        <TextInput label="Event code" description="Billable metric code, e.g. api_calls" value={code} onChange={(e) => setCode(e.currentTarget.value)} w={260} />
      </Group>
      <QueryState query={events}>
        {(data) => {
          const rows = data.pages.flatMap((p) => p.data);
          return (
            <Stack gap="sm" align="flex-start">
              <DataTable
                caption={`Events, newest first: ${rows.length} shown${events.hasNextPage ? ', more available' : ''}`}
                rows={rows}
                rowKey={(e) => e.event_id}
                empty={
                  <EmptyState title={filtered ? 'No event matches these filters' : 'No event stored yet'}>
                    {filtered ? 'Clear the customer or code filter to see every event.' : 'Events sent to POST /api/v1/events or /api/v1/events/ingest appear here.'}
                  </EmptyState>
                }
                columns={[
                  { header: 'Received', render: (e) => dateTime(e.ingested_at) },
                  { header: 'Event id', render: (e) => <code>{e.event_id}</code> },
                  { header: 'Code', render: (e) => <code>{e.code}</code> },
                  {
                    header: 'Customer',
                    render: (e) =>
                      e.customer_id ? <Anchor component={Link} to={`/customers/${e.customer_id}`}>{e.customer_id}</Anchor> : <Text span size="sm" fs="italic">No customer yet</Text>,
                  },
                  { header: 'Stored as', render: (e) => <code>{e.customer_ref}</code> },
                  { header: 'Timestamp', render: (e) => dateTime(e.timestamp) },
                  { header: 'Properties', render: (e) => (Object.keys(e.properties).length ? <Code>{JSON.stringify(e.properties)}</Code> : '—') },
                ]}
              />
              {events.hasNextPage && (
                <Button variant="default" loading={events.isFetchingNextPage} onClick={() => void events.fetchNextPage()}>
                  Load more
                </Button>
              )}
            </Stack>
          );
        }}
      </QueryState>
    </section>
  );
}

/** Aliases that events name but no customer has: each is either a customer to create or a typo in the sender. */
function UnresolvedCustomers() {
  const unresolved = useQuery({
    queryKey: UNRESOLVED,
    queryFn: async () => (await listUnresolvedCustomers({ client, query: { per_page: 100 } })).data!,
    refetchInterval: 30_000,
  });
  return (
    <section aria-labelledby="unresolved-title">
      <Title order={2} size="h4" id="unresolved-title" mb={4}>
        Unresolved customer references
      </Title>
      <Text size="sm" c="gray.7" mb="sm" maw={760}>
        Events are stored even when their <code>customer_id</code> is an alias no customer has yet; they count for the customer that takes the alias later. Create that customer (with
        this alias) or fix the sender.
      </Text>
      <QueryState query={unresolved}>
        {(page) => (
          <DataTable
            caption={`Aliases named by events but by no customer: ${page.pagination_meta.total_items}`}
            rows={page.data}
            rowKey={(u) => u.customer_ref}
            empty={<EmptyState title="Every event names a known customer">When an event names an alias no customer has, it is listed here with how many events wait for it.</EmptyState>}
            columns={[
              { header: 'Customer reference', render: (u) => <code>{u.customer_ref}</code> },
              { header: 'Events', numeric: true, render: (u) => u.event_count },
              { header: 'First event', render: (u) => dateTime(u.first_event_at) },
              { header: 'Latest event', render: (u) => dateTime(u.last_event_at) },
              { header: 'Last received', render: (u) => dateTime(u.last_ingested_at) },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}

/** Event files whose rows were not all imported: the only ingestion failures the service keeps (an API call gets its failures in its answer). */
function FailedEventImports() {
  const jobs = useQuery({
    queryKey: [...BATCH_JOBS, 'events-with-failures'],
    queryFn: async () => (await listBatchJobs({ client, query: { job_type: 'EVENT_CSV_IMPORT', status: ['COMPLETED_WITH_ERRORS', 'FAILED'], per_page: 25 } })).data!.data,
  });
  return (
    <section aria-labelledby="failed-imports-title">
      <Title order={2} size="h4" id="failed-imports-title" mb={4}>
        Ingestion failures
      </Title>
      <Text size="sm" c="gray.7" mb="sm" maw={760}>
        An event sent to <code>POST /api/v1/events</code> or <code>/api/v1/events/ingest</code> that is refused is reported in that call&apos;s answer and not stored. Event files
        imported as <Anchor component={Link} to="/developers/batch-jobs">batch jobs</Anchor> keep their refused rows: those with failures are listed here.
      </Text>
      <QueryState query={jobs}>
        {(rows) => (
          <DataTable
            caption="Event imports with failed rows"
            rows={rows}
            rowKey={(j) => j.id}
            empty={<EmptyState title="No failed event import">Every event file imported so far was imported whole.</EmptyState>}
            columns={[
              { header: 'File', render: (j) => <Anchor component={Link} to={`/developers/batch-jobs/${j.id}`}>{j.input_file_name ?? j.id}</Anchor> },
              { header: 'Status', render: (j) => <StatusBadge status={j.status} /> },
              { header: 'Failed rows', numeric: true, render: (j) => `${j.failed_items} of ${j.total_items ?? '?'}` },
              { header: 'Created', render: (j) => dateTime(j.created_at) },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}

export default function EventsScreen() {
  return (
    <>
      <PageHeader
        title="Events ingested"
        description="The usage events sent to this environment, and what they need from you. A customer's usage totals are on their page, a metric's on its page."
      />
      <Stack gap="xl">
        <RecentEvents />
        <UnresolvedCustomers />
        <FailedEventImports />
      </Stack>
    </>
  );
}
