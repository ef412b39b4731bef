import { Button, Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { getPlanDetails, listAddons, listSubscriptionEntitlements, previewUpcomingInvoice, removeSubscriptionAddOn, subscriptionDetails } from '@tally-billing/sdk';
import { toApiError } from '../../app/api';
import { client } from '../../app/client';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { date, money } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { AddAddOnForm, CancelForm, ChangePlanForm, SlotsForm } from './changes';
import { Figure, Section } from '../../components/Section';
import { InvoicePreview, feeText, StatusBadge, todayUtc, type SubscriptionDetails } from './parts';

const LIVE = ['PENDING_ACTIVATION', 'TRIAL_ACTIVE', 'ACTIVE', 'PAST_DUE'];
/** A fee row in force now or later (rows that ended stay listed, dimmed out of the action forms). */
const current = (row: { effective_to: string | null }) => row.effective_to === null || row.effective_to > todayUtc();

export default function SubscriptionScreen() {
  const { subscriptionId = '' } = useParams();
  const [dialog, setDialog] = useState<'change' | 'cancel' | null>(null);
  const subscription = useQuery({ queryKey: ['subscriptions', subscriptionId], queryFn: async () => (await subscriptionDetails({ client, path: { subscription_id: subscriptionId } })).data! });
  const upcoming = useQuery({
    queryKey: ['subscriptions', subscriptionId, 'upcoming-invoice'],
    queryFn: async () => {
      try {
        return (await previewUpcomingInvoice({ client, path: { subscription_id: subscriptionId } })).data!;
      } catch (error) {
        if (toApiError(error).status === 404) return null; // nothing left to invoice
        throw error;
      }
    },
    enabled: subscription.isSuccess,
  });

  return (
    <QueryState query={subscription} notFound="subscription">
      {(s) => {
        const live = LIVE.includes(s.status) && !s.cancel_effective_date;
        return (
          <>
            <PageHeader
              back={{ to: '/subscriptions', label: 'Subscriptions' }}
              title={`${s.plan_name} v${s.plan_version}`}
              description={
                <>
                  <Text component={Link} to={`/customers/${s.customer_id}`} c="indigo.8" size="sm" fw={600}>
                    {s.customer_name}
                  </Text>
                  {` · ${s.currency} · id ${s.id}`}
                </>
              }
              actions={
                live && (
                  <>
                    <Button variant="default" onClick={() => setDialog('change')} disabled={Boolean(s.scheduled_plan_change)}>
                      Change plan
                    </Button>
                    <Button variant="default" onClick={() => setDialog('cancel')}>
                      Cancel subscription
                    </Button>
                  </>
                )
              }
            />
            <Stack gap="xl">
              <SimpleGrid cols={{ base: 2, md: 4 }}>
                <Figure label="Status" value={<StatusBadge status={s.status} />} />
                <Figure label="Current period" value={`${date(s.current_period_start)} → ${date(s.current_period_end)}`} />
                <Figure label="Next invoice" value={date(s.next_invoice_date)} />
                <Figure label="MRR" value={money(s.mrr, s.currency)} />
                <Figure label="Started" value={date(s.start_date)} />
                <Figure label="Billing" value={`${s.period.toLowerCase()}, ${s.net_terms} days to pay`} />
                <Figure label="Ends" value={s.cancel_effective_date ? `cancels on ${date(s.cancel_effective_date)}` : s.end_date ? date(s.end_date) : 'not scheduled'} />
                <Figure label="Plan change" value={s.scheduled_plan_change ? `scheduled on ${date(s.scheduled_plan_change.effective_date)}` : 'none scheduled'} />
              </SimpleGrid>
              <Section title="Components">
                <DataTable
                  caption="Fees of this subscription, past, current and scheduled"
                  rows={s.components}
                  rowKey={(c) => c.id}
                  columns={[
                    { header: 'Component', render: (c) => c.name },
                    { header: 'Type', render: (c) => c.fee.type.toLowerCase() },
                    { header: 'Price', render: (c) => feeText(c.fee, s.currency, c.period) },
                    { header: 'In force', render: (c) => `${date(c.effective_from)} → ${c.effective_to ? date(c.effective_to) : 'open'}` },
                  ]}
                />
              </Section>
              <Slots sub={s} live={live} />
              <AddOns sub={s} live={live} />
              <Entitlements subscriptionId={s.id} />
              <Section title="Upcoming invoice">
                <QueryState query={upcoming}>
                  {(invoice) =>
                    invoice ? (
                      <InvoicePreview invoice={invoice} caption="The next invoice, computed now with the usage so far (not stored)" />
                    ) : (
                      <EmptyState title="No invoice to come">This subscription has nothing left to invoice.</EmptyState>
                    )
                  }
                </QueryState>
              </Section>
            </Stack>
            <Modal opened={dialog === 'change'} onClose={() => setDialog(null)} title="Change plan" size="xl">
              {dialog === 'change' && <ChangePlanForm sub={s} upcoming={upcoming.data} onDone={() => setDialog(null)} />}
            </Modal>
            <Modal opened={dialog === 'cancel'} onClose={() => setDialog(null)} title="Cancel the subscription" size="lg">
              {dialog === 'cancel' && <CancelForm sub={s} onDone={() => setDialog(null)} />}
            </Modal>
          </>
        );
      }}
    </QueryState>
  );
}

function Slots({ sub, live }: { sub: SubscriptionDetails; live: boolean }) {
  const rows = sub.components.filter((c) => c.fee.type === 'SLOT' && c.price_component_id && current(c));
  if (rows.length === 0) return null;
  // the last row of a component is its count from now on (a decrease is dated at the period end)
  const latest = [...new Map(rows.map((c) => [c.price_component_id!, c])).values()];
  return (
    <Section title="Slots">
      <Stack gap="sm">
        {latest.map((c) =>
          live ? (
            <SlotsForm key={`${c.id}-${c.fee.initial_slots}`} sub={sub} componentId={c.price_component_id!} name={c.name} slots={c.fee.initial_slots ?? 0} />
          ) : (
            <Text key={c.id}>{`${c.name}: ${c.fee.initial_slots ?? 0} ${c.fee.unit ?? 'slots'}`}</Text>
          ),
        )}
      </Stack>
    </Section>
  );
}

function AddOns({ sub, live }: { sub: SubscriptionDetails; live: boolean }) {
  const queryClient = useQueryClient();
  const version = useQuery({
    queryKey: ['catalog', 'plans', sub.plan_id, String(sub.plan_version)],
    queryFn: async () => (await getPlanDetails({ client, path: { plan_id: sub.plan_id }, query: { version: String(sub.plan_version) } })).data!,
  });
  const addons = useQuery({ queryKey: ['catalog', 'addons'], queryFn: async () => (await listAddons({ client, query: { per_page: 100, include_archived: true } })).data!.data });
  const remove = useMutation({
    mutationFn: async (rowId: string) => (await removeSubscriptionAddOn({ client, path: { subscription_id: sub.id, subscription_add_on_id: rowId } })).data!,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscriptions'] }),
  });
  const nameOf = (id: string) => addons.data?.find((a) => a.id === id)?.name ?? id;
  const taken = new Set(sub.add_ons.filter((a) => a.effective_to === null).map((a) => a.add_on_id));
  const offered = (version.data?.add_ons ?? []).filter((a) => !taken.has(a.add_on_id)).map((a) => ({ value: a.add_on_id, label: nameOf(a.add_on_id) }));
  return (
    <Section title="Add-ons">
      <Stack gap="sm">
        <DataTable
          caption="Add-ons of this subscription"
          rows={sub.add_ons}
          rowKey={(a) => a.id}
          empty={<EmptyState title="No add-on">{live ? 'Add one the plan offers below; it is charged from today, prorated.' : 'This subscription had no add-on.'}</EmptyState>}
          columns={[
            { header: 'Add-on', render: (a) => a.name },
            { header: 'Quantity', numeric: true, render: (a) => a.quantity },
            { header: 'Price', render: (a) => feeText(a.fee, sub.currency, a.period) },
            { header: 'In force', render: (a) => `${date(a.effective_from)} → ${a.effective_to ? date(a.effective_to) : 'open'}` },
            {
              header: 'At period end',
              render: (a) =>
                live && a.effective_to === null ? (
                  <Button size="xs" variant="default" aria-label={`Remove ${a.name} at the end of the period`} loading={remove.isPending && remove.variables === a.id} onClick={() => remove.mutate(a.id)}>
                    Remove
                  </Button>
                ) : (
                  '—'
                ),
            },
          ]}
        />
        {remove.isError && <ErrorAlert error={remove.error} />}
        {live && version.isSuccess && <AddAddOnForm sub={sub} offered={offered} offersAny={version.data.add_ons.length > 0} />}
      </Stack>
    </Section>
  );
}

function Entitlements({ subscriptionId }: { subscriptionId: string }) {
  const entitlements = useQuery({ queryKey: ['subscriptions', subscriptionId, 'entitlements'], queryFn: async () => (await listSubscriptionEntitlements({ client, path: { subscription_id: subscriptionId } })).data!.data });
  return (
    <Section title="Entitlements">
      <QueryState query={entitlements}>
        {(rows) => (
          <DataTable
            caption="Features this subscription gives"
            rows={rows}
            rowKey={(e) => e.feature.id}
            empty={<EmptyState title="No entitlement">Features come from the plan and its add-ons (Catalog), or are set on the subscription through the API.</EmptyState>}
            columns={[
              { header: 'Feature', render: (e) => `${e.feature.name} (${e.feature.code})` },
              { header: 'Type', render: (e) => e.value.type.toLowerCase() },
              { header: 'Value', render: (e) => (e.value.type === 'BOOLEAN' ? (e.value.enabled ? 'enabled' : 'disabled') : `limit ${e.value.spec?.limit ?? 'unlimited'}`) },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}
