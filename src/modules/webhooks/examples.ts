// Examples of the OpenAPI document: an endpoint of the merchant's CRM receiving invoice events.
import type { Static } from 'typebox';
import type { CreateWebhookEndpointRequest, WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from './schemas.js';

type Delivery = Static<typeof WebhookDelivery>;

export const ENDPOINT_ID = 'whe_01KKRNW4G0Q52QZSCZXNPJ2A43';
export const DELIVERY_ID = 'whd_01KKRNW4G0YBH9GC1YTC5Y9S0F';

export const createEndpointExample: Static<typeof CreateWebhookEndpointRequest> = {
  url: 'https://hooks.acme.example/billing',
  description: 'Invoices to the CRM',
  event_types: ['invoice.finalized', 'invoice.paid', 'credit_note.finalized'],
};

export const endpointExample: Static<typeof WebhookEndpoint> = {
  id: ENDPOINT_ID,
  url: 'https://hooks.acme.example/billing',
  description: 'Invoices to the CRM',
  event_types: ['invoice.finalized', 'invoice.paid', 'credit_note.finalized'],
  enabled: true,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: '2026-03-10T15:20:41.377Z',
  updated_at: '2026-03-10T15:20:41.377Z',
};

export const endpointWithSecretExample: Static<typeof WebhookEndpointWithSecret> = { ...endpointExample, secret: 'whsec_vv6tggWaaf8sCbNyqoWXMjp7CnAWiyoC' };

export const updateEndpointExample = { event_types: null, enabled: false };

export const updatedEndpointExample: Static<typeof WebhookEndpoint> = {
  ...endpointExample, event_types: null, enabled: false, disabled_reason: 'MANUAL', updated_at: '2026-03-15T08:02:55.190Z',
};

/** Rotated with the default 24-hour grace period: both secrets sign until previous_secret_expires_at. */
export const rotatedEndpointExample: Static<typeof WebhookEndpointWithSecret> = {
  ...endpointExample, previous_secret_expires_at: '2026-03-16T09:14:07.522Z', updated_at: '2026-03-15T09:14:07.522Z', secret: 'whsec_OTVkqIjCrpxySIKMA8q7Tat8KjzdiR5u',
};

/** Failed once (HTTP 503), succeeded 5 seconds later. */
export const deliveryExample: Delivery = {
  id: DELIVERY_ID,
  endpoint_id: ENDPOINT_ID,
  event_id: 'evt_01KKRNW4G0P3SBJMJ869H6QC89',
  event_type: 'invoice.finalized',
  object_id: 'inv_01KKRNW4G02VQRWZ659SDQV12J',
  trigger: 'EVENT',
  status: 'SUCCEEDED',
  attempt_count: 2,
  next_attempt_at: null,
  last_attempt_at: '2026-04-02T00:00:11.806Z',
  last_status_code: 200,
  created_at: '2026-04-02T00:00:06.114Z',
  payload: {
    invoice_id: 'inv_01KKRNW4G02VQRWZ659SDQV12J',
    customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
    subscription_id: 'sub_01KKRNW4G0P3977S414S2FKJMX',
    invoice_number: 'INV-0002',
    status: 'FINALIZED',
    payment_status: 'UNPAID',
    currency: 'EUR',
    total: '205.32',
    tax_amount: '34.22',
    amount_due: '205.32',
    created_at: '2026-04-01T00:00:03.118Z',
    id: 'evt_01KKRNW4G0P3SBJMJ869H6QC89',
    type: 'invoice.finalized',
    timestamp: '2026-04-02T00:00:05.402Z',
  },
  attempts: [
    { attempt_number: 1, attempted_at: '2026-04-02T00:00:06.530Z', status_code: 503, duration_ms: 212, response_excerpt: 'Service Unavailable', error: 'HTTP 503', succeeded: false },
    { attempt_number: 2, attempted_at: '2026-04-02T00:00:11.806Z', status_code: 200, duration_ms: 87, response_excerpt: '{"received":true}', error: null, succeeded: true },
  ],
};

export const deliveryListExample = { data: [deliveryExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } };

/** Queued: the worker attempts it at once. */
export const testDeliveryExample: Delivery = {
  id: 'whd_01KKRP3A5T0E9QJ4ZK8X2M7CVD',
  endpoint_id: ENDPOINT_ID,
  event_id: 'evt_01KKRP3A5TZF57FK0WBW4NAHBK',
  event_type: 'webhook.test',
  object_id: ENDPOINT_ID,
  trigger: 'TEST',
  status: 'PENDING',
  attempt_count: 0,
  next_attempt_at: '2026-03-15T09:20:00.000Z',
  last_attempt_at: null,
  last_status_code: null,
  created_at: '2026-03-15T09:20:00.000Z',
  payload: { endpoint_id: ENDPOINT_ID, message: 'This is a test event.', id: 'evt_01KKRP3A5TZF57FK0WBW4NAHBK', type: 'webhook.test', timestamp: '2026-03-15T09:20:00.000Z' },
  attempts: [],
};

/** The same event (same event id and payload) queued again as a new delivery. */
export const redeliveryExample: Delivery = {
  ...deliveryExample,
  id: 'whd_01KKV1R7W2H3N8C6PZQ4JT0B5X',
  trigger: 'REDELIVERY',
  status: 'PENDING',
  attempt_count: 0,
  next_attempt_at: '2026-04-03T10:12:30.000Z',
  last_attempt_at: null,
  last_status_code: null,
  created_at: '2026-04-03T10:12:30.000Z',
  attempts: [],
};
