import { Type } from 'typebox';
import { MAX_BATCH_EVENTS, type IngestFailure, type IngestResult } from './ingest-service.js';
import type { ListedEvent as ListedEventRow } from './event-list.js';
import type { UnresolvedCustomer as UnresolvedCustomerRow } from './unresolved.js';
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
  allow_backfilling: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Accept events older than 24 hours. Default false.' })),
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
  in_finalized_periods: Type.Integer({
    description: 'Of the events stored, those whose period is already billed (on a finalized invoice, or on a draft created after its grace period ended): they are billed as late usage on the customer\'s next invoice (docs/usage.md, "Late usage")',
  }),
  unknown_customer_events: Type.Integer({
    description: 'Of the events stored, those naming a customer alias no customer has yet: kept, and counted once a customer takes that alias (GET /api/v1/events/unresolved-customers lists them)',
  }),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'What the two counts above mean for this batch, in words. Omitted when both are 0.' })),
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
  in_finalized_period: Type.Boolean({ description: 'True when the event was stored in a period already billed (on a finalized invoice, or on a draft created after its grace period ended): it is billed as late usage on the customer\'s next invoice' }),
  warning: Type.Optional(Type.String({ description: 'Set when the event names a customer alias no customer has yet (it is kept and counts once a customer takes the alias)' })),
});

/** A stored event, as GET /api/v1/events lists it. */
export const ListedEvent = Type.Object({
  event_id: Type.String({ description: 'The event id (idempotency key) it was ingested with' }),
  code: Type.String({ description: 'Billable metric code' }),
  customer_ref: Type.String({
    description: 'The customer reference stored with the event: the customer\'s id when a customer had the id or alias sent at ingestion, else the alias as sent',
  }),
  customer_id: Type.Union([Type.String(), Type.Null()], { description: 'The customer the reference names now (by id or alias); null while no customer has it (see GET /api/v1/events/unresolved-customers)' }),
  timestamp: Type.String({ format: 'date-time', description: 'The event\'s timestamp (when the usage happened)' }),
  properties: Type.Record(Type.String(), Type.String(), { description: 'The event\'s properties as sent' }),
  ingested_at: Type.String({ format: 'date-time', description: 'When the event was received' }),
});

export const EventListResponse = Type.Object({
  data: Type.Array(ListedEvent, { description: 'Newest ingested first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next (older) page; null on the last page' }),
});

export function listedEventToWire(row: ListedEventRow) {
  return {
    event_id: row.event_id,
    code: row.code,
    customer_ref: row.customer_ref,
    customer_id: row.customer_id,
    timestamp: row.ts.toISOString(),
    properties: row.properties,
    ingested_at: row.ingested_at.toISOString(),
  };
}

/** A customer reference (alias) usage events were stored under while no customer had it. */
export const UnresolvedCustomer = Type.Object({
  customer_ref: Type.String({ description: 'The `customer_id` the events were sent with: an alias no customer has' }),
  event_count: Type.Integer({ description: 'Events stored under it' }),
  first_event_at: Type.String({ format: 'date-time', description: 'Timestamp of its earliest event' }),
  last_event_at: Type.String({ format: 'date-time', description: 'Timestamp of its latest event' }),
  last_ingested_at: Type.String({ format: 'date-time', description: 'When its latest event was received' }),
});

export function unresolvedToWire(row: UnresolvedCustomerRow) {
  return {
    customer_ref: row.customer_ref,
    event_count: Number(row.event_count),
    first_event_at: row.first_event_at.toISOString(),
    last_event_at: row.last_event_at.toISOString(),
    last_ingested_at: row.last_ingested_at.toISOString(),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Unknown customer aliases a warning names (the list operation has them all). */
const UNKNOWN_REFS_SHOWN = 5;

/** What stored events under an unknown customer alias mean, in words; null when there are none. */
export function unknownCustomerWarning(result: IngestResult): string | null {
  if (result.unknownCustomers === 0) return null;
  const refs = result.unknownCustomerRefs.slice(0, UNKNOWN_REFS_SHOWN).map((ref) => `'${ref}'`).join(', ');
  const more = result.unknownCustomerRefs.length > UNKNOWN_REFS_SHOWN ? `, and ${result.unknownCustomerRefs.length - UNKNOWN_REFS_SHOWN} more` : '';
  return `${plural(result.unknownCustomers, 'event names', 'events name')} a customer alias no customer has yet (${refs}${more}): ` +
    'kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers';
}

/** The batch answer's `warnings`: what unknown customers and late events mean, in words. */
function ingestWarnings(result: IngestResult): string[] {
  const warnings: string[] = [];
  const unknown = unknownCustomerWarning(result);
  if (unknown) warnings.push(unknown);
  if (result.inFinalizedPeriods > 0) {
    warnings.push(`${plural(result.inFinalizedPeriods, 'event falls', 'events fall')} in a period whose invoice is finalized: billed as late usage on the customer's next invoice`);
  }
  return warnings;
}

/** The answer of POST /api/v1/events/ingest for an accepted batch. */
export function ingestResultToWire(result: IngestResult) {
  const warnings = ingestWarnings(result);
  return {
    ingested: result.ingested,
    duplicates: result.duplicates,
    in_finalized_periods: result.inFinalizedPeriods,
    unknown_customer_events: result.unknownCustomers,
    ...(warnings.length ? { warnings } : {}),
    ...(result.failures.length ? { failures: failuresToWire(result.failures) } : {}),
  };
}

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
