import { Group, Paper, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled part of a detail screen, a region named by its title (`getByRole('region', { name })`). */
export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </section>
  );
}

/** One labelled figure (an amount, a date) in a row of them. */
export function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="gray.7">
        {label}
      </Text>
      <Text fw={700} component="div">
        {value}
      </Text>
    </Paper>
  );
}
