import { Button, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/**
 * An unknown path, or an id the API does not find in the current tenant: it may not exist, or
 * belong to another organization or environment; the screen shows no data either way.
 */
export function NotFound({ what }: { what: string }) {
  return (
    <Stack align="flex-start" gap="sm" py="xl" data-testid="not-found">
      <Title order={1} size="h2">
        Not found
      </Title>
      <Text>
        There is no such {what} here. It may have been deleted, the link may be mistyped, or it may belong to another organization or environment: check the organization and the
        environment at the top.
      </Text>
      <Button component={Link} to="/" variant="light">
        Go to Home
      </Button>
    </Stack>
  );
}
