import { Badge, Button, Modal, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { createPortalToken, getCreditBalance, getCustomer, getEffectiveEntitlements, listCreditGrants, listInvoices, listSubscriptions } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, dateTime, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { CustomerForm } from './CustomerForm';
import { CustomerUsage } from './CustomerUsage';

export default function CustomerScreen() {
  const { customerId = '' } = useParams();
  const [editing, setEditing] = useState(false);
  const customer = useQuery({ queryKey: ['customers', customerId], queryFn: async () => (await getCustomer({ client, path: { id_or_alias: customerId } })).data! });
  const portal = useMutation({ mutationFn: async () => (await createPortalToken({ client, path: { id_or_alias: customerId }, body: {} })).data! });

  return (
    <QueryState query={customer} notFound="customer">
      {(c) => (
        <>
          <PageHeader
            back={{ to: '/customers', label: 'Customers' }}
            title={c.name}
            description={[c.alias ? `alias ${c.alias}` : undefined, c.billing_email ?? 'no billing e-mail', c.currency, `id ${c.id}`].filter(Boolean).join(' · ')}
            actions={
              <>
                <Button variant="light" onClick={() => setEditing(true)}>
                  Edit
                </Button>
                <Button onClick={() => portal.mutate()} loading={portal.isPending}>
                  Create portal link
                </Button>
              </>
            }
          />
          <Stack gap="xl">
            {portal.error && <ErrorAlert error={portal.error} />}
            {portal.data && (
              <Paper withBorder p="md" role="status">
                <TextInput label="Portal link for this customer" readOnly value={portal.data.portal_url} onFocus={(e) => e.currentTarget.select()} />
                <Text size="sm" c="gray.8" mt={4}>
                  Valid until {dateTime(portal.data.expires_at)}. Send it to the customer; it opens their self-service portal.
                </Text>
              </Paper>
            )}
            <Balance customerId={c.id} cashBalance={c.balance} currency={c.currency} />
            <Subscriptions customerId={c.id} />
            <Invoices customerId={c.id} />
            <CustomerUsage customerId={c.id} />
            <Entitlements customerId={c.id} />
          </Stack>
          <Modal opened={editing} onClose={() => setEditing(false)} title="Edit the customer">
            <CustomerForm customer={c} onDone={() => setEditing(false)} />
          </Modal>
        </>
      )}
    </QueryState>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-label={title}>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {children}
    </section>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="gray.7">
        {label}
      </Text>
      <Text fw={700}>{value}</Text>
    </Paper>
  );
}

function Balance({ customerId, cashBalance, currency }: { customerId: string; cashBalance: string; currency: string }) {
  const balance = useQuery({ queryKey: ['customers', customerId, 'credit-balance'], queryFn: async () => (await getCreditBalance({ client, path: { id_or_alias: customerId } })).data! });
  const grants = useQuery({ queryKey: ['customers', customerId, 'credit-grants'], queryFn: async () => (await listCreditGrants({ client, path: { id_or_alias: customerId }, query: { per_page: 50 } })).data!.data });
  return (
    <Section title="Balance and credits">
      <QueryState query={balance}>
        {(b) => (
          <SimpleGrid cols={{ base: 2, md: 5 }} mb="sm">
            <Figure label="Cash balance" value={money(cashBalance, currency)} />
            <Figure label="Prepaid credits" value={money(b.balance, b.currency)} />
            <Figure label="Usage accrued, not yet invoiced" value={money(b.accrued_usage, b.currency)} />
            <Figure label="Projected credits" value={money(b.projected_balance, b.currency)} />
            <Figure label="Top-ups awaiting payment" value={money(b.pending_top_ups, b.currency)} />
          </SimpleGrid>
        )}
      </QueryState>
      <QueryState query={grants}>
        {(rows) => (
          <DataTable
            caption="Credit grants"
            rows={rows}
            rowKey={(g) => g.id}
            empty={<EmptyState title="No credit grant">Grant prepaid or promotional credits with POST /api/v1/customers/{'{id}'}/credit-grants; they pay usage before the card is charged.</EmptyState>}
            columns={[
              { header: 'Name', render: (g) => g.name },
              { header: 'Type', render: (g) => g.type.toLowerCase() },
              { header: 'Status', render: (g) => <Badge variant="light" color={g.status === 'ACTIVE' ? 'green' : 'gray'} c={g.status === 'ACTIVE' ? 'green.9' : 'gray.9'}>{g.status.toLowerCase().replace('_', ' ')}</Badge> },
              { header: 'Granted', numeric: true, render: (g) => money(g.amount, g.currency) },
              { header: 'Remaining', numeric: true, render: (g) => money(g.remaining, g.currency) },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}

function Subscriptions({ customerId }: { customerId: string }) {
  const subs = useQuery({ queryKey: ['subscriptions', 'customer', customerId], queryFn: async () => (await listSubscriptions({ client, query: { customer_id: customerId, per_page: 50 } })).data!.data });
  return (
    <Section title="Subscriptions">
      <Button component={Link} to={`/subscriptions/new?customer=${customerId}`} variant="light" size="xs" mb="xs">
        New subscription
      </Button>
      <QueryState query={subs}>
        {(rows) => (
          <DataTable
            caption="Subscriptions of this customer"
            rows={rows}
            rowKey={(s) => s.id}
            empty={
              <EmptyState title="No subscription">Subscribe this customer to a published plan with New subscription, or with POST /api/v1/subscriptions (customer_id_or_alias, plan_id, start_date).</EmptyState>
            }
            columns={[
              { header: 'Plan', render: (s) => <Text component={Link} to={`/subscriptions/${s.id}`} c="indigo.8" fw={600} size="sm">{`${s.plan_name} v${s.plan_version}`}</Text> },
              { header: 'Status', render: (s) => s.status.toLowerCase().replace('_', ' ') },
              { header: 'Current period', render: (s) => `${date(s.current_period_start)} → ${date(s.current_period_end)}` },
              { header: 'Billing', render: (s) => `${s.period.toLowerCase()}, ${s.currency}` },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}

function Invoices({ customerId }: { customerId: string }) {
  const invoices = useQuery({ queryKey: ['invoices', 'customer', customerId], queryFn: async () => (await listInvoices({ client, query: { customer_id: customerId, per_page: 20 } })).data!.data });
  return (
    <Section title="Invoices">
      <QueryState query={invoices}>
        {(rows) => (
          <DataTable
            caption="Latest invoices of this customer"
            rows={rows}
            rowKey={(i) => i.id}
            empty={<EmptyState title="No invoice yet">Invoices appear when a subscription starts or a period ends.</EmptyState>}
            columns={[
              { header: 'Number', render: (i) => <Text component={Link} to={`/invoices/${i.id}`} c="indigo.8" fw={600} size="sm" ff="monospace">{i.status === 'DRAFT' ? 'Draft' : i.invoice_number}</Text> },
              { header: 'Date', render: (i) => date(i.invoice_date) },
              { header: 'Status', render: (i) => `${i.status.toLowerCase()}, ${i.payment_status.toLowerCase().replace('_', ' ')}` },
              { header: 'Total', numeric: true, render: (i) => money(i.total, i.currency) },
              { header: 'Due', numeric: true, render: (i) => money(i.amount_due, i.currency) },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}

function Entitlements({ customerId }: { customerId: string }) {
  const entitlements = useQuery({ queryKey: ['customers', customerId, 'entitlements'], queryFn: async () => (await getEffectiveEntitlements({ client, path: { id_or_alias: customerId } })).data!.data });
  return (
    <Section title="Entitlements">
      <QueryState query={entitlements}>
        {(rows) => (
          <DataTable
            caption="Features this customer has now"
            rows={rows}
            rowKey={(e) => e.feature.id}
            empty={<EmptyState title="No entitlement">Features come from the plans and add-ons the customer subscribes to, or are set for the customer through the API.</EmptyState>}
            columns={[
              { header: 'Feature', render: (e) => `${e.feature.name} (${e.feature.code})` },
              { header: 'Type', render: (e) => e.value.type.toLowerCase() },
              { header: 'Value', render: (e) => (e.value.type === 'BOOLEAN' ? (e.value.enabled ? 'enabled' : 'disabled') : `limit ${e.value.spec?.limit ?? 'unlimited'}`) },
              { header: 'Consumed', numeric: true, render: (e) => e.value.usage?.consumed ?? '—' },
              { header: 'Remaining', numeric: true, render: (e) => e.value.usage?.remaining ?? '—' },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}
