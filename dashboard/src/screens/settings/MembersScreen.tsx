import { Anchor, Badge, Button, Group, Modal, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { addMember, listMembers, removeMember } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { useSession } from '../../app/session';
import { DataTable } from '../../components/DataTable';
import { dateTime } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';

const MEMBERS = ['members'];

type Member = NonNullable<Awaited<ReturnType<typeof listMembers>>['data']>['data'][number];

const roleLabel = (role: string) => (role === 'ADMIN' ? 'administrator' : 'member');

function AddMemberForm() {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', role: 'MEMBER' as 'ADMIN' | 'MEMBER' },
    submit: async (values) => (await addMember({ client, body: values })).data!,
    invalidates: [MEMBERS],
    onDone: (_member, f) => f.reset(),
  });
  return (
    <form onSubmit={onSubmit} aria-label="Add a member">
      <Group align="flex-start">
        <TextInput label="E-mail of the user to add" description="They sign up at /signup first" type="email" required w={320} {...form.getInputProps('email')} />
        <Select
          label="Role"
          description="Administrators add and remove members"
          allowDeselect={false}
          w={260}
          data={[
            { value: 'MEMBER', label: 'Member' },
            { value: 'ADMIN', label: 'Administrator' },
          ]}
          {...form.getInputProps('role')}
        />
        <Button type="submit" mt={44} loading={mutation.isPending}>
          Add member
        </Button>
      </Group>
      <FormError error={formError} />
    </form>
  );
}

/** The members of the chosen organization (GET/POST/DELETE /api/v1/members), and the user's own organizations. */
export default function MembersScreen() {
  const session = useSession();
  const queryClient = useQueryClient();
  const isAdmin = session.organization?.role === 'ADMIN';
  const members = useQuery({ queryKey: MEMBERS, queryFn: async () => (await listMembers({ client })).data!.data });
  const [removing, setRemoving] = useState<Member | undefined>();
  const remove = useMutation({
    mutationFn: async (id: string) => (await removeMember({ client, path: { user_id: id } })).data,
    onSuccess: async () => {
      setRemoving(undefined);
      await queryClient.invalidateQueries({ queryKey: MEMBERS });
    },
  });
  return (
    <>
      <PageHeader
        title="Organizations and members"
        description={`Who can sign in to ${session.organization?.name ?? 'this organization'}: members reach both its production and sandbox environments.`}
      />
      <Stack gap="xl">
        <section aria-labelledby="members-title">
          <Title order={2} size="h4" id="members-title" mb="xs">
            Members of {session.organization?.name}
          </Title>
          <Stack gap="md">
            {isAdmin ? <AddMemberForm /> : <Text size="sm">Only an administrator of the organization adds and removes members.</Text>}
            <QueryState query={members}>
              {(rows) => (
                <DataTable
                  caption={`Members: ${rows.length}`}
                  rows={rows}
                  rowKey={(m) => m.id}
                  columns={[
                    { header: 'E-mail', render: (m) => <>{m.email} {m.id === session.user.id && <Badge color="gray.8" ml={4}>you</Badge>}</> },
                    { header: 'Role', render: (m) => roleLabel(m.role) },
                    { header: 'Joined', render: (m) => dateTime(m.created_at) },
                    ...(isAdmin
                      ? [{
                          header: 'Actions',
                          render: (m: Member) => (
                            <Button size="xs" variant="light" color="red" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                              Remove
                            </Button>
                          ),
                        }]
                      : []),
                  ]}
                />
              )}
            </QueryState>
          </Stack>
        </section>
        <section aria-labelledby="organizations-title">
          <Title order={2} size="h4" id="organizations-title" mb="xs">
            Your organizations
          </Title>
          <DataTable
            caption="Organizations you belong to"
            rows={session.organizations}
            rowKey={(o) => o.id}
            columns={[
              { header: 'Organization', render: (o) => o.name },
              { header: 'Your role', render: (o) => roleLabel(o.role) },
              { header: 'Environments', render: (o) => o.tenants.map((t) => `${t.environment} (${t.id})`).join(', ') },
            ]}
          />
          <Text size="sm" mt="md">
            Create another organization on your <Anchor href="/account">account page</Anchor>.
          </Text>
        </section>
      </Stack>
      <Modal opened={removing !== undefined} onClose={() => setRemoving(undefined)} title="Remove a member">
        <Text>
          Remove <strong>{removing?.email}</strong> from {session.organization?.name}? They can no longer sign in to it; their account and other organizations are kept.
        </Text>
        {remove.error && <ErrorAlert error={remove.error} />}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setRemoving(undefined)}>
            Cancel
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => removing && remove.mutate(removing.id)}>
            Remove this member
          </Button>
        </Group>
      </Modal>
    </>
  );
}
