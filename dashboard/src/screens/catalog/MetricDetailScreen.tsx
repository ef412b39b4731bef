import { Code, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { getMetric, getUsageSummary } from '../../../../sdk/src/index';
import { Chart } from '../../components/Chart';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';
import { dateTime, dayjs } from '../../components/format';
import { useCatalogClient } from './client';

/** Days shown in the usage preview, ending today (UTC). */
const PREVIEW_DAYS = 14;

/**
 * The metric's usage over the last days, all customers, one usage-summary call per day (the API
 * aggregates a period with the metric's own aggregation, so a day is one period).
 */
function UsagePreview({ metricId }: { metricId: string }) {
  const client = useCatalogClient();
  const today = dayjs.utc().startOf('day');
  const days = Array.from({ length: PREVIEW_DAYS }, (_, i) => today.subtract(PREVIEW_DAYS - 1 - i, 'day'));
  const results = useQueries({
    queries: days.map((day) => ({
      queryKey: ['catalog', 'metric-usage', metricId, day.format('YYYY-MM-DD')],
      queryFn: async () => {
        const { data } = await getUsageSummary({ client, query: { metric_id: metricId, start_date: day.format('YYYY-MM-DD'), end_date: day.add(1, 'day').format('YYYY-MM-DD') }, throwOnError: true });
        return data.usage.find((u) => u.metric_id === metricId)?.total_value ?? '0';
      },
      refetchInterval: 30_000,
    })),
  });
  const failed = results.find((r) => r.isError);
  if (failed) return <ErrorAlert error={failed.error} title="The usage preview could not be loaded" />;
  // Usage quantities (not money) become numbers only to be drawn.
  const data = days.map((day, i) => ({ day: day.format('MMM D'), usage: Number(results[i]?.data ?? 0) }));
  const total = data.reduce((sum, d) => sum + d.usage, 0);
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb={4}>
        Usage, last {PREVIEW_DAYS} days
      </Title>
      <Text size="sm" c="gray.7" mb="sm">
        All customers, per day (UTC), refreshed every 30 seconds.{' '}
        {total === 0 && !results.some((r) => r.isPending) ? 'No usage yet: send events with this metric\u2019s code to POST /api/v1/events and they appear here.' : ''}
      </Text>
      <Chart
        title={`Usage per day over the last ${PREVIEW_DAYS} days`}
        categoryLabel="Day (UTC)"
        categories={data.map((d) => d.day)}
        height={220}
        series={[{ name: 'Usage', color: 'indigo.7', kind: 'bar', values: data.map((d) => d.usage) }]}
      />
    </Paper>
  );
}

export default function MetricDetailScreen() {
  const { metricId = '' } = useParams();
  const client = useCatalogClient();
  const metric = useQuery({ queryKey: ['catalog', 'metric', metricId], queryFn: async () => (await getMetric({ client, path: { metric_id: metricId }, throwOnError: true })).data, retry: false });
  return (
    <QueryState query={metric} notFound="billable metric">
      {(m) => (
        <Stack>
          <PageHeader title={m.name} description={m.description ?? undefined} back={{ to: '/catalog/metrics', label: 'Billable metrics' }} />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Text size="sm">
              Code <Code>{m.code}</Code>
            </Text>
            <Text size="sm">
              Aggregation {m.aggregation_type}
              {m.aggregation_key ? ` of ${m.aggregation_key}` : ''}
            </Text>
            <Text size="sm">Created {dateTime(m.created_at)}</Text>
          </SimpleGrid>
          <UsagePreview metricId={m.id} />
        </Stack>
      )}
    </QueryState>
  );
}
