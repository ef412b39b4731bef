import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { archivePlan, getPlanDetails, listPlanVersions, publishPlan, unarchivePlan } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { dateTime, money } from '../../components/format';
import { keys, useCatalogClient } from './client';
import { feeSummary } from './fee';
import { ActionButton, StatusBadge } from './parts';
import { useMetrics, useProducts } from './queries';

export default function PlanDetailScreen() {
  const { planId = '' } = useParams();
  const [search] = useSearchParams();
  const version = search.get('version') ?? undefined;
  const client = useCatalogClient();
  const products = useProducts();
  const metrics = useMetrics();
  const planKey = ['catalog', 'plan', planId];
  const plan = useQuery({
    queryKey: [...planKey, version ?? 'current'],
    queryFn: async () => (await getPlanDetails({ client, path: { plan_id: planId }, query: version ? { version } : undefined, throwOnError: true })).data,
    retry: false,
  });
  const versions = useQuery({
    queryKey: [...planKey, 'versions'],
    queryFn: async () => (await listPlanVersions({ client, path: { plan_id: planId }, query: { per_page: 100 }, throwOnError: true })).data.data,
    retry: false,
    enabled: plan.isSuccess,
  });
  const productName = (id: string) => products.data?.find((p) => p.id === id)?.name ?? id;
  const metricName = (id: string | undefined) => (id ? (metrics.data?.find((m) => m.id === id)?.name ?? id) : '');
  const invalidates = [planKey, keys.plans, ['catalog', 'plan-editing', planId]];
  const hasDraft = versions.data?.[0]?.is_draft ?? false;

  return (
    <QueryState query={plan} notFound="plan">
      {(p) => (
        <Stack>
          <PageHeader
            title={p.name}
            description={p.description ?? undefined}
            back={{ to: '/catalog/plans', label: 'Plans' }}
            actions={
              <>
                {hasDraft && p.status !== 'ARCHIVED' && <ActionButton label="Publish draft" variant="filled" run={() => publishPlan({ client, path: { plan_id: p.id }, throwOnError: true })} invalidates={invalidates} />}
                {p.status !== 'ARCHIVED' && (
                  <Button component={Link} to={`/catalog/plans/${p.id}/edit`} variant="light">
                    {hasDraft ? 'Edit draft' : 'New version'}
                  </Button>
                )}
                {p.status === 'ARCHIVED' ? (
                  <ActionButton label="Unarchive" run={() => unarchivePlan({ client, path: { plan_id: p.id }, throwOnError: true })} invalidates={invalidates} />
                ) : (
                  <ActionButton label="Archive" color="red" run={() => archivePlan({ client, path: { plan_id: p.id }, throwOnError: true })} invalidates={invalidates} />
                )}
              </>
            }
          />
          <SimpleGrid cols={{ base: 2, sm: 5 }}>
            <Text size="sm">
              Status <StatusBadge status={p.status} />
            </Text>
            <Text size="sm">
              Showing version {p.version}
              {p.is_draft ? ' (draft)' : ''}
            </Text>
            <Text size="sm">Currency {p.currency}</Text>
            <Text size="sm">Type {p.plan_type.toLowerCase()}</Text>
            <Text size="sm">Product family {p.product_family.name}</Text>
          </SimpleGrid>
          <DataTable
            caption={`Price components of version ${p.version}`}
            rows={p.price_components}
            rowKey={(c) => c.id}
            columns={[
              { header: 'Component', render: (c) => c.name },
              { header: 'Product', render: (c) => productName(c.product_id) },
              { header: 'Fee type', render: (c) => c.fee.type },
              { header: 'Metric', render: (c) => metricName(c.fee.metric_id) },
              { header: 'Price', render: (c) => feeSummary(c.fee) },
            ]}
            empty={
              <Paper withBorder p="md">
                <Text size="sm">This version has no price components: choose &quot;{hasDraft ? 'Edit draft' : 'New version'}&quot; to add them.</Text>
              </Paper>
            }
          />
          <Title order={2} size="h3">
            Versions
          </Title>
          <QueryState query={versions}>
            {(rows) => (
              <DataTable
                caption="Versions, newest first"
                rows={rows}
                rowKey={(v) => v.id}
                columns={[
                  {
                    header: 'Version',
                    render: (v) => (
                      <Anchor component={Link} to={`/catalog/plans/${p.id}?version=${v.is_draft ? 'draft' : v.version}`}>
                        Version {v.version}
                      </Anchor>
                    ),
                  },
                  { header: 'State', render: (v) => (v.is_draft ? 'draft' : 'published') },
                  { header: 'Created', render: (v) => dateTime(v.created_at) },
                  { header: 'Published', render: (v) => dateTime(v.published_at) },
                ]}
              />
            )}
          </QueryState>
          {p.minimum_commitment && (
            <Group>
              <Text size="sm">Minimum commitment {money(p.minimum_commitment.amount, p.currency)}</Text>
            </Group>
          )}
        </Stack>
      )}
    </QueryState>
  );
}
