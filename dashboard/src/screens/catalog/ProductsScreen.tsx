import { Select, TextInput } from '@mantine/core';
import { createProduct, type CreateProductData, updateProduct } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { keys, useCatalogClient } from './client';
import { EditDetails } from './EditDetails';
import { PRICING_MODELS } from './fee';
import { optional } from './form';
import { CreateButton, FormButtons, FormStack, EditButton } from './parts';
import { options, useFamilies, useMetrics, useProducts } from './queries';

type FeeType = CreateProductData['body']['fee_structure']['type'];
export const FEE_TYPES: { value: FeeType; label: string }[] = [
  { value: 'RATE', label: 'Rate: a fixed recurring price' },
  { value: 'SLOT', label: 'Slot: a price per seat or slot' },
  { value: 'CAPACITY', label: 'Capacity: committed usage thresholds' },
  { value: 'USAGE', label: 'Usage: billed on a metric' },
  { value: 'EXTRA_RECURRING', label: 'Extra recurring: a fixed extra each period' },
  { value: 'ONE_TIME', label: 'One time: charged once' },
];

function NewProduct({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const families = useFamilies();
  const metrics = useMetrics();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', description: '', product_family_id: '', fee_structure: { type: 'RATE' as FeeType, metric_id: '', slot_unit_name: '', model: 'PER_UNIT', billing_type: 'ADVANCE' } },
    submit: async (v) => {
      const fee = v.fee_structure;
      const body: CreateProductData['body'] = {
        name: v.name,
        description: optional(v.description) ?? null,
        product_family_id: v.product_family_id,
        fee_structure: {
          type: fee.type,
          ...(fee.type === 'USAGE' || fee.type === 'CAPACITY' ? { metric_id: fee.metric_id } : {}),
          ...(fee.type === 'SLOT' ? { slot_unit_name: fee.slot_unit_name } : {}),
          ...(fee.type === 'USAGE' ? { model: fee.model } : {}),
          ...(fee.type === 'EXTRA_RECURRING' ? { billing_type: fee.billing_type } : {}),
        },
      };
      return (await createProduct({ client, body, throwOnError: true })).data;
    },
    invalidates: [keys.products],
    onDone: close,
  });
  const type = form.getValues().fee_structure.type;
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      <Select label="Product family" required data={options(families.data)} {...form.getInputProps('product_family_id')} />
      <Select label="Fee type" required allowDeselect={false} data={FEE_TYPES} {...form.getInputProps('fee_structure.type')} />
      {(type === 'USAGE' || type === 'CAPACITY') && <Select label="Billable metric" required data={options(metrics.data)} {...form.getInputProps('fee_structure.metric_id')} />}
      {type === 'USAGE' && <Select label="Pricing model" required allowDeselect={false} data={PRICING_MODELS} {...form.getInputProps('fee_structure.model')} />}
      {type === 'EXTRA_RECURRING' && (
        <Select label="Billed" allowDeselect={false} data={[{ value: 'ADVANCE', label: 'In advance' }, { value: 'ARREARS', label: 'In arrears' }]} {...form.getInputProps('fee_structure.billing_type')} />
      )}
      {type === 'SLOT' && <TextInput label="Slot unit name" required placeholder="seat" {...form.getInputProps('fee_structure.slot_unit_name')} />}
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

export default function ProductsScreen() {
  const client = useCatalogClient();
  const products = useProducts();
  const families = useFamilies();
  const familyName = (id: string) => families.data?.find((f) => f.id === id)?.name ?? id;
  const create = (
    <CreateButton label="New product" title="New product">
      {(close) => <NewProduct close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Products" description="What you sell, and how it is charged (its fee structure). Plans price products in their components." actions={create} />
      <QueryState query={products}>
        {(rows) => (
          <DataTable
            caption="Products"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Name', render: (r) => r.name },
              { header: 'Fee type', render: (r) => r.fee_type },
              { header: 'Product family', render: (r) => familyName(r.product_family_id) },
              { header: 'Archived', render: (r) => (r.archived_at ? 'yes' : 'no') },
              {
                header: 'Actions',
                render: (r) => (
                  <EditButton what={r.name} title={`Edit product ${r.name}`}>
                    {(close) => (
                      <EditDetails
                        current={{ name: r.name, description: r.description ?? null }}
                        update={(body) => updateProduct({ client, path: { product_id: r.id }, body, throwOnError: true })}
                        invalidates={[keys.products]}
                        close={close}
                      />
                    )}
                  </EditButton>
                ),
              },
            ]}
            empty={<EmptyState title="No products yet">Create a product ("New product") in a product family, with the fee type it is charged by; then price it in a plan.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
