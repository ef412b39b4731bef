import { Button, Modal, Stack, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { finalizeInvoice, markInvoicePaid, markInvoiceUncollectible, voidInvoice } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { dayjs, money } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { IssueCreditNote } from './IssueCreditNote';
import type { Invoice } from './InvoiceScreen';
import { BILLING_QUERIES, ConfirmAction, stillToPay } from './parts';

/** A decimal string of zero ("0.00"): nothing paid. */
const NOTHING = /^0(\.0+)?$/;

/** The actions the invoice's status allows (the API's lifecycle: DRAFT -> FINALIZED -> VOID or UNCOLLECTIBLE). */
export function InvoiceActions({ invoice: i }: { invoice: Invoice }) {
  const path = { invoice_id: i.id };
  const owed = i.status === 'FINALIZED' && i.payment_status !== 'PAID';
  return (
    <>
      {i.status === 'DRAFT' && (
        <ConfirmAction label="Finalize" title="Finalize this draft?" confirmLabel="Finalize now" run={() => finalizeInvoice({ client, path })}>
          It takes the next invoice number, its due date ({i.net_terms} days of net terms), the customer&apos;s balance is applied, and it is sent to the customer by e-mail. A finalized
          invoice cannot be edited; it can only be voided or credited.
        </ConfirmAction>
      )}
      {owed && <RecordPayment invoice={i} />}
      {i.status === 'FINALIZED' && <IssueCreditNote invoice={i} />}
      {owed && (
        <ConfirmAction label="Mark uncollectible" title="Write this invoice off?" confirmLabel="Mark uncollectible" color="red" run={() => markInvoiceUncollectible({ client, path })}>
          {`The ${money(stillToPay(i), i.currency)} still due will not be collected. This is final: the invoice cannot be paid or voided afterwards.`}
        </ConfirmAction>
      )}
      {(i.status === 'DRAFT' || (i.status === 'FINALIZED' && NOTHING.test(i.amount_paid))) && (
        <ConfirmAction label="Void" title={i.status === 'DRAFT' ? 'Discard this draft?' : 'Void this invoice?'} confirmLabel="Void" color="red" run={() => voidInvoice({ client, path })}>
          {i.status === 'DRAFT'
            ? 'The draft is discarded and never numbered.'
            : 'The invoice is cancelled: nothing is owed on it any more and the balance it used goes back to the customer. Its number stays used. To cancel part of it, issue a credit note instead.'}
        </ConfirmAction>
      )}
    </>
  );
}

/** Money received outside the service (bank transfer, cheque): amount, date, your reference. */
function RecordPayment({ invoice: i }: { invoice: Invoice }) {
  const [opened, { open, close }] = useDisclosure(false);
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { amount: '', paid_at: '', reference: '' },
    submit: async (v) =>
      (
        await markInvoicePaid({
          client,
          path: { invoice_id: i.id },
          body: { amount: v.amount.trim() || undefined, paid_at: v.paid_at ? `${v.paid_at}T00:00:00Z` : undefined, reference: v.reference.trim() || undefined },
        })
      ).data!,
    invalidates: BILLING_QUERIES,
    onDone: () => close(),
  });
  return (
    <>
      <Button onClick={() => { form.reset(); open(); }}>Record a payment</Button>
      <Modal opened={opened} onClose={close} title="Record a payment">
        <form onSubmit={onSubmit} aria-label="Record a payment" noValidate>
          <Stack gap="sm">
            <TextInput label={`Amount (${i.currency})`} description={`Received, at most the ${money(stillToPay(i), i.currency)} still to pay, e.g. ${stillToPay(i)}. Leave empty for all of it.`} {...form.getInputProps('amount')} />
            {/* The browser's own date picker (keyboard and screen readers included): @mantine/dates' calendar was 10 KB of gzipped JavaScript. */}
            <TextInput type="date" label="Date received" description="Leave empty for today." max={dayjs().format('YYYY-MM-DD')} {...form.getInputProps('paid_at')} />
            <TextInput label="Reference" description="Your reference of the transfer or cheque, e.g. the bank statement line. Optional." {...form.getInputProps('reference')} />
            <FormError error={formError} />
            <Button type="submit" loading={mutation.isPending}>
              Record payment
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
