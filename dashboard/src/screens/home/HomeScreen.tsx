import { Text } from '@mantine/core';
import { PageHeader } from '../../components/PageHeader';
import { useSession } from '../../app/session';

export default function HomeScreen() {
  const session = useSession();
  return (
    <>
      <PageHeader title="Home" description={`${session.organization?.name ?? ''}, ${session.environment}`} />
      <Text>Figures arrive with the SDK.</Text>
    </>
  );
}
