import { Button, Card, Group, Stack, Switch, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getTenant, updateTenantSettings } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { useSession } from '../../app/session';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';

const TENANT = ['tenant'];

type Tenant = NonNullable<Awaited<ReturnType<typeof getTenant>>["data"]>;

function SettingsForm({ tenant }: { tenant: Tenant }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { disable_emails: tenant.disable_emails },
    submit: async (values) => (await updateTenantSettings({ client, body: values })).data,
    invalidates: [TENANT],
  });
  return (
    <form onSubmit={onSubmit} aria-label="Environment settings">
      <Stack gap="sm">
        <Switch
          label="Do not send e-mails to customers"
          description="Invoices, receipts and reminders are then recorded but not sent. Useful in the sandbox, where customers are test data."
          {...form.getInputProps('disable_emails', { type: 'checkbox' })}
        />
        <FormError error={formError} />
        <Group>
          <Button type="submit" loading={mutation.isPending} disabled={!form.isDirty()}>
            Save settings
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

export default function TenantSettingsScreen() {
  const session = useSession();
  const tenant = useQuery({ queryKey: TENANT, queryFn: async () => (await getTenant({ client })).data! });
  return (
    <>
      <PageHeader title="Environment settings" description={`Settings of the ${session.environment} environment of ${session.organization?.name ?? ''}. Switch environment at the top right.`} />
      <QueryState query={tenant}>
        {(t) => (
          <Stack gap="lg" maw={640}>
            <Card withBorder>
              <Text size="sm">
                Tenant <code>{t.id}</code>, {t.name}, environment <strong>{t.environment}</strong>, created {dateTime(t.created_at)}.
              </Text>
            </Card>
            <SettingsForm key={String(t.disable_emails)} tenant={t} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
