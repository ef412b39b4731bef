// Examples of the OpenAPI document: API calls of customer Acme SAS (alias crm-42) in March 2026.
import type { Static } from 'typebox';
import type { EventListResponse, IngestEventRequest, IngestEventResponse, IngestEventsRequest, IngestEventsResponse, IngestRefusedResponse, UnresolvedCustomer, UsageResponse } from './schemas.js';

export const ingestEventsExample: Static<typeof IngestEventsRequest> = {
  events: [
    { event_id: 'evt-2026-03-15-000184', code: 'api_calls', customer_id: 'crm-42', timestamp: '2026-03-15T09:30:12.481Z', properties: { endpoint: '/v1/search', region: 'eu-west-1' } },
    { event_id: 'evt-2026-03-15-000185', code: 'api_calls', customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ', timestamp: '2026-03-15T09:30:14.002Z', properties: { endpoint: '/v1/orders', region: 'us-east-1' } },
  ],
  allow_partial_failures: true,
};

export const ingestedExample: Static<typeof IngestEventsResponse> = { ingested: 2, duplicates: 0, in_finalized_periods: 0, unknown_customer_events: 0 };

const unknownIdReason = "customer 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ' not found (customer_id takes a customer id or alias; an unknown alias is kept, an unknown id is refused)";

export const partlyIngestedExample: Static<typeof IngestEventsResponse> = {
  ingested: 1,
  duplicates: 0,
  in_finalized_periods: 0,
  unknown_customer_events: 0,
  failures: [{ event_id: 'evt-2026-03-15-000185', reason: unknownIdReason, index: 1 }],
};

/** A backfill after February was invoiced: one event for February, one for an alias no customer has yet. */
export const lateAndUnknownExample: Static<typeof IngestEventsResponse> = {
  ingested: 2,
  duplicates: 0,
  in_finalized_periods: 1,
  unknown_customer_events: 1,
  warnings: [
    "1 event names a customer alias no customer has yet ('crm-99'): kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers",
    "1 event falls in a period whose invoice is finalized: billed as late usage on the customer's next invoice",
  ],
};

export const refusedExample: Static<typeof IngestRefusedResponse> = {
  code: 'BAD_REQUEST',
  message: '1 of 2 events refused; nothing was stored (set allow_partial_failures to store the others)',
  failures: [{ event_id: 'evt-2026-03-15-000185', reason: unknownIdReason, index: 1 }],
};

export const storedForUnknownCustomerExample: Static<typeof IngestEventResponse> = {
  event_id: 'evt-2026-03-15-000187',
  duplicate: false,
  in_finalized_period: false,
  warning: "1 event names a customer alias no customer has yet ('crm-99'): kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers",
};

export const unresolvedCustomersExample: Static<typeof UnresolvedCustomer>[] = [
  { customer_ref: 'crm-99', event_count: 1204, first_event_at: '2026-03-01T00:04:11.000Z', last_event_at: '2026-03-15T09:30:14.002Z', last_ingested_at: '2026-03-15T09:30:14.310Z' },
  { customer_ref: 'crm-4200', event_count: 3, first_event_at: '2026-03-14T17:02:45.000Z', last_event_at: '2026-03-14T17:09:01.000Z', last_ingested_at: '2026-03-14T17:09:01.204Z' },
];

export const ingestEventExample: Static<typeof IngestEventRequest> = {
  idempotency_key: 'evt-2026-03-15-000186',
  code: 'api_calls',
  customer_id: 'crm-42',
  timestamp: '2026-03-15T09:31:02.117Z',
  properties: { endpoint: '/v1/search', region: 'eu-west-1' },
};

export const usageExample: Static<typeof UsageResponse> = {
  period_start: '2026-03-01',
  period_end: '2026-04-01',
  usage: [{
    metric_id: 'bm_01KKRNW4G0KBE7DQXQZG9JW7X3',
    metric_name: 'API calls',
    metric_code: 'api_calls',
    total_value: '18342',
    grouped_usage: [{ value: '12100', dimensions: { region: 'eu-west-1' } }, { value: '6242', dimensions: { region: 'us-east-1' } }],
  }],
};

export const eventListExample: Static<typeof EventListResponse> = {
  data: [
    {
      event_id: 'evt-2026-03-15-000186', code: 'api_calls', customer_ref: 'cus_01KKRNW4G0Q2B7H3M5N8P1R4TV', customer_id: 'cus_01KKRNW4G0Q2B7H3M5N8P1R4TV',
      timestamp: '2026-03-15T09:31:02.117Z', properties: { endpoint: '/v1/search', region: 'eu-west-1' }, ingested_at: '2026-03-15T09:31:02.402Z',
    },
    {
      event_id: 'evt-2026-03-15-000185', code: 'api_calls', customer_ref: 'crm-77', customer_id: null,
      timestamp: '2026-03-15T09:30:58.009Z', properties: {}, ingested_at: '2026-03-15T09:30:58.311Z',
    },
  ],
  next_cursor: 'WyI3NDMiLCJldnQtMjAyNi0wMy0xNS0wMDAxODUiXQ',
};
