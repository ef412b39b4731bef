import { Anchor, Button, FileInput, Group, Select, Stack, Switch, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createBatchJob, listBatchJobs } from '@tally-billing/sdk';
import { Link, useNavigate } from 'react-router';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { BATCH_JOBS, JOB_TYPE_LABELS, StatusBadge, isRunning, progressPercent } from './batchJobs';

type CreatableType = 'EVENT_CSV_IMPORT' | 'CUSTOMER_CSV_IMPORT' | 'BANK_PAYMENT_CSV_IMPORT';

const COLUMNS_HELP: Record<CreatableType, string> = {
  EVENT_CSV_IMPORT: 'Columns: event_code, customer_id or customer_alias, optional event_id and timestamp; other columns become properties.',
  CUSTOMER_CSV_IMPORT: 'Columns: name, currency, optional alias, e-mails and address.',
  BANK_PAYMENT_CSV_IMPORT: 'Columns: date, amount, currency, reference (an invoice payment reference), optional payer and bank_line_id.',
};

function UploadForm() {
  const navigate = useNavigate();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { job_type: 'EVENT_CSV_IMPORT' as CreatableType, file: null as File | null, force_duplicate: false },
    submit: async (values) => {
      if (!values.file) throw new Error('choose a CSV file first');
      const csv = await values.file.text();
      return (await createBatchJob({ client, body: { job_type: values.job_type, file_name: values.file.name, csv, force_duplicate: values.force_duplicate } })).data!;
    },
    invalidates: [BATCH_JOBS],
    onDone: (job) => navigate(`/developers/batch-jobs/${job.id}`),
  });
  return (
    <form onSubmit={onSubmit} aria-label="Upload a CSV file">
      <Stack gap="sm" maw={640}>
        <Group align="flex-start" grow>
          <Select
            label="What the file holds"
            allowDeselect={false}
            data={(Object.keys(COLUMNS_HELP) as CreatableType[]).map((value) => ({ value, label: JOB_TYPE_LABELS[value]! }))}
            {...form.getInputProps('job_type')}
          />
          <FileInput label="CSV file" accept=".csv,text/csv" required clearable {...form.getInputProps('file')} />
        </Group>
        <Text size="sm" c="gray.7">
          {COLUMNS_HELP[form.getValues().job_type]} UTF-8 text with a header row, at most 10 MB.
        </Text>
        <Switch label="Import it even if an earlier job already imported the same file" {...form.getInputProps('force_duplicate', { type: 'checkbox' })} />
        <FormError error={formError} />
        <Group>
          <Button type="submit" loading={mutation.isPending}>
            Upload and import
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function BatchJobsScreen() {
  const jobs = useQuery({
    queryKey: [...BATCH_JOBS, 'list'],
    queryFn: async () => (await listBatchJobs({ client, query: { per_page: 50 } })).data!.data,
    // refreshed while a job of the list is still importing
    refetchInterval: (query) => (query.state.data?.some((j) => isRunning(j.status)) ? 2000 : false),
  });
  return (
    <>
      <PageHeader title="Batch jobs" description="Import usage events, customers or bank payments from a CSV file. The file is checked at once; its rows are then imported in the background, in file order." />
      <Stack gap="xl">
        <UploadForm />
        <QueryState query={jobs}>
          {(rows) => (
            <DataTable
              caption="Import jobs, newest first"
              rows={rows}
              rowKey={(j) => j.id}
              empty={<EmptyState title="No import yet">Upload a CSV file above; each upload becomes a job listed here with its progress and failed rows.</EmptyState>}
              columns={[
                { header: 'Job', render: (j) => <Anchor component={Link} to={`/developers/batch-jobs/${j.id}`}>{j.input_file_name ?? j.id}</Anchor> },
                { header: 'Type', render: (j) => JOB_TYPE_LABELS[j.job_type] ?? j.job_type },
                { header: 'Status', render: (j) => <StatusBadge status={j.status} /> },
                { header: 'Rows', numeric: true, render: (j) => `${j.processed_items + j.failed_items} / ${j.total_items ?? '?'} (${progressPercent(j)}%)` },
                { header: 'Failed', numeric: true, render: (j) => j.failed_items },
                { header: 'Created', render: (j) => dateTime(j.created_at) },
              ]}
            />
          )}
        </QueryState>
      </Stack>
    </>
  );
}
