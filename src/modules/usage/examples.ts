// Examples of the OpenAPI document: API calls of customer Acme SAS (alias crm-42) in March 2026.
import type { Static } from 'typebox';
import type { IngestEventRequest, IngestEventsRequest, IngestEventsResponse, IngestRefusedResponse, UsageResponse } from './schemas.js';

export const ingestEventsExample: Static<typeof IngestEventsRequest> = {
  events: [
    { event_id: 'evt-2026-03-15-000184', code: 'api_calls', customer_id: 'crm-42', timestamp: '2026-03-15T09:30:12.481Z', properties: { endpoint: '/v1/search', region: 'eu-west-1' } },
    { event_id: 'evt-2026-03-15-000185', code: 'api_calls', customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ', timestamp: '2026-03-15T09:30:14.002Z', properties: { endpoint: '/v1/orders', region: 'us-east-1' } },
  ],
  allow_partial_failures: true,
};

export const ingestedExample: Static<typeof IngestEventsResponse> = { ingested: 2, duplicates: 0 };

export const partlyIngestedExample: Static<typeof IngestEventsResponse> = {
  ingested: 1,
  duplicates: 0,
  failures: [{ event_id: 'evt-2026-03-15-000185', reason: "customer 'crm-99' not found (customer_id takes a customer id or alias)", index: 1 }],
};

export const refusedExample: Static<typeof IngestRefusedResponse> = {
  code: 'BAD_REQUEST',
  message: '1 of 2 events refused; nothing was stored (set allow_partial_failures to store the others)',
  failures: [{ event_id: 'evt-2026-03-15-000185', reason: "customer 'crm-99' not found (customer_id takes a customer id or alias)", index: 1 }],
};

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
