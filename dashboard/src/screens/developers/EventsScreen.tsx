import { Anchor, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { listBatchJobs, listUnresolvedCustomers } from '@tally-billing/sdk';
import { Link } from 'react-router';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { BATCH_JOBS, StatusBadge } from './batchJobs';

const UNRESOLVED = ['events', 'unresolved-customers'];

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
        description="What the usage events sent to this environment need from you. The API has no list of the events themselves: see a customer's usage on their page, or a metric's on its page."
      />
      <Stack gap="xl">
        <UnresolvedCustomers />
        <FailedEventImports />
      </Stack>
    </>
  );
}
