import { Alert, Button, Group, NumberInput, Radio, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { addSubscriptionAddOn, cancelSubscription, changeSubscriptionPlan, changeSubscriptionSlots, listPlans, previewSubscriptionPlanChange } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { date, money } from '../../components/format';
import { FormError, useApiForm } from '../../components/forms';
import { ErrorAlert } from '../../components/QueryState';
import { Figure } from '../../components/Section';
import { InvoicePreview, todayUtc, type Invoice, type SubscriptionDetails } from './parts';

/** Forms of the subscription screen that change it; each refetches the subscription (`['subscriptions']`) when done. */
const HINTS = { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' } as React.CSSProperties;

/**
 * Change plan in two steps: "Preview the change" asks the API for the next invoice as it would
 * be after the change (the proration: credit for the unused days of the old fees, new fees by
 * day), shown next to the next invoice without it; "Confirm the plan change" makes it.
 */
export function ChangePlanForm({ sub, upcoming, onDone }: { sub: SubscriptionDetails; upcoming: Invoice | null | undefined; onDone: () => void }) {
  const queryClient = useQueryClient();
  const plans = useQuery({ queryKey: ['catalog', 'plans'], queryFn: async () => (await listPlans({ client, query: { per_page: 100 } })).data!.data });
  const [previewed, setPreviewed] = useState<{ key: string; invoice: Invoice }>();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { plan_id: '', timing: 'IMMEDIATE' as 'IMMEDIATE' | 'END_OF_PERIOD' },
    submit: async (v) => ({ key: JSON.stringify(v), invoice: (await previewSubscriptionPlanChange({ client, path: { subscription_id: sub.id }, body: { plan_id: v.plan_id, timing: v.timing } })).data! }),
    onDone: (result) => setPreviewed(result),
  });
  const values = form.getValues();
  const confirm = useMutation({
    mutationFn: async () => (await changeSubscriptionPlan({ client, path: { subscription_id: sub.id }, body: { plan_id: values.plan_id, timing: values.timing } })).data!,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      onDone();
    },
  });
  const preview = previewed?.key === JSON.stringify(values) ? previewed.invoice : undefined;
  const choices = (plans.data ?? []).filter((p) => p.status === 'ACTIVE' && p.currency === sub.currency && p.version_id !== sub.plan_version_id);
  return (
    <form onSubmit={onSubmit} aria-label="Change plan" noValidate style={HINTS}>
      <Stack gap="sm">
        <Text size="sm">
          Now on <b>{`${sub.plan_name} v${sub.plan_version}`}</b>. Plans in {sub.currency} only.
        </Text>
        <Select label="New plan" required searchable data={choices.map((p) => ({ value: p.id, label: `${p.name} v${p.version}` }))} {...form.getInputProps('plan_id')} data-autofocus />
        <Radio.Group label="When" {...form.getInputProps('timing')}>
          <Stack gap={6} mt={6}>
            <Radio value="IMMEDIATE" label="Now: credit the unused days of the current fees, charge the new ones by day" />
            <Radio value="END_OF_PERIOD" label={`At the end of the current period (${date(sub.current_period_end)})`} />
          </Stack>
        </Radio.Group>
        <FormError error={formError} />
        <Group>
          <Button type="submit" variant={preview ? 'default' : 'filled'} loading={mutation.isPending}>
            Preview the change
          </Button>
        </Group>
        {preview && (
          <section aria-label="Invoice after the change">
            <SimpleGrid cols={2} mb="xs">
              <Figure label="Next invoice without the change" value={upcoming ? money(upcoming.total, upcoming.currency) : 'none'} />
              <Figure label="Next invoice with the change" value={money(preview.total, preview.currency)} />
            </SimpleGrid>
            <InvoicePreview invoice={preview} caption="Next invoice after the change, with its proration (computed now, not stored)" />
            {confirm.isError && <ErrorAlert error={confirm.error} />}
            <Button mt="md" onClick={() => confirm.mutate()} loading={confirm.isPending}>
              Confirm the plan change
            </Button>
          </section>
        )}
      </Stack>
    </form>
  );
}

/** Cancel at the end of the current period, or today (UTC) for an immediate end. */
export function CancelForm({ sub, onDone }: { sub: SubscriptionDetails; onDone: () => void }) {
  const today = todayUtc();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { when: 'END_OF_PERIOD', reason: '' },
    submit: async (v) => (await cancelSubscription({ client, path: { subscription_id: sub.id }, body: { effective_date: v.when === 'NOW' ? today : undefined, reason: v.reason.trim() || undefined } })).data!,
    invalidates: [['subscriptions']],
    onDone,
  });
  return (
    <form onSubmit={onSubmit} aria-label="Cancel the subscription" noValidate style={HINTS}>
      <Stack gap="sm">
        <Radio.Group label="When does the service end?" {...form.getInputProps('when')}>
          <Stack gap={6} mt={6}>
            <Radio value="END_OF_PERIOD" label={`At the end of the current period (${date(sub.current_period_end)}): nothing is credited`} />
            <Radio value="NOW" label={`Immediately (today, ${today} UTC): the final invoice credits the unused advance fees`} />
          </Stack>
        </Radio.Group>
        <TextInput label="Reason" description="Optional, kept on the subscription, e.g. Moving to the annual contract" {...form.getInputProps('reason')} />
        <FormError error={formError} />
        <Group>
          <Button type="submit" color="red" loading={mutation.isPending}>
            Cancel the subscription
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Adds an add-on the plan version offers, from today (prorated by invoicing). */
export function AddAddOnForm({ sub, offered, offersAny }: { sub: SubscriptionDetails; offered: { value: string; label: string }[]; offersAny: boolean }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { add_on_id: '', quantity: 1 as number | string },
    submit: async (v) => (await addSubscriptionAddOn({ client, path: { subscription_id: sub.id }, body: { add_on_id: v.add_on_id, quantity: Number(v.quantity) } })).data!,
    invalidates: [['subscriptions']],
    onDone: (_, f) => f.reset(),
  });
  if (!offersAny) return <Alert color="gray">This plan version offers no add-on: offer some in the plan (Catalog) to add them here.</Alert>;
  if (offered.length === 0) return <Alert color="gray">Every add-on this plan version offers is on the subscription: change its quantity through the API, or remove it.</Alert>;
  return (
    <form onSubmit={onSubmit} aria-label="Add an add-on" noValidate style={HINTS}>
      <Group align="flex-start">
        <Select label="Add-on" required data={offered} w={280} {...form.getInputProps('add_on_id')} />
        <NumberInput label="Quantity" min={1} allowDecimal={false} w={120} {...form.getInputProps('quantity')} />
        <Button type="submit" mt={25} loading={mutation.isPending}>
          Add add-on
        </Button>
      </Group>
      <FormError error={formError} />
    </form>
  );
}

/** Sets the slot count of one slot component: more today (prorated), fewer at the period end. */
export function SlotsForm({ sub, componentId, name, slots }: { sub: SubscriptionDetails; componentId: string; name: string; slots: number }) {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { slots: slots as number | string },
    submit: async (v) => (await changeSubscriptionSlots({ client, path: { subscription_id: sub.id }, body: { price_component_id: componentId, slots: Number(v.slots) } })).data!,
    invalidates: [['subscriptions']],
  });
  return (
    <form onSubmit={onSubmit} aria-label={`Change the slots of ${name}`} noValidate style={HINTS}>
      <Group align="flex-start">
        <NumberInput label={`Slots of ${name}`} description="More apply today; fewer at the end of the period" min={0} allowDecimal={false} w={320} {...form.getInputProps('slots')} />
        <Button type="submit" mt={45} loading={mutation.isPending}>
          Update slots
        </Button>
      </Group>
      <FormError error={formError} />
    </form>
  );
}
