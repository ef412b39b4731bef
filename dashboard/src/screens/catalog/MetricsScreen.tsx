import { Anchor, Select, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { createMetric, type CreateMetricData, updateMetric } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { keys, useCatalogClient } from './client';
import { EditDetails } from './EditDetails';
import { optional } from './form';
import { CreateButton, FormButtons, FormStack, EditButton } from './parts';
import { options, useFamilies, useMetrics } from './queries';

type Aggregation = CreateMetricData['body']['aggregation_type'];
const AGGREGATIONS: Aggregation[] = ['COUNT', 'SUM', 'MAX', 'MIN', 'MEAN', 'LATEST', 'COUNT_DISTINCT'];

function NewMetric({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const families = useFamilies();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', code: '', description: '', aggregation_type: 'COUNT' as Aggregation, aggregation_key: '', product_family_id: '' },
    submit: async (v) => {
      const body: CreateMetricData['body'] = {
        name: v.name,
        code: v.code,
        description: optional(v.description) ?? null,
        aggregation_type: v.aggregation_type,
        aggregation_key: v.aggregation_type === 'COUNT' ? null : (optional(v.aggregation_key) ?? null),
        product_family_id: v.product_family_id,
      };
      return (await createMetric({ client, body, throwOnError: true })).data;
    },
    invalidates: [keys.metrics],
    onDone: close,
  });
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Code" required description="The event code usage events carry, e.g. api_calls" {...form.getInputProps('code')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      <Select label="Product family" required data={options(families.data)} {...form.getInputProps('product_family_id')} />
      <Select label="Aggregation" required allowDeselect={false} data={AGGREGATIONS} {...form.getInputProps('aggregation_type')} />
      {form.getValues().aggregation_type !== 'COUNT' && (
        <TextInput label="Aggregation key" required description="The event property aggregated, e.g. bytes" {...form.getInputProps('aggregation_key')} />
      )}
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

export default function MetricsScreen() {
  const client = useCatalogClient();
  const metrics = useMetrics();
  const create = (
    <CreateButton label="New billable metric" title="New billable metric">
      {(close) => <NewMetric close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Billable metrics" description="How usage events are counted: the code they carry and how their values add up in a period." actions={create} />
      <QueryState query={metrics}>
        {(rows) => (
          <DataTable
            caption="Billable metrics"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              {
                header: 'Name',
                render: (r) => (
                  <Anchor component={Link} to={`/catalog/metrics/${r.id}`}>
                    {r.name}
                  </Anchor>
                ),
              },
              { header: 'Code', render: (r) => <code>{r.code}</code> },
              { header: 'Aggregation', render: (r) => `${r.aggregation_type}${r.aggregation_key ? ` of ${r.aggregation_key}` : ''}` },
              { header: 'Archived', render: (r) => (r.archived_at ? 'yes' : 'no') },
              {
                header: 'Actions',
                render: (r) => (
                  <EditButton what={r.name} title={`Edit billable metric ${r.name}`}>
                    {(close) => (
                      <EditDetails
                        current={{ name: r.name, description: r.description ?? null }}
                        update={(body) => updateMetric({ client, path: { metric_id: r.id }, body, throwOnError: true })}
                        invalidates={[keys.metrics]}
                        close={close}
                      />
                    )}
                  </EditButton>
                ),
              },
            ]}
            empty={<EmptyState title="No billable metrics yet">Create a metric ("New billable metric") with the code your usage events send, then bill it in a plan's usage component.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
