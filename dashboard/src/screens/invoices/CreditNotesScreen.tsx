import { Group, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { listCreditNotes } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { Pages } from '../../components/Pages';
import { CustomerFilter, StatusFilter } from './filters';
import { StatusBadge } from './parts';

const PER_PAGE = 25;

export default function CreditNotesScreen() {
  const [statuses, setStatuses] = useState<string[]>([]);
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [page, setPage] = useState(0);
  const filtered = statuses.length > 0 || customerId !== null;
  const notes = useQuery({
    queryKey: ['credit-notes', 'list', statuses, customerId, page],
    queryFn: async () => (await listCreditNotes({ client, query: { statuses: statuses.length ? statuses : undefined, customer_id: customerId ?? undefined, page, per_page: PER_PAGE } })).data!,
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Credit notes" description="What was credited back on finalized invoices, newest first. Issue one from an invoice's page (Issue a credit note)." />
      <Stack gap="md">
        <Group align="flex-end">
          <StatusFilter statuses={['DRAFT', 'FINALIZED', 'VOIDED']} value={statuses} onChange={(v) => { setStatuses(v); setPage(0); }} />
          <CustomerFilter value={customerId} onChange={(v) => { setCustomerId(v); setPage(0); }} />
        </Group>
        <QueryState query={notes}>
          {(result) => (
            <>
              <DataTable
                caption={`${filtered ? 'Credit notes matching the filters' : 'All credit notes'}: ${result.pagination_meta.total_items}`}
                rows={result.data}
                rowKey={(n) => n.id}
                empty={
                  filtered ? (
                    <EmptyState title="No credit note matches these filters">Clear the status or customer filter to see the others.</EmptyState>
                  ) : (
                    <EmptyState title="No credit note yet" action={<Text component={Link} to="/invoices" c="indigo.8" size="sm" fw={600}>Go to the invoices</Text>}>
                      Open a finalized invoice and choose Issue a credit note to credit all or part of its lines.
                    </EmptyState>
                  )
                }
                columns={[
                  { header: 'Number', render: (n) => <Text component={Link} to={`/credit-notes/${n.id}`} c="indigo.8" fw={600} size="sm" style={{ whiteSpace: 'nowrap' }}>{n.status === 'DRAFT' ? 'Draft' : n.credit_note_number}</Text> },
                  // The list has the invoice's id only: its last characters tell invoices apart, the link opens it.
                  { header: 'Invoice', render: (n) => <Text component={Link} to={`/invoices/${n.invoice_id}`} c="indigo.8" size="sm" ff="monospace" title={n.invoice_id} style={{ whiteSpace: 'nowrap' }}>{`inv_…${n.invoice_id.slice(-6)}`}</Text> },
                  { header: 'Reason', render: (n) => n.reason },
                  { header: 'Status', render: (n) => <StatusBadge status={n.status} /> },
                  { header: 'Settled as', render: (n) => (n.credit_type === 'REFUND' ? 'refund' : 'credit to balance') },
                  { header: 'Created', render: (n) => date(n.created_at) },
                  { header: 'Total', numeric: true, render: (n) => money(n.total, n.currency) },
                ]}
              />
              <Pages total={result.pagination_meta.total_pages} page={page} onChange={setPage} />
            </>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
