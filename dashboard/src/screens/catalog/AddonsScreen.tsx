import { Select, TextInput } from '@mantine/core';
import { createAddon, updateAddon } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { keys, useCatalogClient } from './client';
import { EditDetails } from './EditDetails';
import { emptyFee, feeBody, productDefaults, feeSummary, type FeeForm } from './fee';
import { FeeEditor } from './FeeEditor';
import { CreateButton, FormButtons, FormStack, StatusBadge, EditButton } from './parts';
import { useAddons, useProducts } from './queries';

function NewAddon({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const products = useProducts();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', product_id: '', price: { currency: 'USD', fee: emptyFee('RATE') as FeeForm } },
    submit: async (v) => (await createAddon({ client, body: { name: v.name, product_id: v.product_id, price: { currency: v.price.currency, fee: feeBody(v.price.fee) } }, throwOnError: true })).data,
    invalidates: [keys.addons],
    onDone: close,
  });
  const values = form.getValues();
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <Select
        label="Product"
        required
        data={(products.data ?? []).filter((p) => !p.archived_at).map((p) => ({ value: p.id, label: `${p.name} (${p.fee_type})` }))}
        {...form.getInputProps('product_id')}
        onChange={(id) => {
          const product = products.data?.find((p) => p.id === id);
          form.setFieldValue('product_id', id ?? '');
          if (product) {
            const fee = emptyFee(product.fee_type);
            Object.assign(fee, productDefaults(product.fee_structure, fee));
            form.setFieldValue('price.fee', fee);
          }
        }}
      />
      <TextInput label="Currency" required description="ISO 4217, e.g. USD" {...form.getInputProps('price.currency')} />
      {values.product_id && <FeeEditor form={form} path="price.fee" fee={values.price.fee} label="Add-on price" />}
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

export default function AddonsScreen() {
  const client = useCatalogClient();
  const addons = useAddons();
  const create = (
    <CreateButton label="New add-on" title="New add-on">
      {(close) => <NewAddon close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Add-ons" description="Extras a plan version can offer and a subscription can carry, priced on one product." actions={create} />
      <QueryState query={addons}>
        {(rows) => (
          <DataTable
            caption="Add-ons"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Name', render: (r) => r.name },
              { header: 'Fee type', render: (r) => r.fee_type },
              { header: 'Price', render: (r) => `${feeSummary((r.price as { fee?: Parameters<typeof feeSummary>[0] }).fee ?? {})} ${r.currency}` },
              { header: 'Status', render: (r) => <StatusBadge status={r.archived_at ? 'ARCHIVED' : 'ACTIVE'} /> },
              {
                header: 'Actions',
                render: (r) => (
                  <EditButton what={r.name} title={`Edit add-on ${r.name}`}>
                    {(close) => (
                      <EditDetails
                        current={{ name: r.name, description: r.description ?? null }}
                        update={(body) => updateAddon({ client, path: { addon_id: r.id }, body, throwOnError: true })}
                        invalidates={[keys.addons]}
                        close={close}
                      />
                    )}
                  </EditButton>
                ),
              },
            ]}
            empty={<EmptyState title="No add-ons yet">Create an add-on ("New add-on") on a product, then offer it in a plan version.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
