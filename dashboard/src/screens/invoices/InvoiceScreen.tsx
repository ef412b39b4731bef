import { Alert, List, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { downloadInvoicePdf, getInvoiceById, listCreditNotes, type GetInvoiceByIdResponse } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, dateTime, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { InvoiceActions } from './InvoiceActions';
import { Figure, Section } from '../../components/Section';
import { percent, StatusBadge, stillToPay } from './parts';
import { filenameOf, PdfDocument } from './PdfDocument';

export type Invoice = GetInvoiceByIdResponse;

export default function InvoiceScreen() {
  const { invoiceId = '' } = useParams();
  const invoice = useQuery({ queryKey: ['invoices', invoiceId], queryFn: async () => (await getInvoiceById({ client, path: { invoice_id: invoiceId } })).data! });
  return (
    <QueryState query={invoice} notFound="invoice">
      {(i) => (
        <>
          <PageHeader
            back={{ to: '/invoices', label: 'Invoices' }}
            title={i.status === 'DRAFT' ? 'Draft invoice' : `Invoice ${i.invoice_number}`}
            description={
              <>
                <Text component={Link} to={`/customers/${i.customer_id}`} c="indigo.8" size="sm" td="underline">
                  {i.customer_details.name}
                </Text>
                {` · ${i.invoice_type.toLowerCase().replace('_', ' ')} · ${i.currency} · id ${i.id}`}
              </>
            }
            actions={<InvoiceActions invoice={i} />}
          />
          <Stack gap="xl">
            <SimpleGrid cols={{ base: 2, md: 6 }}>
              <Figure label="Status" value={<StatusBadge status={i.status} />} />
              <Figure label="Payment" value={<StatusBadge status={i.payment_status} />} />
              <Figure label="Invoice date" value={date(i.invoice_date)} />
              <Figure label="Due date" value={date(i.due_date)} />
              <Figure label="Total" value={money(i.total, i.currency)} />
              <Figure label="Still to pay" value={money(stillToPay(i), i.currency)} />
            </SimpleGrid>
            <Lines invoice={i} />
            <Taxes invoice={i} />
            <Totals invoice={i} />
            <Payments invoice={i} />
            {i.e_invoicing && i.e_invoicing.status !== 'NOT_APPLICABLE' && <EInvoice outcome={i.e_invoicing} />}
            <CreditNotes invoice={i} />
            <Section title="PDF">
              <PdfDocument
                title={`PDF of ${i.status === 'DRAFT' ? 'the draft invoice' : `invoice ${i.invoice_number}`}`}
                // A draft's preview changes with it; a finalized invoice's PDF never does.
                queryKey={['invoices', i.id, 'pdf', i.status, i.updated_at]}
                load={async () => {
                  const { data, response } = await downloadInvoicePdf({ client, path: { invoice_id: i.id } });
                  return { blob: data as Blob, filename: filenameOf(response, `${i.invoice_number}.pdf`) };
                }}
              />
            </Section>
          </Stack>
        </>
      )}
    </QueryState>
  );
}

function Lines({ invoice: i }: { invoice: Invoice }) {
  type Line = Invoice['line_items'][number];
  return (
    <Section title="Lines">
      <DataTable<Line>
        caption={`${i.line_items.length} line${i.line_items.length === 1 ? '' : 's'}, amounts in ${i.currency}`}
        rows={i.line_items}
        rowKey={(l) => l.id}
        empty={<EmptyState title="No line">This invoice has nothing billed on it.</EmptyState>}
        columns={[
          {
            header: 'Line',
            render: (l) => (
              <>
                <Text size="sm" fw={600}>{l.name}</Text>
                {l.sub_line_items.length > 0 && (
                  <List size="xs" c="gray.8">
                    {l.sub_line_items.map((s) => <List.Item key={s.id}>{`${s.name}: ${s.quantity} × ${money(s.unit_price)} = ${money(s.total)}`}</List.Item>)}
                  </List>
                )}
              </>
            ),
          },
          { header: 'Period', render: (l) => `${date(l.start_date)} → ${date(l.end_date)}` },
          { header: 'Quantity', numeric: true, render: (l) => l.quantity ?? '—' },
          { header: 'Unit price', numeric: true, render: (l) => money(l.unit_price) },
          { header: 'Subtotal', numeric: true, render: (l) => money(l.amount_subtotal) },
          { header: 'Discount', numeric: true, render: (l) => money(l.discount) },
          { header: 'Tax rate', numeric: true, render: (l) => percent(l.tax_rate) },
          { header: 'Tax', numeric: true, render: (l) => money(l.tax_amount) },
          { header: 'Total', numeric: true, render: (l) => money(l.amount_total) },
        ]}
      />
    </Section>
  );
}

function Taxes({ invoice: i }: { invoice: Invoice }) {
  type Tax = Invoice['tax_breakdown'][number];
  return (
    <Section title="Taxes">
      <DataTable<Tax>
        caption="Tax by rate"
        rows={i.tax_breakdown}
        rowKey={(t) => `${t.name}-${t.tax_rate}`}
        empty={<EmptyState title="No tax">Nothing on this invoice is taxed: its invoicing entity's country and the customer's address decide the tax.</EmptyState>}
        columns={[
          { header: 'Tax', render: (t) => (t.exemption_type ? `${t.name} (${t.exemption_type.toLowerCase().replace('_', ' ')})` : t.name) },
          { header: 'Rate', numeric: true, render: (t) => percent(t.tax_rate) },
          { header: 'Taxable amount', numeric: true, render: (t) => money(t.taxable_amount, i.currency) },
          { header: 'Tax amount', numeric: true, render: (t) => money(t.tax_amount, i.currency) },
        ]}
      />
    </Section>
  );
}

function Totals({ invoice: i }: { invoice: Invoice }) {
  const rows = [
    ['Subtotal', i.subtotal],
    ['Discount', i.discount],
    ['Tax', i.tax_amount],
    ['Total', i.total],
    ['Prepaid credits applied', i.prepaid_credits],
    ['Balance applied', i.applied_credits],
    ['Amount due', i.amount_due],
    ['Paid', i.amount_paid],
    ['Still to pay', stillToPay(i)],
  ] as const;
  return (
    <Section title="Totals">
      <DataTable
        caption={`Totals in ${i.currency}`}
        rows={rows.map(([label, amount]) => ({ label, amount }))}
        rowKey={(r) => r.label}
        columns={[
          { header: 'Amount', render: (r) => r.label },
          { header: i.currency, numeric: true, render: (r) => money(r.amount, i.currency) },
        ]}
      />
    </Section>
  );
}

function Payments({ invoice: i }: { invoice: Invoice }) {
  type Transaction = Invoice['transactions'][number];
  return (
    <Section title="Payments">
      <DataTable<Transaction>
        caption={i.paid_at ? `Paid in full on ${dateTime(i.paid_at)}` : 'Payments recorded on this invoice'}
        rows={i.transactions}
        rowKey={(t) => t.id}
        empty={<EmptyState title="No payment yet">{i.status === 'FINALIZED' ? 'A charge of the customer\'s payment method, or a payment you record (Record a payment), shows here.' : 'Payments are taken once the invoice is finalized.'}</EmptyState>}
        columns={[
          { header: 'Date', render: (t) => dateTime(t.processed_at) },
          { header: 'Type', render: (t) => t.payment_type.toLowerCase() },
          { header: 'Status', render: (t) => t.status.toLowerCase() },
          { header: 'Method', render: (t) => (t.payment_method_info ? [t.payment_method_info.payment_method_type, t.payment_method_info.card_brand, t.payment_method_info.card_last4 ?? t.payment_method_info.account_number_hint].filter(Boolean).join(' ') : 'recorded by hand') },
          { header: 'Reference', render: (t) => t.provider_transaction_id ?? '—' },
          { header: 'Amount', numeric: true, render: (t) => money(t.amount, t.currency) },
        ]}
      />
    </Section>
  );
}

/** The structured e-invoice's outcome (EN 16931 checks), shown once the entity opted in and it was generated. */
export function EInvoice({ outcome }: { outcome: NonNullable<Invoice['e_invoicing']> }) {
  return (
    <Section title="E-invoice">
      <Alert color={outcome.status === 'VALID' ? 'green' : 'red'} title={`${outcome.format ?? 'E-invoice'}: ${outcome.status.toLowerCase()}`}>
        {outcome.status === 'VALID' ? (
          'The structured document passed every EN 16931 rule checked.'
        ) : (
          <List size="sm">
            {outcome.errors.map((e) => <List.Item key={e.rule}>{`${e.rule}: ${e.message}`}</List.Item>)}
          </List>
        )}
      </Alert>
    </Section>
  );
}

function CreditNotes({ invoice: i }: { invoice: Invoice }) {
  const notes = useQuery({ queryKey: ['credit-notes', 'invoice', i.id], queryFn: async () => (await listCreditNotes({ client, query: { invoice_id: i.id, per_page: 50 } })).data!.data });
  return (
    <Section title="Credit notes">
      <QueryState query={notes}>
        {(rows) => (
          <DataTable
            caption="Credit notes against this invoice"
            rows={rows}
            rowKey={(n) => n.id}
            empty={<EmptyState title="No credit note">{i.status === 'FINALIZED' ? 'Issue a credit note to credit all or part of a line (Issue a credit note, above).' : 'Only a finalized invoice can be credited.'}</EmptyState>}
            columns={[
              { header: 'Number', render: (n) => <Text component={Link} to={`/credit-notes/${n.id}`} c="indigo.8" fw={600} size="sm">{n.status === 'DRAFT' ? 'Draft' : n.credit_note_number}</Text> },
              { header: 'Status', render: (n) => <StatusBadge status={n.status} /> },
              { header: 'Reason', render: (n) => n.reason },
              { header: 'Tax', numeric: true, render: (n) => money(n.tax_amount, n.currency) },
              { header: 'Total', numeric: true, render: (n) => money(n.total, n.currency) },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}
