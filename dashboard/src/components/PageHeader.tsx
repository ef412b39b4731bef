import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** The one visible h1 of a screen, with what it is for and its main actions on the right. */
export function PageHeader({ title, description, actions, back }: { title: ReactNode; description?: ReactNode; actions?: ReactNode; back?: { to: string; label: string } }) {
  return (
    <Group justify="space-between" align="flex-start" mb="lg" wrap="wrap">
      <Stack gap={4}>
        {back && (
          <Text component={Link} to={back.to} size="sm" c="indigo.8">
            ← {back.label}
          </Text>
        )}
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="gray.7" size="sm" maw={720}>
            {description}
          </Text>
        )}
      </Stack>
      {actions && <Group>{actions}</Group>}
    </Group>
  );
}
