import { Badge, Button, Group, Modal, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { archiveInvoicingEntity, createInvoicingEntity, listInvoicingEntities, updateInvoicingEntity } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { date } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';

const ENTITIES = ['invoicing-entities'];

type Entity = NonNullable<Awaited<ReturnType<typeof listInvoicingEntities>>['data']>['data'][number];

/** The fields this form edits; the API's other fields (bank details, logo, e-invoicing) keep their values. */
const TEXT_FIELDS = ['address_line1', 'address_line2', 'city', 'zip_code', 'state', 'vat_number', 'registration_number', 'legal_footer'] as const;

function valuesOf(entity?: Entity) {
  const text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, entity?.[f] ?? ''])) as Record<(typeof TEXT_FIELDS)[number], string>;
  return {
    legal_name: entity?.legal_name ?? '',
    country: entity?.country ?? '',
    ...text,
    invoice_number_prefix: entity?.invoice_number_prefix ?? 'INV-',
    credit_note_number_prefix: entity?.credit_note_number_prefix ?? 'CN-',
    net_terms: entity?.net_terms ?? 30,
  };
}
type Values = ReturnType<typeof valuesOf>;

/** Empty inputs are "not set": left out of a creation, cleared (null) by an edit. */
function bodyOf(values: Values, editing: boolean) {
  const body: Record<string, unknown> = { ...values, net_terms: Number(values.net_terms) };
  for (const f of TEXT_FIELDS) if (values[f].trim() === '') {
    if (editing) body[f] = null;
    else delete body[f];
  }
  return body;
}

function EntityForm({ entity, onDone }: { entity?: Entity; onDone: () => void }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: valuesOf(entity),
    submit: async (values) =>
      entity
        ? (await updateInvoicingEntity({ client, path: { invoicing_entity_id: entity.id }, body: bodyOf(values, true) })).data!
        : (await createInvoicingEntity({ client, body: bodyOf(values, false) as Parameters<typeof createInvoicingEntity>[0]['body'] })).data!,
    invalidates: [ENTITIES],
    onDone,
  });
  return (
    <form onSubmit={onSubmit} aria-label={entity ? `Edit ${entity.legal_name}` : 'New invoicing entity'}>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Legal name" required description="As printed on invoices" {...form.getInputProps('legal_name')} />
          <TextInput label="Country" required description="Two letters, e.g. FR: decides the tax of its invoices" maxLength={2} {...form.getInputProps('country')} />
          <TextInput label="Address" {...form.getInputProps('address_line1')} />
          <TextInput label="Address, second line" {...form.getInputProps('address_line2')} />
          <TextInput label="City" {...form.getInputProps('city')} />
          <TextInput label="Postal code" {...form.getInputProps('zip_code')} />
          <TextInput label="State or region" {...form.getInputProps('state')} />
          <TextInput label="VAT number" {...form.getInputProps('vat_number')} />
          <TextInput label="Registration number" description="Company registry number" {...form.getInputProps('registration_number')} />
          <NumberInput label="Net terms (days)" description="Days between invoice date and due date" min={0} max={365} allowDecimal={false} {...form.getInputProps('net_terms')} />
          <TextInput label="Invoice number prefix" {...form.getInputProps('invoice_number_prefix')} />
          <TextInput label="Credit note number prefix" {...form.getInputProps('credit_note_number_prefix')} />
        </SimpleGrid>
        <TextInput label="Legal footer" description="Printed at the foot of every PDF" {...form.getInputProps('legal_footer')} />
        <FormError error={formError} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {entity ? 'Save changes' : 'Create entity'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function InvoicingEntitiesScreen() {
  const queryClient = useQueryClient();
  const entities = useQuery({ queryKey: ENTITIES, queryFn: async () => (await listInvoicingEntities({ client })).data!.data });
  const [editing, setEditing] = useState<Entity | 'new' | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ENTITIES });
  const makeDefault = useMutation({
    mutationFn: async (id: string) => (await updateInvoicingEntity({ client, path: { invoicing_entity_id: id }, body: { is_default: true } })).data,
    onSuccess: refresh,
  });
  const archive = useMutation({
    mutationFn: async (id: string) => (await archiveInvoicingEntity({ client, path: { invoicing_entity_id: id } })).data,
    onSuccess: refresh,
  });
  const entity = editing === 'new' ? undefined : editing;
  return (
    <>
      <PageHeader
        title="Invoicing entities"
        description="The legal entities that issue your invoices. Each has its own country (which decides tax), number sequences and payment terms; customers get the default one unless they name another."
        actions={<Button onClick={() => setEditing('new')}>New invoicing entity</Button>}
      />
      {makeDefault.error && <ErrorAlert error={makeDefault.error} />}
      {archive.error && <ErrorAlert error={archive.error} />}
      <QueryState query={entities}>
        {(rows) => (
          <DataTable
            caption="Invoicing entities, the default first"
            rows={rows}
            rowKey={(e) => e.id}
            columns={[
              { header: 'Legal name', render: (e) => <>{e.legal_name} {e.is_default && <Badge color="indigo.8" ml={4}>default</Badge>}</> },
              { header: 'Country', render: (e) => e.country },
              { header: 'VAT number', render: (e) => e.vat_number ?? '—' },
              { header: 'Next invoice', render: (e) => <code>{`${e.invoice_number_prefix}${e.next_invoice_number}`}</code> },
              { header: 'Net terms', numeric: true, render: (e) => `${e.net_terms} days` },
              { header: 'Updated', render: (e) => date(e.updated_at) },
              {
                header: 'Actions',
                render: (e) => (
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => setEditing(e)} aria-label={`Edit ${e.legal_name}`}>
                      Edit
                    </Button>
                    {!e.is_default && (
                      <>
                        <Button size="xs" variant="subtle" loading={makeDefault.isPending && makeDefault.variables === e.id} onClick={() => makeDefault.mutate(e.id)} aria-label={`Make default: ${e.legal_name}`}>
                          Make default
                        </Button>
                        <Button size="xs" variant="subtle" color="red" loading={archive.isPending && archive.variables === e.id} onClick={() => archive.mutate(e.id)} aria-label={`Archive ${e.legal_name}`}>
                          Archive
                        </Button>
                      </>
                    )}
                  </Group>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      <Text size="xs" c="gray.7" mt="sm">
        Bank details, logo and e-invoicing are set through the API (<code>PATCH /api/v1/invoicing-entities/&#123;id&#125;</code>); this form keeps them as they are.
      </Text>
      <Modal opened={editing !== undefined} onClose={() => setEditing(undefined)} title={entity ? `Edit ${entity.legal_name}` : 'New invoicing entity'} size="lg">
        {editing !== undefined && <EntityForm key={entity?.id ?? 'new'} entity={entity} onDone={() => setEditing(undefined)} />}
      </Modal>
    </>
  );
}
