import { Badge, Button, Group, Modal, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorAlert } from '../../components/QueryState';

/** A "New …" button opening its create form in a dialog; the form gets `close` to call when saved. */
export function CreateButton({ label, title, children }: { label: string; title: string; children: (close: () => void) => ReactNode }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button onClick={open}>{label}</Button>
      <Modal opened={opened} onClose={close} title={title} size="lg">
        {opened && children(close)}
      </Modal>
    </>
  );
}

/**
 * A row's "Edit" button opening its edit form in a dialog; `what` names the row for screen readers
 * ("Edit API calls"), since every row has one. The form gets `close` to call when saved.
 */
export function EditButton({ what, title, children }: { what: string; title: string; children: (close: () => void) => ReactNode }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button variant="subtle" size="compact-sm" aria-label={`Edit ${what}`} onClick={open}>
        Edit
      </Button>
      <Modal opened={opened} onClose={close} title={title} size="lg">
        {opened && children(close)}
      </Modal>
    </>
  );
}

/** The buttons at the end of a create or edit form. */
export function FormButtons({ pending, label = 'Create', onCancel }: { pending: boolean; label?: string; onCancel?: () => void }) {
  return (
    <Group justify="flex-end" mt="md">
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
      )}
      <Button type="submit" loading={pending}>
        {label}
      </Button>
    </Group>
  );
}

/**
 * Mantine draws input descriptions in its "dimmed" gray, below WCAG AA contrast on white (axe
 * finds it); forms of the catalog use a darker gray for them.
 */
export const READABLE_HINTS = { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' } as React.CSSProperties;

/** A form laid out as a column of labelled inputs. */
export function FormStack({ onSubmit, children }: { onSubmit: (event?: React.FormEvent<HTMLFormElement>) => void; children: ReactNode }) {
  return (
    <form onSubmit={onSubmit} noValidate style={READABLE_HINTS}>
      <Stack gap="sm">{children}</Stack>
    </form>
  );
}

const STATUS_COLORS: Record<string, string> = { ACTIVE: 'green', DRAFT: 'gray', INACTIVE: 'yellow', ARCHIVED: 'red', DISABLED: 'yellow' };

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="light" c="gray.9">
      {status.toLowerCase()}
    </Badge>
  );
}

/** A button running one action (publish, archive...), with its refusal shown under it. */
export function ActionButton({ label, run, invalidates, variant = 'light', color }: { label: string; run: () => Promise<unknown>; invalidates: readonly QueryKey[]; variant?: string; color?: string }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: run,
    onSuccess: () => Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  return (
    <Stack gap={4}>
      <Button variant={variant} color={color} loading={mutation.isPending} onClick={() => mutation.mutate()}>
        {label}
      </Button>
      {mutation.isError && <ErrorAlert error={mutation.error} />}
    </Stack>
  );
}
