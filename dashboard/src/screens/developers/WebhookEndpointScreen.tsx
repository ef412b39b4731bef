import { Accordion, Badge, Button, Code, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { getWebhookEndpoint, listWebhookDeliveries, redeliverWebhookEvent, sendWebhookTestEvent } from '@tally-billing/sdk';
import { client } from '../../app/client';
import { EmptyState } from '../../components/EmptyState';
import { dateTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert, QueryState } from '../../components/QueryState';

const STATUS_COLOR = { SUCCEEDED: 'teal.9', FAILED: 'red.9', PENDING: 'yellow.4' } as const;

export default function WebhookEndpointScreen() {
  const { endpointId = '' } = useParams();
  const queryClient = useQueryClient();
  const endpoint = useQuery({ queryKey: ['webhook-endpoints', endpointId], queryFn: async () => (await getWebhookEndpoint({ client, path: { endpoint_id: endpointId } })).data! });
  const deliveriesKey = ['webhook-endpoints', endpointId, 'deliveries'];
  const deliveries = useQuery({
    queryKey: deliveriesKey,
    queryFn: async () => (await listWebhookDeliveries({ client, path: { endpoint_id: endpointId }, query: { per_page: 50 } })).data!,
    enabled: endpoint.isSuccess,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: deliveriesKey });
  const redeliver = useMutation({ mutationFn: async (deliveryId: string) => (await redeliverWebhookEvent({ client, path: { endpoint_id: endpointId, delivery_id: deliveryId } })).data, onSuccess: refresh });
  const test = useMutation({ mutationFn: async () => (await sendWebhookTestEvent({ client, path: { endpoint_id: endpointId } })).data, onSuccess: refresh });

  return (
    <QueryState query={endpoint} notFound="webhook endpoint">
      {(e) => (
        <>
          <PageHeader
            back={{ to: '/developers/webhooks', label: 'Webhook endpoints' }}
            title={e.url}
            description={`${e.description ?? 'No description'} · events: ${e.event_types ? e.event_types.join(', ') : 'all'} · ${e.enabled ? 'enabled' : `disabled (${e.disabled_reason?.toLowerCase()})`} · created ${dateTime(e.created_at)}`}
            actions={
              <Button variant="light" onClick={() => test.mutate()} loading={test.isPending}>
                Send a test event
              </Button>
            }
          />
          {test.error && <ErrorAlert error={test.error} />}
          {redeliver.error && <ErrorAlert error={redeliver.error} />}
          <Title order={2} size="h4" mb="xs">
            Deliveries
          </Title>
          <QueryState query={deliveries}>
            {(page) =>
              page.data.length === 0 ? (
                <EmptyState title="No delivery yet">Events of this environment are posted here as they happen; send a test event to see one now.</EmptyState>
              ) : (
                <Accordion variant="separated" multiple>
                  {page.data.map((d) => (
                    <Accordion.Item key={d.id} value={d.id}>
                      <Accordion.Control>
                        <Group justify="space-between" wrap="nowrap">
                          <Text fw={600}>{d.event_type}</Text>
                          <Group gap="xs">
                            <Badge color={STATUS_COLOR[d.status]}>
                              {d.status.toLowerCase()}
                            </Badge>
                            <Text size="sm" c="gray.7">
                              {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'} · {dateTime(d.created_at)}
                            </Text>
                          </Group>
                        </Group>
                      </Accordion.Control>
                      <Accordion.Panel>
                        <Stack gap="xs">
                          <Text size="sm">
                            Event <code>{d.event_id}</code>, {d.trigger.toLowerCase()}, last answer {d.last_status_code ?? 'none'}
                            {d.next_attempt_at ? `, next attempt ${dateTime(d.next_attempt_at)}` : ''}.
                          </Text>
                          {d.attempts.map((a) => (
                            <Text key={a.attempt_number} size="sm">
                              Attempt {a.attempt_number} at {dateTime(a.attempted_at)}: {a.succeeded ? 'succeeded' : 'failed'}, status {a.status_code ?? '—'}, {a.duration_ms} ms{a.error ? `, ${a.error}` : ''}
                            </Text>
                          ))}
                          <Text size="sm" fw={600}>
                            Payload
                          </Text>
                          <Code block>{JSON.stringify(d.payload, null, 2)}</Code>
                          <Group>
                            <Button size="xs" variant="light" onClick={() => redeliver.mutate(d.id)} loading={redeliver.isPending && redeliver.variables === d.id}>
                              Redeliver
                            </Button>
                          </Group>
                        </Stack>
                      </Accordion.Panel>
                    </Accordion.Item>
                  ))}
                </Accordion>
              )
            }
          </QueryState>
        </>
      )}
    </QueryState>
  );
}
