import { SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { downloadCreditNotePdf, finalizeCreditNote, getCreditNote, voidCreditNote, type GetCreditNoteResponse } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { dateTime, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { EInvoice } from './InvoiceScreen';
import { Figure, Section } from '../../components/Section';
import { ConfirmAction, CreditNoteLines, percent, StatusBadge } from './parts';
import { filenameOf, PdfDocument } from './PdfDocument';

type CreditNote = GetCreditNoteResponse;

export default function CreditNoteScreen() {
  const { creditNoteId = '' } = useParams();
  const note = useQuery({ queryKey: ['credit-notes', creditNoteId], queryFn: async () => (await getCreditNote({ client, path: { credit_note_id: creditNoteId } })).data! });
  return (
    <QueryState query={note} notFound="credit note">
      {(n) => (
        <>
          <PageHeader
            back={{ to: '/credit-notes', label: 'Credit notes' }}
            title={n.status === 'DRAFT' ? 'Draft credit note' : `Credit note ${n.credit_note_number}`}
            description={
              <>
                {`${n.reason} · credits `}
                <Text component={Link} to={`/invoices/${n.invoice_id}`} c="indigo.8" size="sm" td="underline">
                  this invoice
                </Text>
                {` · ${n.currency} · id ${n.id}`}
              </>
            }
            actions={<CreditNoteActions note={n} />}
          />
          <Stack gap="xl">
            <SimpleGrid cols={{ base: 2, md: 6 }}>
              <Figure label="Status" value={<StatusBadge status={n.status} />} />
              <Figure label="Tax" value={money(n.tax_amount, n.currency)} />
              <Figure label="Total" value={money(n.total, n.currency)} />
              <Figure label="Invoice debt cancelled" value={money(n.debt_cancelled_amount, n.currency)} />
              <Figure label="To the customer's balance" value={money(n.credited_amount, n.currency)} />
              <Figure label={n.refund_status ? `Refunded (${n.refund_status.toLowerCase()})` : 'Refunded'} value={money(n.refunded_amount, n.currency)} />
            </SimpleGrid>
            <Section title="Lines">
              <CreditNoteLines note={n} caption={`Credited lines, amounts in ${n.currency}`} />
            </Section>
            <Section title="Taxes">
              <DataTable
                caption="Tax by rate"
                rows={n.tax_breakdown}
                rowKey={(t) => `${t.name}-${t.tax_rate}`}
                columns={[
                  { header: 'Tax', render: (t) => t.name },
                  { header: 'Rate', numeric: true, render: (t) => percent(t.tax_rate) },
                  { header: 'Taxable amount', numeric: true, render: (t) => money(t.taxable_amount, n.currency) },
                  { header: 'Tax amount', numeric: true, render: (t) => money(t.tax_amount, n.currency) },
                ]}
              />
            </Section>
            <Text size="sm" c="gray.8">
              {[`Created ${dateTime(n.created_at)}`, n.finalized_at && `finalized ${dateTime(n.finalized_at)}`, n.voided_at && `voided ${dateTime(n.voided_at)}`].filter(Boolean).join(', ')}
            </Text>
            {n.e_invoicing && n.e_invoicing.status !== 'NOT_APPLICABLE' && <EInvoice outcome={n.e_invoicing} />}
            <Section title="PDF">
              <PdfDocument
                title={`PDF of ${n.status === 'DRAFT' ? 'the draft credit note' : `credit note ${n.credit_note_number}`}`}
                queryKey={['credit-notes', n.id, 'pdf', n.status]}
                load={async () => {
                  const { data, response } = await downloadCreditNotePdf({ client, path: { credit_note_id: n.id } });
                  return { blob: data as Blob, filename: filenameOf(response, `${n.credit_note_number}.pdf`) };
                }}
              />
            </Section>
          </Stack>
        </>
      )}
    </QueryState>
  );
}

function CreditNoteActions({ note: n }: { note: CreditNote }) {
  const path = { credit_note_id: n.id };
  return (
    <>
      {n.status === 'DRAFT' && (
        <ConfirmAction label="Finalize" title="Finalize this credit note?" confirmLabel="Finalize" run={() => finalizeCreditNote({ client, path })}>
          {`It takes the next credit-note number and settles ${money(n.total, n.currency)} (tax ${money(n.tax_amount, n.currency)}): what the invoice still owes is cancelled first, the rest ${n.credit_type === 'REFUND' ? 'is recorded as a refund' : "goes to the customer's balance"}. The customer gets it by e-mail.`}
        </ConfirmAction>
      )}
      {n.status !== 'VOIDED' && (
        <ConfirmAction label="Void" title={n.status === 'DRAFT' ? 'Discard this draft?' : 'Void this credit note?'} confirmLabel="Void" color="red" run={() => voidCreditNote({ client, path })}>
          {n.status === 'DRAFT'
            ? 'The draft is dropped and its amounts can be credited again.'
            : "The credit is reversed: the balance it added is taken back and the invoice debt it cancelled is owed again. Refused if it refunded money or the customer already spent the credit."}
        </ConfirmAction>
      )}
    </>
  );
}
