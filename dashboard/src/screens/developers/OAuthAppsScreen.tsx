import { Anchor, Button, Group, Stack, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { createOauthApp, listOauthApps } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { SecretOnce } from '../../components/SecretOnce';

export const OAUTH_APPS = ['oauth-apps'];

/** One redirect URI a line, as the form shows them; blank lines dropped. */
export const uriLines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);

export default function OAuthAppsScreen() {
  const apps = useQuery({ queryKey: OAUTH_APPS, queryFn: async () => (await listOauthApps({ client, query: { per_page: 100 } })).data! });
  const [created, setCreated] = useState<{ name: string; secret: string; clientId: string } | undefined>();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', redirect_uris: '' },
    submit: async (values) => (await createOauthApp({ client, body: { name: values.name, redirect_uris: uriLines(values.redirect_uris) } })).data!,
    invalidates: [OAUTH_APPS],
    onDone: (app, f) => {
      setCreated({ name: app.name, secret: app.client_secret, clientId: app.client_id });
      f.reset();
    },
  });

  return (
    <>
      <PageHeader title="OAuth apps" description="Platforms that act for other merchants: each app gets a client id and secret, and sends merchants to the consent page, which returns them to one of its redirect URIs (docs/oauth.md)." />
      <Stack gap="lg">
        {created && <SecretOnce label={`Client secret of ${created.name} (client id ${created.clientId})`} value={created.secret} onDone={() => setCreated(undefined)} />}
        <form onSubmit={onSubmit} aria-label="Create an OAuth app">
          <Stack gap="sm" maw={560}>
            <TextInput label="App name" description="Shown to merchants on the consent page" required {...form.getInputProps('name')} />
            <Textarea label="Redirect URIs" description="One a line, e.g. https://platform.example/oauth/callback" required autosize minRows={2} {...form.getInputProps('redirect_uris')} />
            <FormError error={formError} />
            <Group>
              <Button type="submit" loading={mutation.isPending}>
                Create app
              </Button>
            </Group>
          </Stack>
        </form>
        <QueryState query={apps}>
          {(page) => (
            <DataTable
              caption="OAuth apps"
              rows={page.data}
              rowKey={(a) => a.id}
              empty={<EmptyState title="No OAuth app yet">Create one above if you build a platform on top of this billing service; its client secret is shown once.</EmptyState>}
              columns={[
                { header: 'Name', render: (a) => <Anchor component={Link} to={`/developers/oauth-apps/${a.id}`}>{a.name}</Anchor> },
                { header: 'Client id', render: (a) => <code>{a.client_id}</code> },
                { header: 'Secret', render: (a) => <code>{a.client_secret_hint}</code> },
                { header: 'Redirect URIs', render: (a) => a.redirect_uris.join(', ') },
                { header: 'Created', render: (a) => dateTime(a.created_at) },
              ]}
            />
          )}
        </QueryState>
      </Stack>
    </>
  );
}
