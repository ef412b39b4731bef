import { Anchor, Badge, Button, Group, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { createWebhookEndpoint, listWebhookEndpoints } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { SecretOnce } from '../../components/SecretOnce';

export const WEBHOOK_ENDPOINTS = ['webhook-endpoints'];

export default function WebhooksScreen() {
  const endpoints = useQuery({ queryKey: WEBHOOK_ENDPOINTS, queryFn: async () => (await listWebhookEndpoints({ client, query: { per_page: 100 } })).data! });
  const [created, setCreated] = useState<{ url: string; secret: string } | undefined>();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { url: '', description: '' },
    submit: async (values) => (await createWebhookEndpoint({ client, body: { url: values.url, description: values.description || null } })).data!,
    invalidates: [WEBHOOK_ENDPOINTS],
    onDone: (endpoint, f) => {
      setCreated({ url: endpoint.url, secret: endpoint.secret });
      f.reset();
    },
  });

  return (
    <>
      <PageHeader title="Webhook endpoints" description="URLs that receive an HTTPS POST, signed with Standard Webhooks, for every event of this environment (or the event types you choose)." />
      <Stack gap="lg">
        {created && <SecretOnce label={`Signing secret of ${created.url}`} value={created.secret} onDone={() => setCreated(undefined)} />}
        <form onSubmit={onSubmit} aria-label="Register a webhook endpoint">
          <Group align="flex-start">
            <TextInput label="Endpoint URL" description="https://…, where your server listens" required w={380} {...form.getInputProps('url')} />
            <TextInput label="Description (optional)" description="What listens there" w={260} {...form.getInputProps('description')} />
            <Button type="submit" mt={44} loading={mutation.isPending}>
              Register endpoint
            </Button>
          </Group>
          <FormError error={formError} />
        </form>
        <QueryState query={endpoints}>
          {(page) => (
            <DataTable
              caption="Webhook endpoints"
              rows={page.data}
              rowKey={(e) => e.id}
              empty={<EmptyState title="No webhook endpoint yet">Register the URL of your server above; every invoice, subscription and payment event is then posted to it.</EmptyState>}
              columns={[
                { header: 'URL', render: (e) => <Anchor component={Link} to={`/developers/webhooks/${e.id}`}>{e.url}</Anchor> },
                { header: 'Description', render: (e) => e.description ?? '—' },
                { header: 'Events', render: (e) => (e.event_types ? e.event_types.join(', ') : 'all') },
                { header: 'Status', render: (e) => (e.enabled ? <Badge color="teal.9">enabled</Badge> : <Badge color="red.9">disabled ({e.disabled_reason?.toLowerCase()})</Badge>) },
                { header: 'Created', render: (e) => dateTime(e.created_at) },
              ]}
            />
          )}
        </QueryState>
      </Stack>
    </>
  );
}
