import { Button, Group, Modal, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { BillingApiError, createCreditNote, finalizeCreditNote, voidCreditNote, type GetCreditNoteResponse } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { money } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { ErrorAlert } from '../../components/QueryState';
import type { Invoice } from './InvoiceScreen';
import { BILLING_QUERIES, CreditNoteLines, percent } from './parts';

type CreditNote = GetCreditNoteResponse;

/**
 * Issues a credit note against a finalized invoice in two steps. First the merchant says how much
 * of each line to credit (net, before tax; lines left empty are not credited) and the API
 * creates a DRAFT, which computes the tax of each line. Then the draft's lines, tax and total
 * are shown: **Finalize** numbers and settles it, **Discard** voids the draft (nothing credited).
 */
export function IssueCreditNote({ invoice }: { invoice: Invoice }) {
  const [opened, { open, close }] = useDisclosure(false);
  const [draft, setDraft] = useState<CreditNote>();
  return (
    <>
      <Button variant="light" onClick={() => { setDraft(undefined); open(); }}>
        Issue a credit note
      </Button>
      <Modal opened={opened} onClose={close} title={draft ? 'Confirm the credit note' : 'Issue a credit note'} size="xl">
        {opened && (draft ? <ConfirmDraft draft={draft} onDiscarded={close} /> : <CreditForm invoice={invoice} onDraft={setDraft} />)}
      </Modal>
    </>
  );
}

function CreditForm({ invoice: i, onDraft }: { invoice: Invoice; onDraft: (draft: CreditNote) => void }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { reason: '', credit_type: 'CREDIT_TO_BALANCE' as CreditNote['credit_type'], lines: i.line_items.map(() => ({ amount: '' })) },
    submit: async (v) => {
      // Only the lines given an amount are sent; `sent[k]` is the form index of the k-th line sent.
      const sent = v.lines.flatMap((line, index) => (line.amount.trim() ? [index] : []));
      try {
        const body = {
          invoice_id: i.id,
          reason: v.reason.trim(),
          credit_type: v.credit_type,
          ...(sent.length ? { lines: sent.map((index) => ({ invoice_line_id: i.line_items[index]!.id, amount: v.lines[index]!.amount.trim() })) } : {}),
        };
        return (await createCreditNote({ client, body })).data!;
      } catch (error) {
        // The API names `lines[k]` of what was sent: point the message at that line's input.
        if (error instanceof BillingApiError) {
          const message = error.message.replace(/^lines\[(\d+)\]/, (whole, k: string) => (sent[Number(k)] === undefined ? whole : `lines[${sent[Number(k)]}]`));
          throw new BillingApiError(error.status, { code: error.code, message });
        }
        throw error;
      }
    },
    invalidates: [['credit-notes']],
    onDone: (draft) => onDraft(draft),
  });
  type Row = Invoice['line_items'][number] & { index: number };
  return (
    <form onSubmit={onSubmit} aria-label="Credit note amounts" noValidate>
      <Stack gap="sm">
        <TextInput label="Reason" description="Shown on the credit note, e.g. Service outage on 12 March." required {...form.getInputProps('reason')} />
        <Radio.Group label="Settle the credit" {...form.getInputProps('credit_type')}>
          <Stack gap={6} mt={6}>
            <Radio value="CREDIT_TO_BALANCE" label="Cancel what the invoice still owes, the rest to the customer's balance" />
            <Radio value="REFUND" label="Cancel what the invoice still owes, the rest refunded (you pay it back)" />
          </Stack>
        </Radio.Group>
        <DataTable<Row>
          caption={`Amount to credit per line, net of tax, in ${i.currency}. Leave every line empty to credit all that is left on the invoice.`}
          rows={i.line_items.map((line, index) => ({ ...line, index }))}
          rowKey={(l) => l.id}
          columns={[
            { header: 'Line', render: (l) => l.name },
            { header: 'Net on the invoice', numeric: true, render: (l) => money(l.taxable_amount) },
            { header: 'Tax rate', numeric: true, render: (l) => percent(l.tax_rate) },
            { header: 'Credit (net)', render: (l) => <TextInput aria-label={`Amount to credit on ${l.name}`} placeholder={l.taxable_amount} w={140} {...form.getInputProps(`lines.${l.index}.amount`)} /> },
          ]}
        />
        <FormError error={formError} />
        <Group justify="flex-end">
          <Button type="submit" loading={mutation.isPending}>
            Compute the tax
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The draft as the API computed it (tax per line, totals), before it is finalized. */
function ConfirmDraft({ draft, onDiscarded }: { draft: CreditNote; onDiscarded: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const refresh = () => Promise.all(BILLING_QUERIES.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  const finalize = useMutation({
    mutationFn: async () => (await finalizeCreditNote({ client, path: { credit_note_id: draft.id } })).data!,
    onSuccess: async (note) => {
      await refresh();
      navigate(`/credit-notes/${note.id}`);
    },
  });
  const discard = useMutation({
    mutationFn: () => voidCreditNote({ client, path: { credit_note_id: draft.id } }),
    onSuccess: async () => {
      await refresh();
      onDiscarded();
    },
  });
  return (
    <Stack gap="sm" role="region" aria-label="Credit note draft">
      <Text size="sm">
        The draft computed the tax below. Finalize to number it and settle {money(draft.total, draft.currency)}: what the invoice still owes is cancelled first, the rest{' '}
        {draft.credit_type === 'REFUND' ? 'is recorded as a refund to pay back' : "goes to the customer's balance"}.
      </Text>
      <CreditNoteLines note={draft} caption={`Credit note draft, in ${draft.currency}`} />
      <Group justify="flex-end" gap="xl">
        <Text size="sm">Subtotal {money(draft.subtotal, draft.currency)}</Text>
        <Text size="sm" fw={700} data-testid="credit-note-tax">
          Tax {money(draft.tax_amount, draft.currency)}
        </Text>
        <Text size="sm" fw={700}>
          Total {money(draft.total, draft.currency)}
        </Text>
      </Group>
      {finalize.isError && <ErrorAlert error={finalize.error} />}
      {discard.isError && <ErrorAlert error={discard.error} />}
      <Group justify="flex-end">
        <Button variant="default" color="red" loading={discard.isPending} onClick={() => discard.mutate()}>
          Discard the draft
        </Button>
        <Button loading={finalize.isPending} onClick={() => finalize.mutate()}>
          Finalize the credit note
        </Button>
      </Group>
    </Stack>
  );
}
