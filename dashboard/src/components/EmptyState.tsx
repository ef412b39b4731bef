import { Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** What a list shows with nothing in it: what would be here, and the next step to get some. */
export function EmptyState({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md" bg="gray.0">
      <Stack align="center" gap="xs" ta="center">
        <Title order={3} size="h4">
          {title}
        </Title>
        <Text c="gray.7" size="sm" maw={520}>
          {children}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}
