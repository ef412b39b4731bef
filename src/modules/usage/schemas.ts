import { Type } from 'typebox';
import { MAX_BATCH_EVENTS, type IngestFailure } from './ingest-service.js';
import type { UsageReport } from './query-service.js';

const eventFields = {
  code: Type.String({ description: 'Billable metric code (the event code). Max 512 bytes.' }),
  customer_id: Type.String({ description: 'Customer id or the customer alias.' }),
  timestamp: Type.Optional(Type.String({ description: 'RFC 3339. Empty means now. At most 24 h in the past (unless backfilling) and 1 h in the future.' })),
  properties: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'Flat map of string values; numbers are sent as strings ("1048576"). A non-string value refuses the event.' }),
  ),
};

/** Event of a batch; its fields are checked per event so one bad event is reported with its index. */
export const Event = Type.Object({
  event_id: Type.String({ description: 'Unique per tenant; retries with the same id and payload are no-ops. Max 255 characters.' }),
  ...eventFields,
});

export const IngestEventsRequest = Type.Object({
  events: Type.Array(Event, { minItems: 1, maxItems: MAX_BATCH_EVENTS, description: `1 to ${MAX_BATCH_EVENTS} events per request.` }),
  allow_backfilling: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Accept events older than 24 hours (and unknown aliases, for migrations). Default false.' })),
  allow_partial_failures: Type.Optional(
    Type.Union([Type.Boolean(), Type.Null()], { description: 'Store the good events and list the bad ones. Default false: one bad event refuses the whole batch.' }),
  ),
  strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Refuse events whose code no billable metric reads. Default false.' })),
});

export const IngestFailureSchema = Type.Object({
  event_id: Type.String(),
  reason: Type.String(),
  index: Type.Integer({ description: 'Position of the event in the request' }),
});

export const IngestEventsResponse = Type.Object({
  ingested: Type.Integer({ description: 'Events stored by this call' }),
  duplicates: Type.Integer({ description: 'Events already stored with the same id and payload (no-ops)' }),
  failures: Type.Optional(Type.Array(IngestFailureSchema, { description: 'Refused events. Omitted when none.' })),
});

export const IngestRefusedResponse = Type.Object({
  code: Type.String(),
  message: Type.String(),
  failures: Type.Optional(Type.Array(IngestFailureSchema, { description: 'The refused events, when the batch was refused because of them' })),
});

export const IngestEventRequest = Type.Object({
  event_id: Type.Optional(Type.String({ description: 'Event id; defaults to idempotency_key.' })),
  idempotency_key: Type.Optional(Type.String({ description: 'Prevents double counting when the request is retried; the event id when event_id is absent.' })),
  ...eventFields,
});

export const IngestEventResponse = Type.Object({
  event_id: Type.String(),
  duplicate: Type.Boolean({ description: 'True when this event was already stored (nothing changed)' }),
});

const GroupedUsage = Type.Object({
  value: Type.String({ description: 'Decimal string' }),
  dimensions: Type.Record(Type.String(), Type.String()),
});

const MetricUsage = Type.Object({
  metric_id: Type.String(),
  metric_name: Type.String(),
  metric_code: Type.String(),
  total_value: Type.String({ description: 'Decimal string' }),
  grouped_usage: Type.Array(GroupedUsage),
});

export const UsageResponse = Type.Object({
  period_start: Type.String({ format: 'date' }),
  period_end: Type.String({ format: 'date' }),
  usage: Type.Array(MetricUsage),
});

export function usageToWire(report: UsageReport) {
  return {
    period_start: report.periodStart,
    period_end: report.periodEnd,
    usage: report.usage.map((u) => ({
      metric_id: u.metricId,
      metric_name: u.metricName,
      metric_code: u.metricCode,
      total_value: u.totalValue,
      grouped_usage: u.groups.map((g) => ({ value: g.value, dimensions: g.dimensions })),
    })),
  };
}

export function failuresToWire(failures: IngestFailure[]) {
  return failures.map((f) => ({ event_id: f.event_id, reason: f.reason, index: f.index }));
}
