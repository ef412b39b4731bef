import { Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { createPlan, getPlanDetails, listPlanVersions, replacePlan, type CreatePlanData, type GetPlanDetailsResponses } from '../../../../sdk/src/index';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { keys, useCatalogClient } from './client';
import { emptyFee, feeBody, productDefaults, feeForm, type FeeForm } from './fee';
import { FeeEditor } from './FeeEditor';
import { optional } from './form';
import { FormButtons, READABLE_HINTS } from './parts';
import { options, useFamilies, useProducts } from './queries';

type Plan = GetPlanDetailsResponses[200];
type PlanType = NonNullable<CreatePlanData['body']['plan_type']>;

interface ComponentForm {
  name: string;
  product_id: string;
  fee: FeeForm;
}

interface PlanForm extends Record<string, unknown> {
  name: string;
  description: string;
  product_family_id: string;
  currency: string;
  plan_type: PlanType;
  components: ComponentForm[];
}

const newComponent = (): ComponentForm => ({ name: '', product_id: '', fee: emptyFee('RATE') });

function fromPlan(plan: Plan): PlanForm {
  return {
    name: plan.name,
    description: plan.description ?? '',
    product_family_id: plan.product_family.id,
    currency: plan.currency,
    plan_type: plan.plan_type,
    components: plan.price_components.map((c) => ({ name: c.name, product_id: c.product_id, fee: feeForm(c.fee) })),
  };
}

/**
 * Creates a plan (its version 1, as a draft), or, with a plan id, stages its next version: the
 * draft is rewritten if there is one, else a new draft version starts from the version shown.
 * Either way nothing is sold until "Publish" on the plan's page.
 */
function PlanEditor({ plan }: { plan?: Plan }) {
  const client = useCatalogClient();
  const navigate = useNavigate();
  const families = useFamilies();
  const products = useProducts();
  const { form, onSubmit, mutation, formError } = useApiForm<PlanForm, Plan>({
    initialValues: plan ? fromPlan(plan) : { name: '', description: '', product_family_id: '', currency: 'USD', plan_type: 'STANDARD', components: [newComponent()] },
    submit: async (v) => {
      const components = v.components.map((c) => ({ name: c.name, product_id: c.product_id, fee: feeBody(c.fee) }));
      if (plan) {
        return (await replacePlan({ client, path: { plan_id: plan.id }, body: { name: v.name, currency: v.currency, components, status: 'DRAFT' }, throwOnError: true })).data;
      }
      const body: CreatePlanData['body'] = { name: v.name, description: optional(v.description) ?? null, product_family_id: v.product_family_id, currency: v.currency, plan_type: v.plan_type, components };
      return (await createPlan({ client, body, throwOnError: true })).data;
    },
    invalidates: [keys.plans],
    onDone: (saved) => navigate(`/catalog/plans/${saved.id}`),
  });
  const values = form.getValues();

  /** Choosing a product sets the component's fee type (and metric) to the product's. */
  const chooseProduct = (index: number, productId: string | null) => {
    const product = products.data?.find((p) => p.id === productId);
    form.setFieldValue(`components.${index}.product_id`, productId ?? '');
    if (!product) return;
    const fee = emptyFee(product.fee_type);
    Object.assign(fee, productDefaults(product.fee_structure, fee));
    form.setFieldValue(`components.${index}.fee`, fee);
    if (!values.components[index]?.name) form.setFieldValue(`components.${index}.name`, product.name);
  };

  return (
    <form onSubmit={onSubmit} noValidate style={READABLE_HINTS}>
      <Stack>
        <PageHeader title={plan ? `New version of ${plan.name}` : 'New plan'} back={plan ? { to: `/catalog/plans/${plan.id}`, label: plan.name } : { to: '/catalog/plans', label: 'Plans' }} description="Saved as a draft version: publish it on the plan's page to sell it." />
        <FormError error={formError} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required {...form.getInputProps('name')} />
          <TextInput label="Currency" required description="ISO 4217, e.g. USD" {...form.getInputProps('currency')} />
          {!plan && (
            <>
              <Select label="Product family" required data={options(families.data)} {...form.getInputProps('product_family_id')} />
              <Select label="Plan type" allowDeselect={false} data={['STANDARD', 'FREE', 'CUSTOM']} {...form.getInputProps('plan_type')} />
              <TextInput label="Description" {...form.getInputProps('description')} />
            </>
          )}
        </SimpleGrid>
        <Title order={2} size="h3">
          Price components
        </Title>
        {values.components.length === 0 && <Text c="gray.7">No components: add one for each product this plan charges for.</Text>}
        {values.components.map((component, i) => (
          <Paper key={i} withBorder p="md" radius="md" component="fieldset" aria-label={`Component ${i + 1}`}>
            <Stack gap="sm">
              <Group align="flex-end" grow>
                <TextInput label={`Component ${i + 1} name`} required {...form.getInputProps(`components.${i}.name`)} />
                <Select
                  label={`Component ${i + 1} product`}
                  required
                  data={(products.data ?? []).filter((p) => !p.archived_at).map((p) => ({ value: p.id, label: `${p.name} (${p.fee_type})` }))}
                  {...form.getInputProps(`components.${i}.product_id`)}
                  onChange={(value) => chooseProduct(i, value)}
                />
              </Group>
              {component.product_id ? (
                <FeeEditor form={form} path={`components.${i}.fee`} fee={component.fee} label={`Component ${i + 1}`} />
              ) : (
                <Text size="sm" c="gray.7">
                  Choose the product: its fee type decides what this component prices.
                </Text>
              )}
              <Group justify="flex-end">
                <Button variant="subtle" color="red" size="xs" onClick={() => form.removeListItem('components', i)}>
                  Remove component {i + 1}
                </Button>
              </Group>
            </Stack>
          </Paper>
        ))}
        <Group>
          <Button variant="light" onClick={() => form.insertListItem('components', newComponent())}>
            Add a component
          </Button>
        </Group>
        <FormButtons pending={mutation.isPending} label={plan ? 'Save draft version' : 'Create draft plan'} onCancel={() => navigate(-1)} />
      </Stack>
    </form>
  );
}

export function NewPlanScreen() {
  return <PlanEditor />;
}

/** The plan's draft if it has one, else the version it shows. */
export function PlanVersionEditorScreen() {
  const { planId = '' } = useParams();
  const client = useCatalogClient();
  const plan = useQuery({
    queryKey: ['catalog', 'plan-editing', planId],
    queryFn: async () => {
      const versions = (await listPlanVersions({ client, path: { plan_id: planId }, throwOnError: true })).data.data;
      const version = versions[0]?.is_draft ? 'draft' : undefined;
      return (await getPlanDetails({ client, path: { plan_id: planId }, query: version ? { version } : undefined, throwOnError: true })).data;
    },
    retry: false,
    staleTime: Infinity,
  });
  return (
    <QueryState query={plan} notFound="plan">
      {(p) => <PlanEditor plan={p} />}
    </QueryState>
  );
}
