import { TextInput } from '@mantine/core';
import { createProductFamily } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { dateTime } from '../../components/format';
import { keys, useCatalogClient } from './client';
import { optional } from './form';
import { CreateButton, FormButtons, FormStack } from './parts';
import { useFamilies } from './queries';

function NewFamily({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', alias: '' },
    submit: async (v) => (await createProductFamily({ client, body: { name: v.name, alias: optional(v.alias) ?? null }, throwOnError: true })).data,
    invalidates: [keys.families],
    onDone: close,
  });
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Alias" description="Optional: your own key for it, used in the API instead of the id" {...form.getInputProps('alias')} />
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

export default function FamiliesScreen() {
  const families = useFamilies();
  const create = (
    <CreateButton label="New product family" title="New product family">
      {(close) => <NewFamily close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Product families" description="Groups of products, metrics and plans: every product and plan belongs to one." actions={create} />
      <QueryState query={families}>
        {(rows) => (
          <DataTable
            caption="Product families"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Name', render: (r) => r.name },
              { header: 'Id', render: (r) => <code>{r.id}</code> },
              { header: 'Created', render: (r) => dateTime((r as { created_at?: string }).created_at) },
            ]}
            empty={<EmptyState title="No product families yet">Create a product family first (for example "Core"): products, billable metrics and plans are created inside one.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
