import { Paper, SegmentedControl, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { getCustomerUsage } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { Chart } from '../../components/Chart';
import { EmptyState } from '../../components/EmptyState';
import { dayjs } from '../../components/format';
import { QueryState } from '../../components/QueryState';

/** Calendar months in UTC: this month so far, and the three before it. */
function periods(): { label: string; start: string; end: string }[] {
  const now = dayjs.utc().startOf('month');
  return [0, 1, 2, 3].map((back) => {
    const start = now.subtract(back, 'month');
    return { label: back === 0 ? 'This month' : start.format('MMM YYYY'), start: start.format('YYYY-MM-DD'), end: start.add(1, 'month').format('YYYY-MM-DD') };
  });
}

/**
 * Usage per metric (GET /api/v1/usage/customer/{id}) for a month: one bar chart per metric, its
 * value by dimension group (or its total). Values are quantities, not money: charting them as
 * numbers is fine.
 */
export function CustomerUsage({ customerId }: { customerId: string }) {
  const options = periods();
  const [index, setIndex] = useState('0');
  const period = options[Number(index)]!;
  const usage = useQuery({
    queryKey: ['usage', 'customer', customerId, period.start],
    queryFn: async () => (await getCustomerUsage({ client, path: { customer_id: customerId }, query: { start_date: period.start, end_date: period.end } })).data!,
  });
  return (
    <section aria-label="Usage">
      <Title order={2} size="h4" mb="xs">
        Usage
      </Title>
      <SegmentedControl mb="sm" value={index} onChange={setIndex} data={options.map((o, i) => ({ value: String(i), label: o.label }))} aria-label="Usage period" />
      <QueryState query={usage}>
        {(u) =>
          u.usage.length === 0 ? (
            <EmptyState title="No usage in this period">Events sent to POST /api/v1/events for this customer appear here per billable metric.</EmptyState>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {u.usage.map((m) => {
                const data = m.grouped_usage.length > 0 ? m.grouped_usage.map((g) => ({ group: Object.values(g.dimensions).join(' / ') || 'all', usage: Number(g.value) })) : [{ group: 'total', usage: Number(m.total_value) }];
                return (
                  <Paper withBorder p="md" key={m.metric_id}>
                    <Text fw={600}>
                      {m.metric_name} ({m.metric_code}): {m.total_value}
                    </Text>
                    <Chart
                      title={`${m.metric_name} usage by group, ${period.label}`}
                      categoryLabel="Group"
                      categories={data.map((d) => d.group)}
                      height={180}
                      series={[{ name: 'Usage', color: 'indigo.7', kind: 'bar', values: data.map((d) => d.usage) }]}
                    />
                  </Paper>
                );
              })}
            </SimpleGrid>
          )
        }
      </QueryState>
    </section>
  );
}
