import { Button, Stack, TextInput } from '@mantine/core';
import { createCustomer, patchCustomer, type GetCustomerResponse } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { FormError, useApiForm } from '../../components/forms';

type Customer = GetCustomerResponse;

/**
 * Creates a customer, or edits one (`customer` given): the fields a person fills in by hand.
 * The API's refusal shows under the field it names (`alias already used`, `currency must be…`).
 */
export function CustomerForm({ customer, onDone }: { customer?: Customer; onDone: (customer: Customer) => void }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: customer?.name ?? '', alias: customer?.alias ?? '', billing_email: customer?.billing_email ?? '', currency: customer?.currency ?? 'USD' },
    submit: async (v) => {
      const body = { name: v.name, alias: v.alias.trim() || null, billing_email: v.billing_email.trim() || null, currency: v.currency.trim().toUpperCase() };
      return customer ? (await patchCustomer({ client, path: { id_or_alias: customer.id }, body })).data! : (await createCustomer({ client, body })).data!;
    },
    invalidates: [['customers']],
    onDone: (result) => onDone(result),
  });
  return (
    <form onSubmit={onSubmit} aria-label={customer ? 'Edit the customer' : 'Create a customer'}>
      <Stack gap="sm">
        <TextInput label="Name" description="As it appears on invoices, e.g. Acme Corporation." required {...form.getInputProps('name')} />
        <TextInput label="Alias" description="Your own id for this customer, unique in the environment, e.g. acme-42. Optional." {...form.getInputProps('alias')} />
        <TextInput label="Billing e-mail" type="email" description="Where invoices are sent, e.g. billing@acme.test. Optional." {...form.getInputProps('billing_email')} />
        <TextInput label="Currency" description="ISO 4217 code of the customer's invoices, e.g. USD or EUR." required maxLength={3} {...form.getInputProps('currency')} />
        <FormError error={formError} />
        <Button type="submit" loading={mutation.isPending}>
          {customer ? 'Save' : 'Create customer'}
        </Button>
      </Stack>
    </form>
  );
}
