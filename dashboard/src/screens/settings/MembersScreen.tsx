import { Anchor, Text } from '@mantine/core';
import { useSession } from '../../app/session';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';

/** The organizations of the signed-in user and their role: what the session says (no members API yet). */
export default function MembersScreen() {
  const session = useSession();
  return (
    <>
      <PageHeader title="Organizations and members" description="The organizations you belong to, with your role and their environments." />
      <DataTable
        caption="Your organizations"
        rows={session.organizations}
        rowKey={(o) => o.id}
        columns={[
          { header: 'Organization', render: (o) => o.name },
          { header: 'Your role', render: (o) => (o.role === 'ADMIN' ? 'administrator' : 'member') },
          { header: 'Environments', render: (o) => o.tenants.map((t) => `${t.environment} (${t.id})`).join(', ') },
        ]}
      />
      <Text size="sm" mt="md">
        Create another organization on your <Anchor href="/account">account page</Anchor>. Listing and inviting other members needs an API that does not exist yet.
      </Text>
    </>
  );
}
