import { Group, Pagination } from '@mantine/core';

/** Page links under a list (0-based `page`, as the API counts); nothing when there is one page. */
export function Pages({ total, page, onChange }: { total: number; page: number; onChange: (page: number) => void }) {
  if (total <= 1) return null;
  return (
    <Group justify="flex-end">
      <Pagination total={total} value={page + 1} onChange={(p) => onChange(p - 1)} getControlProps={(control) => ({ 'aria-label': `${control} page` })} getItemProps={(p) => ({ 'aria-label': `Page ${p}` })} />
    </Group>
  );
}
