import { Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import Decimal from 'decimal.js';
import type { ReactNode } from 'react';
import type { GetCreditNoteResponse } from '@tally-billing/sdk';
import { DataTable } from '../../components/DataTable';
import { money } from '../../components/format';
import { ErrorAlert } from '../../components/QueryState';

/** What the invoice and credit-note screens refetch after a write: the lists, the details and the customer's figures. */
export const BILLING_QUERIES: readonly QueryKey[] = [['invoices'], ['credit-notes'], ['customers']];

const STATUS_COLORS: Record<string, string> = {
  DRAFT: 'gray',
  FINALIZED: 'blue',
  UNCOLLECTIBLE: 'red',
  VOID: 'gray',
  VOIDED: 'gray',
  UNPAID: 'yellow',
  PARTIALLY_PAID: 'orange',
  PAID: 'green',
  VALID: 'green',
  INVALID: 'red',
  NOT_APPLICABLE: 'gray',
};

/** A status (invoice, payment, credit note, e-invoice) as a light badge with dark text (readable contrast). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="light" c="gray.9">
      {status.toLowerCase().replace('_', ' ')}
    </Badge>
  );
}

/**
 * What is still to pay on an invoice: the API's `amount_due` is what the invoice asks for (after
 * credits and credit notes) and `amount_paid` what was received, both decimal strings with the
 * currency's digits; their difference keeps those digits (decimal.js, no float arithmetic).
 */
export function stillToPay(invoice: { amount_due: string; amount_paid: string }): string {
  const digits = invoice.amount_due.split('.')[1]?.length ?? 0;
  return Decimal.max(new Decimal(invoice.amount_due).minus(invoice.amount_paid), 0).toFixed(digits);
}

/** A tax rate as the API sends it (a fraction, "0.2") shown as a percentage ("20 %"), without float arithmetic. */
export function percent(rate: string): string {
  const [whole = '0', fraction = ''] = rate.split('.');
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const pointAt = whole.length + 2;
  const shown = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`.replace(/^0+(?=\d)/, '').replace(/\.?0*$/, '');
  return `${shown || '0'} %`;
}

/**
 * A button whose action is confirmed in a dialog first (finalize, void, write off): the dialog
 * says what will happen; the API's refusal is shown in the dialog, which then stays open.
 */
export function ConfirmAction({ label, title, children, confirmLabel, color, run, onDone }: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  color?: string;
  run: () => Promise<unknown>;
  onDone?: () => void;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: run,
    onSuccess: async () => {
      await Promise.all(BILLING_QUERIES.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      close();
      onDone?.();
    },
  });
  return (
    <>
      <Button variant="light" color={color} onClick={() => { mutation.reset(); open(); }}>
        {label}
      </Button>
      <Modal opened={opened} onClose={close} title={title}>
        <Stack gap="sm">
          <Text size="sm">{children}</Text>
          {mutation.isError && <ErrorAlert error={mutation.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color={color} loading={mutation.isPending} onClick={() => mutation.mutate()}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** A credit note's lines with their net, tax rate, tax and total (the note's detail and its draft's review). */
export function CreditNoteLines({ note, caption }: { note: GetCreditNoteResponse; caption: string }) {
  return (
    <DataTable
      caption={caption}
      rows={note.line_items}
      rowKey={(l) => l.id}
      columns={[
        { header: 'Line', render: (l) => l.name },
        { header: 'Net', numeric: true, render: (l) => money(l.taxable_amount) },
        { header: 'Tax rate', numeric: true, render: (l) => percent(l.tax_rate) },
        { header: 'Tax', numeric: true, render: (l) => money(l.tax_amount) },
        { header: 'Total', numeric: true, render: (l) => money(l.amount_total) },
      ]}
    />
  );
}
