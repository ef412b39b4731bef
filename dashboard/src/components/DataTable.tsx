import { Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  render: (row: T) => ReactNode;
  /** Right-aligned (amounts). */
  numeric?: boolean;
}

/**
 * A list as an accessible table (caption, column headers). `empty` is shown instead of an empty
 * table: say there what to do next (components/EmptyState).
 */
export function DataTable<T>({ caption, columns, rows, rowKey, empty, minWidth = 600 }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty?: ReactNode; /** Narrower, the table scrolls sideways (px). */ minWidth?: number }) {
  if (rows.length === 0 && empty) return <>{empty}</>;
  return (
    // The viewport scrolls sideways when the table is wider than its column: it takes the focus (a group
    // named by the caption) so that the keyboard can scroll it too (axe: scrollable-region-focusable).
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'group', 'aria-label': caption } }}>
      <Table striped highlightOnHover verticalSpacing="xs" captionSide="top">
        <Table.Caption>
          <Text size="sm" fw={600} ta="left" c="gray.8">
            {caption}
          </Text>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.header} ta={c.numeric ? 'right' : undefined} scope="col">
                {c.header}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.header} ta={c.numeric ? 'right' : undefined}>
                  {c.render(row)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
