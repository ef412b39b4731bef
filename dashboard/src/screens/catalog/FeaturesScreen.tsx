import { Select, TextInput } from '@mantine/core';
import { createFeature, type CreateFeatureData, updateFeature } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { keys, useCatalogClient } from './client';
import { EditDetails } from './EditDetails';
import { optional } from './form';
import { CreateButton, FormButtons, FormStack, StatusBadge, EditButton } from './parts';
import { options, useFeatures, useMetrics, useProducts } from './queries';

type FeatureType = CreateFeatureData['body']['feature_type']['type'];

function NewFeature({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const metrics = useMetrics();
  const products = useProducts();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { code: '', name: '', description: '', feature_type: { type: 'BOOLEAN' as FeatureType, metric_id: '' }, product_id: '' },
    submit: async (v) => {
      const body: CreateFeatureData['body'] = {
        code: v.code,
        name: v.name,
        description: optional(v.description) ?? null,
        feature_type: v.feature_type.type === 'METERED' ? { type: 'METERED', metric_id: v.feature_type.metric_id } : { type: 'BOOLEAN' },
        product_id: optional(v.product_id) ?? null,
      };
      return (await createFeature({ client, body, throwOnError: true })).data;
    },
    invalidates: [keys.features],
    onDone: close,
  });
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Code" required description="What your application checks, e.g. sso" {...form.getInputProps('code')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      <Select
        label="Type"
        allowDeselect={false}
        data={[
          { value: 'BOOLEAN', label: 'On or off' },
          { value: 'METERED', label: 'Metered: a limit on a metric' },
        ]}
        {...form.getInputProps('feature_type.type')}
      />
      {form.getValues().feature_type.type === 'METERED' && <Select label="Billable metric" required data={options(metrics.data)} {...form.getInputProps('feature_type.metric_id')} />}
      <Select label="Product" description="Optional: the product that grants it" clearable data={options(products.data)} {...form.getInputProps('product_id')} />
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

export default function FeaturesScreen() {
  const client = useCatalogClient();
  const features = useFeatures();
  const create = (
    <CreateButton label="New feature" title="New feature">
      {(close) => <NewFeature close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Features" description="What a plan or add-on entitles a customer to: on/off switches and metered limits." actions={create} />
      <QueryState query={features}>
        {(rows) => (
          <DataTable
            caption="Features"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Name', render: (r) => r.name },
              { header: 'Code', render: (r) => <code>{r.code}</code> },
              { header: 'Type', render: (r) => (r.feature_type as { type?: string }).type ?? '' },
              { header: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              {
                header: 'Actions',
                render: (r) => (
                  <EditButton what={r.name} title={`Edit feature ${r.name}`}>
                    {(close) => (
                      <EditDetails
                        current={{ name: r.name, description: r.description ?? null }}
                        update={(body) => updateFeature({ client, path: { id_or_code: r.id }, body, throwOnError: true })}
                        invalidates={[keys.features]}
                        close={close}
                      />
                    )}
                  </EditButton>
                ),
              },
            ]}
            empty={<EmptyState title="No features yet">Create a feature ("New feature"), then grant it in a plan's entitlements.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
