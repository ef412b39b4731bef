import { Badge, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createExpressAccount, createOnboardingLink, disconnectConnectedAccount, listConnectedAccounts } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { SecretOnce } from '../../components/SecretOnce';

const ACCOUNTS = ['connected-accounts'];

type Account = NonNullable<Awaited<ReturnType<typeof listConnectedAccounts>>['data']>['data'][number];
type TypeFilter = 'all' | 'standard' | 'express';

const STATUS_COLORS: Record<string, string> = { PENDING: 'gray.8', ACTIVE: 'teal.9', SUSPENDED: 'yellow.5', REVOKED: 'red.9' };

/** A link is single use and valid 7 days: shown once, like a secret. */
interface Link {
  account: string;
  url: string;
  expires_at: string;
}

function ExpressForm({ onCreated }: { onCreated: (link: Link) => void }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', organization_name: '', country: '', return_url: `${window.location.origin}/settings/connected-accounts` },
    submit: async (values) => (await createExpressAccount({ client, body: { ...values, country: values.country.trim() === '' ? undefined : values.country } })).data!,
    invalidates: [ACCOUNTS],
    onDone: (account, f) => {
      onCreated({ account: account.organization_name, ...account.onboarding_link });
      f.reset();
    },
  });
  return (
    <form onSubmit={onSubmit} aria-labelledby="express-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="express-title">
          New express account
        </Title>
        <Group grow align="flex-start">
          <TextInput label="Merchant's e-mail" required {...form.getInputProps('email')} />
          <TextInput label="Organization name" required {...form.getInputProps('organization_name')} />
          <TextInput label="Country (optional, e.g. FR)" maxLength={2} {...form.getInputProps('country')} />
        </Group>
        <TextInput label="Return URL" description="Where the merchant lands after onboarding (https, or http on this machine)" required {...form.getInputProps('return_url')} />
        <FormError error={formError} />
        <Group>
          <Button type="submit" loading={mutation.isPending}>
            Create express account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function ConnectedAccountsScreen() {
  const queryClient = useQueryClient();
  const [type, setType] = useState<TypeFilter>('all');
  const accounts = useQuery({
    queryKey: [...ACCOUNTS, type],
    queryFn: async () => (await listConnectedAccounts({ client, query: { per_page: 100, ...(type === 'all' ? {} : { type }) } })).data!,
  });
  const [link, setLink] = useState<Link | undefined>();
  const [disconnecting, setDisconnecting] = useState<Account | undefined>();
  const disconnect = useMutation({
    mutationFn: async (id: string) => (await disconnectConnectedAccount({ client, path: { connected_account_id: id } })).data,
    onSuccess: async () => {
      setDisconnecting(undefined);
      await queryClient.invalidateQueries({ queryKey: ACCOUNTS });
    },
  });
  const newLink = useMutation({
    mutationFn: async (account: Account) => ({ account: account.organization_name, ...(await createOnboardingLink({ client, path: { connected_account_id: account.id }, body: {} })).data! }),
    onSuccess: setLink,
  });
  return (
    <>
      <PageHeader
        title="Connected accounts"
        description="The merchants this platform bills for. Standard accounts connected themselves through one of your OAuth apps; express accounts are created here and finish onboarding through a link you send them."
      />
      <Stack gap="xl">
        {link && <SecretOnce label={`Onboarding link for ${link.account} (single use, valid until ${dateTime(link.expires_at)})`} value={link.url} onDone={() => setLink(undefined)} />}
        <ExpressForm onCreated={setLink} />
        {newLink.error && <ErrorAlert error={newLink.error} />}
        <Stack gap="xs">
          <SegmentedControl
            aria-label="Account type"
            w="fit-content"
            value={type}
            onChange={(value) => setType(value as TypeFilter)}
            data={[
              { value: 'all', label: 'All' },
              { value: 'standard', label: 'Standard' },
              { value: 'express', label: 'Express' },
            ]}
          />
          <QueryState query={accounts}>
            {(page) => (
              <DataTable
                caption={`Connected accounts: ${page.pagination_meta.total_items}`}
                rows={page.data}
                rowKey={(a) => a.id}
                empty={
                  <EmptyState title="No connected account">
                    Create an express account above, or let a merchant connect through one of your OAuth apps (Developers, OAuth apps).
                  </EmptyState>
                }
                columns={[
                  { header: 'Organization', render: (a) => <>{a.organization_name}<Text size="xs" c="gray.7">{a.email ?? a.id}</Text></> },
                  { header: 'Type', render: (a) => a.type.toLowerCase() },
                  { header: 'Status', render: (a) => <Badge color={STATUS_COLORS[a.status]} c={a.status === 'SUSPENDED' ? 'black' : undefined}>{a.status.toLowerCase()}</Badge> },
                  { header: 'Country', render: (a) => a.country ?? '—' },
                  { header: 'Created', render: (a) => dateTime(a.created_at) },
                  {
                    header: 'Actions',
                    render: (a) =>
                      a.status === 'REVOKED' ? (
                        <Text size="xs">disconnected {dateTime(a.revoked_at)}</Text>
                      ) : (
                        <Group gap="xs" wrap="nowrap">
                          {a.type === 'express' && a.status === 'PENDING' && (
                            <Button size="xs" variant="light" loading={newLink.isPending && newLink.variables?.id === a.id} onClick={() => newLink.mutate(a)} aria-label={`New link for ${a.organization_name} (onboarding)`}>
                              New link
                            </Button>
                          )}
                          <Button size="xs" variant="light" color="red" onClick={() => setDisconnecting(a)} aria-label={`Disconnect ${a.organization_name}`}>
                            Disconnect
                          </Button>
                        </Group>
                      ),
                  },
                ]}
              />
            )}
          </QueryState>
        </Stack>
      </Stack>
      <Modal opened={disconnecting !== undefined} onClose={() => setDisconnecting(undefined)} title="Disconnect an account">
        <Text>
          Disconnect <strong>{disconnecting?.organization_name}</strong>? Every token issued for it and every unused onboarding link stop working at once; its billing data is kept.
          This cannot be undone.
        </Text>
        {disconnect.error && <ErrorAlert error={disconnect.error} />}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setDisconnecting(undefined)}>
            Cancel
          </Button>
          <Button color="red" loading={disconnect.isPending} onClick={() => disconnecting && disconnect.mutate(disconnecting.id)}>
            Disconnect this account
          </Button>
        </Group>
      </Modal>
    </>
  );
}
