import { Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getBatchJob, listBatchJobFailures } from '@tally-billing/sdk';
import { useParams } from 'react-router';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { BATCH_JOBS, JOB_TYPE_LABELS, StatusBadge, isRunning, progressPercent, type BatchJobDetail } from './batchJobs';

const FAILURES_PER_PAGE = 100;

function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="gray.7">
        {label}
      </Text>
      <Text fw={600} size="lg">
        {value}
      </Text>
    </Card>
  );
}

function Failures({ job }: { job: BatchJobDetail }) {
  const failures = useQuery({
    queryKey: [...BATCH_JOBS, job.id, 'failures', job.failed_items],
    queryFn: async () => (await listBatchJobFailures({ client, path: { batch_job_id: job.id }, query: { limit: FAILURES_PER_PAGE } })).data!,
  });
  return (
    <section aria-labelledby="failures-title">
      <Title order={2} size="h4" id="failures-title" mb="xs">
        Failed rows
      </Title>
      <QueryState query={failures}>
        {(page) => (
          <>
            <DataTable
              caption={page.total_count > page.data.length ? `Failed rows, the first ${page.data.length} of ${page.total_count}` : `Failed rows, in file order: ${page.total_count}`}
              rows={page.data}
              rowKey={(f) => f.id}
              empty={<EmptyState title="No failed row">{isRunning(job.status) ? 'None so far; rows that cannot be imported will be listed here.' : 'Every row of the file was imported.'}</EmptyState>}
              columns={[
                { header: 'Row', numeric: true, render: (f) => f.item_index + 1 },
                { header: 'Identifier', render: (f) => (f.item_identifier ? <code>{f.item_identifier}</code> : '—') },
                { header: 'Why it was not imported', render: (f) => f.reason },
              ]}
            />
            {page.data.length > 0 && (
              <Text size="xs" c="gray.7" mt="xs">
                Row 1 is the first line after the header. Fix these rows and upload them as a new file.
              </Text>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

export default function BatchJobScreen() {
  const { jobId = '' } = useParams();
  const job = useQuery({
    queryKey: [...BATCH_JOBS, jobId],
    queryFn: async () => (await getBatchJob({ client, path: { batch_job_id: jobId } })).data!,
    // polled while the rows are being imported, so the bar moves
    refetchInterval: (query) => (query.state.data && isRunning(query.state.data.status) ? 1000 : false),
  });
  return (
    <QueryState query={job} notFound="batch job">
      {(j) => {
        const percent = progressPercent(j);
        const running = isRunning(j.status);
        return (
          <>
            <PageHeader
              title={j.input_file_name ?? j.id}
              back={{ to: '/developers/batch-jobs', label: 'Batch jobs' }}
              description={`${JOB_TYPE_LABELS[j.job_type] ?? j.job_type} import ${j.id}, created ${dateTime(j.created_at)} by ${j.created_by}.`}
            />
            <Stack gap="lg">
              <Stack gap={6}>
                <Group justify="space-between">
                  <StatusBadge status={j.status} size="lg" />
                  <Text size="sm" role="status">
                    {running ? `Importing: ${percent}% of the rows handled` : `Done: ${percent}% of the rows handled${j.completed_at ? `, finished ${dateTime(j.completed_at)}` : ''}`}
                  </Text>
                </Group>
                <Progress
                  value={percent}
                  size="xl"
                  striped={running}
                  animated={running}
                  color={j.failed_items > 0 ? 'orange.7' : 'teal.7'}
                  aria-label="Rows handled"
                />
              </Stack>
              <SimpleGrid cols={{ base: 2, sm: j.matched_items === null ? 3 : 4 }}>
                <Figure label="Rows in the file" value={j.total_items ?? '…'} />
                <Figure label="Imported" value={j.processed_items} />
                <Figure label="Failed" value={j.failed_items} />
                {j.matched_items !== null && <Figure label="Payments recorded" value={j.matched_items} />}
              </SimpleGrid>
              <Failures job={j} />
            </Stack>
          </>
        );
      }}
    </QueryState>
  );
}
