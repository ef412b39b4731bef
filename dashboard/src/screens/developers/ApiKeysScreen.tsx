import { Badge, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createApiKey, listApiKeys, revokeApiKey } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { useSession } from '../../app/session';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { SecretOnce } from '../../components/SecretOnce';

const KEYS = ['api-keys'];

export default function ApiKeysScreen() {
  const session = useSession();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: KEYS, queryFn: async () => (await listApiKeys({ client })).data!.data });
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const [revoking, setRevoking] = useState<{ id: string; name: string; hint: string } | undefined>();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '' },
    submit: async (values) => (await createApiKey({ client, body: values })).data!,
    invalidates: [KEYS],
    onDone: (key, f) => {
      setCreated({ name: key.name, key: key.key });
      f.reset();
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => (await revokeApiKey({ client, path: { api_key_id: id } })).data,
    onSuccess: async () => {
      setRevoking(undefined);
      await queryClient.invalidateQueries({ queryKey: KEYS });
    },
  });
  const prefix = session.environment === 'sandbox' ? 'sk_sandbox_' : 'sk_prod_';

  return (
    <>
      <PageHeader title="API keys" description={`Keys of the ${session.environment} environment; they start with ${prefix}. A server sends one as Authorization: Bearer ${prefix}… and acts on this environment only.`} />
      <Stack gap="lg">
        {created && <SecretOnce label={`Key "${created.name}"`} value={created.key} onDone={() => setCreated(undefined)} />}
        <form onSubmit={onSubmit} aria-label="Create an API key">
          <Group align="flex-start">
            <TextInput label="Name of a new key" description='Say where it will be used, e.g. "Checkout server".' required maxLength={200} w={360} {...form.getInputProps('name')} />
            <Button type="submit" mt={44} loading={mutation.isPending}>
              Create key
            </Button>
          </Group>
          <FormError error={formError} />
        </form>
        <QueryState query={keys}>
          {(rows) => (
            <DataTable
              caption={`API keys of the ${session.environment} environment`}
              rows={rows}
              rowKey={(k) => k.id}
              empty={<EmptyState title="No API key yet">Create one above; its secret is shown once, then only its hint.</EmptyState>}
              columns={[
                { header: 'Name', render: (k) => k.name },
                { header: 'Key', render: (k) => <code>{k.hint}</code> },
                { header: 'Created', render: (k) => dateTime(k.created_at) },
                { header: 'Last used', render: (k) => (k.last_used_at ? dateTime(k.last_used_at) : 'never') },
                { header: 'Status', render: (k) => (k.revoked_at ? <Badge color="gray.8">revoked {dateTime(k.revoked_at)}</Badge> : <Badge color="teal.9">active</Badge>) },
                {
                  header: 'Actions',
                  render: (k) =>
                    k.revoked_at ? null : (
                      <Button size="xs" variant="light" color="red" onClick={() => setRevoking(k)} aria-label={`Revoke key ${k.name} (${k.hint})`}>
                        Revoke
                      </Button>
                    ),
                },
              ]}
            />
          )}
        </QueryState>
      </Stack>
      <Modal opened={revoking !== undefined} onClose={() => setRevoking(undefined)} title="Revoke an API key">
        <Text>
          Revoke <strong>{revoking?.name}</strong> (<code>{revoking?.hint}</code>)? Requests that use it are refused at once. This cannot be undone.
        </Text>
        {revoke.error && <ErrorAlert error={revoke.error} />}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setRevoking(undefined)}>
            Cancel
          </Button>
          <Button color="red" loading={revoke.isPending} onClick={() => revoking && revoke.mutate(revoking.id)}>
            Revoke this key
          </Button>
        </Group>
      </Modal>
    </>
  );
}
