import { Alert, Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { createSubscription, getPlanDetails, listCustomers, listPlans, previewSubscriptionInvoice, type CreateSubscriptionData } from '@tally-billing/sdk';
import { toApiError } from '../../app/api';
import { client } from '../../app/client';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/QueryState';
import { InvoicePreview, todayUtc, type Invoice } from './parts';

type Body = CreateSubscriptionData['body'];
interface Values extends Record<string, unknown> {
  customer_id_or_alias: string;
  plan_id: string;
  start_date: string;
  billing_start_date: string;
  trial_days: number | string;
  net_terms: number | string;
  coupon_codes: string[];
  /** Per plan component: the billing period chosen (components priced in several terms), the initial slot count (slot components). */
  parameters: Record<string, { billing_period?: string; initial_slot_count?: number | string }>;
}

const TERM_LABELS: Record<string, string> = { MONTHLY: 'Monthly', QUARTERLY: 'Quarterly', SEMIANNUAL: 'Every six months', ANNUAL: 'Annual' };
const optionalNumber = (value: number | string) => (value === '' || value === undefined ? undefined : Number(value));

/** The request body the form's values make, the same for the preview and the creation. */
function bodyOf(v: Values): Body {
  const parameterized = Object.entries(v.parameters)
    .map(([component_id, p]) => ({ component_id, parameters: { billing_period: p.billing_period || undefined, initial_slot_count: optionalNumber(p.initial_slot_count ?? '') } }))
    .filter((p) => p.parameters.billing_period !== undefined || p.parameters.initial_slot_count !== undefined) as NonNullable<NonNullable<Body['price_components']>['parameterized_components']>;
  return {
    customer_id_or_alias: v.customer_id_or_alias,
    plan_id: v.plan_id || undefined,
    start_date: v.start_date,
    billing_start_date: v.billing_start_date || undefined,
    trial_days: optionalNumber(v.trial_days),
    net_terms: optionalNumber(v.net_terms),
    coupon_codes: v.coupon_codes.length > 0 ? v.coupon_codes : undefined,
    price_components: parameterized.length > 0 ? { parameterized_components: parameterized } : undefined,
  };
}

/**
 * Subscribes a customer to a published plan in two steps: "Preview the first invoice" asks the
 * API for the invoice this subscription would get (nothing stored; refusals show under the field
 * they name), then "Create subscription" sends the same body. Changing a field asks for a new preview.
 */
export default function NewSubscriptionScreen() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [previewed, setPreviewed] = useState<{ body: string; invoice: Invoice | null }>();
  const customers = useQuery({ queryKey: ['customers', 'picker'], queryFn: async () => (await listCustomers({ client, query: { per_page: 100 } })).data!.data });
  const plans = useQuery({ queryKey: ['catalog', 'plans'], queryFn: async () => (await listPlans({ client, query: { per_page: 100 } })).data!.data });
  const { form, onSubmit, mutation, formError } = useApiForm<Values, { body: string; invoice: Invoice | null }>({
    initialValues: { customer_id_or_alias: params.get('customer') ?? '', plan_id: '', start_date: todayUtc(), billing_start_date: '', trial_days: '', net_terms: '', coupon_codes: [], parameters: {} },
    submit: async (v) => {
      const body = bodyOf(v);
      try {
        return { body: JSON.stringify(body), invoice: (await previewSubscriptionInvoice({ client, body })).data! };
      } catch (error) {
        // a start in the future: nothing is invoiced before it; the subscription can still be created
        if (toApiError(error).status === 404) return { body: JSON.stringify(body), invoice: null };
        throw error;
      }
    },
    onDone: (result) => setPreviewed(result),
  });
  const values = form.getValues();
  const plan = useQuery({
    queryKey: ['catalog', 'plans', values.plan_id, 'published'],
    queryFn: async () => (await getPlanDetails({ client, path: { plan_id: values.plan_id } })).data!,
    enabled: values.plan_id !== '',
  });
  const create = useMutation({
    mutationFn: async () => (await createSubscription({ client, body: bodyOf(form.getValues()) })).data!,
    onSuccess: async (subscription) => {
      await queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      navigate(`/subscriptions/${subscription.id}`);
    },
  });
  const current = JSON.stringify(bodyOf(values));
  const preview = previewed?.body === current ? previewed : undefined;
  const customer = customers.data?.find((c) => c.id === values.customer_id_or_alias);
  const published = (plans.data ?? []).filter((p) => p.status === 'ACTIVE' && (!customer || p.currency === customer.currency));
  const billingPeriods = Object.entries(plan.data?.available_parameters.billing_periods ?? {});
  const slotComponents = plan.data?.available_parameters.slot_components ?? [];
  // a component's entry does not exist until its first choice (a form path into it would set nothing)
  const setParameter = (componentId: string, choice: Values['parameters'][string]) =>
    form.setFieldValue('parameters', { ...form.getValues().parameters, [componentId]: { ...form.getValues().parameters[componentId], ...choice } });
  const componentName = (id: string) => plan.data?.price_components.find((c) => c.id === id)?.name ?? id;

  return (
    <>
      <PageHeader back={{ to: '/subscriptions', label: 'Subscriptions' }} title="New subscription" description="Subscribe a customer to a published plan. You see the first invoice before anything is created." />
      <form onSubmit={onSubmit} aria-label="New subscription" noValidate style={{ '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' } as React.CSSProperties}>
        <Stack gap="md" maw={880}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select label="Customer" required searchable data={(customers.data ?? []).map((c) => ({ value: c.id, label: `${c.name} (${c.currency})` }))} {...form.getInputProps('customer_id_or_alias')} />
            <Select
              label="Plan"
              required
              searchable
              description={customer ? `Published plans priced in ${customer.currency}` : 'Published plans'}
              data={published.map((p) => ({ value: p.id, label: `${p.name} v${p.version} (${p.currency})` }))}
              {...form.getInputProps('plan_id')}
              onChange={(id) => {
                form.setFieldValue('plan_id', id ?? '');
                form.setFieldValue('parameters', {});
              }}
            />
            <TextInput label="Start date" type="date" required description="The first day of service (UTC)" {...form.getInputProps('start_date')} />
            <TextInput label="Billing start date" type="date" description="Optional: when billing starts, if later than the start" {...form.getInputProps('billing_start_date')} />
            <NumberInput label="Trial days" min={0} allowDecimal={false} description="Optional: overrides the plan's trial" {...form.getInputProps('trial_days')} />
            <NumberInput label="Payment terms (days)" min={0} allowDecimal={false} description="Optional: days to pay each invoice; the plan's by default" {...form.getInputProps('net_terms')} />
          </SimpleGrid>
          <TagsInput label="Coupon codes" description="Optional: type a code and press Enter" {...form.getInputProps('coupon_codes')} />
          {(billingPeriods.length > 0 || slotComponents.length > 0) && (
            <Paper withBorder p="md">
              <Title order={2} size="h5" mb="xs">
                Choices of this plan
              </Title>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                {billingPeriods.map(([componentId, terms]) => (
                  <Select
                    key={componentId}
                    label={`Billing period of ${componentName(componentId)}`}
                    required
                    data={terms.map((t) => ({ value: t, label: TERM_LABELS[t] ?? t }))}
                    value={values.parameters[componentId]?.billing_period ?? null}
                    onChange={(term) => setParameter(componentId, { billing_period: term ?? undefined })}
                  />
                ))}
                {slotComponents.map((componentId) => (
                  <NumberInput key={componentId} label={`Slots of ${componentName(componentId)}`} min={0} allowDecimal={false} description="Initial count; the plan's minimum by default" value={values.parameters[componentId]?.initial_slot_count ?? ''} onChange={(count) => setParameter(componentId, { initial_slot_count: count })} />
                ))}
              </SimpleGrid>
            </Paper>
          )}
          <FormError error={formError} />
          <Group>
            <Button type="submit" variant={preview ? 'default' : 'filled'} loading={mutation.isPending}>
              Preview the first invoice
            </Button>
          </Group>
          {preview && (
            <Paper withBorder p="md" role="region" aria-label="First invoice">
              <Title order={2} size="h4" mb="xs">
                First invoice
              </Title>
              {preview.invoice ? (
                <InvoicePreview invoice={preview.invoice} caption="Lines of the first invoice (computed now, not stored)" />
              ) : (
                <Alert color="blue" title="Nothing to invoice yet">
                  The subscription starts on {values.start_date}: its first invoice is computed when it starts.
                </Alert>
              )}
              {create.isError && <ErrorAlert error={create.error} />}
              <Group mt="md">
                <Button onClick={() => create.mutate()} loading={create.isPending}>
                  Create subscription
                </Button>
                <Text size="sm" c="gray.7">
                  Creates it with exactly these settings.
                </Text>
              </Group>
            </Paper>
          )}
        </Stack>
      </form>
    </>
  );
}
