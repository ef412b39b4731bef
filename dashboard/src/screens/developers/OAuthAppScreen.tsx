import { Button, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { getOauthApp, rotateOauthAppSecret, updateOauthApp } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { SecretOnce } from '../../components/SecretOnce';
import { OAUTH_APPS, uriLines } from './OAuthAppsScreen';

type App = NonNullable<Awaited<ReturnType<typeof getOauthApp>>['data']>;

function EditApp({ app }: { app: App }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: app.name, redirect_uris: app.redirect_uris.join('\n') },
    submit: async (values) => (await updateOauthApp({ client, path: { app_id: app.id }, body: { name: values.name, redirect_uris: uriLines(values.redirect_uris) } })).data!,
    invalidates: [OAUTH_APPS],
  });
  return (
    <form onSubmit={onSubmit} aria-label="Edit the app">
      <Stack gap="sm" maw={560}>
        <TextInput label="App name" required {...form.getInputProps('name')} />
        <Textarea label="Redirect URIs" description="One a line; the consent page only returns to these" required autosize minRows={2} {...form.getInputProps('redirect_uris')} />
        <FormError error={formError} />
        <Group>
          <Button type="submit" loading={mutation.isPending}>
            Save
          </Button>
          {mutation.isSuccess && !form.isDirty() && (
            <Text size="sm" role="status">
              Saved.
            </Text>
          )}
        </Group>
      </Stack>
    </form>
  );
}

export default function OAuthAppScreen() {
  const { appId = '' } = useParams();
  const queryClient = useQueryClient();
  const app = useQuery({ queryKey: [...OAUTH_APPS, appId], queryFn: async () => (await getOauthApp({ client, path: { app_id: appId } })).data! });
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation({
    mutationFn: async () => (await rotateOauthAppSecret({ client, path: { app_id: appId } })).data!,
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: OAUTH_APPS });
    },
  });

  return (
    <QueryState query={app} notFound="OAuth app">
      {(a) => (
        <>
          <PageHeader
            back={{ to: '/developers/oauth-apps', label: 'OAuth apps' }}
            title={a.name}
            description={`Client id ${a.client_id} · secret ${a.client_secret_hint} · created ${dateTime(a.created_at)}`}
            actions={
              <Button variant="light" color="red" onClick={() => setConfirming(true)}>
                Rotate secret
              </Button>
            }
          />
          <Stack gap="lg">
            {rotate.data && <SecretOnce label={`New client secret of ${a.name}`} value={rotate.data.client_secret} onDone={() => rotate.reset()} />}
            <EditApp key={a.updated_at} app={a} />
          </Stack>
          <Modal opened={confirming} onClose={() => setConfirming(false)} title="Rotate the client secret">
            <Text>The current secret stops working now; the platform must use the new one, shown once on the next screen.</Text>
            {rotate.error && <ErrorAlert error={rotate.error} />}
            <Group justify="flex-end" mt="md">
              <Button variant="default" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
              <Button color="red" loading={rotate.isPending} onClick={() => rotate.mutate()}>
                Rotate now
              </Button>
            </Group>
          </Modal>
        </>
      )}
    </QueryState>
  );
}
