import { Type } from 'typebox';
import { iso, isoOrNull, Nullable } from '../../http/schemas.js';
import type { EndpointRow } from './repository.js';
import type { AttemptRow, DeliveryRow } from './deliveries-repository.js';

const DateTime = Type.String({ format: 'date-time' });

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Event kinds sent to this endpoint; null means every kind' }),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.Union([Type.Literal('MANUAL'), Type.Literal('FAILING')])),
  previous_secret_expires_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});

export const WebhookEndpointWithSecret = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Type.String({ description: 'Standard Webhooks signing secret (whsec_...). Shown only in this response.' }),
});

export const CreateWebhookEndpointRequest = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  event_types: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 100 }))),
  enabled: Type.Optional(Type.Boolean()),
});

export const UpdateWebhookEndpointRequest = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  event_types: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 100 }))),
  enabled: Type.Optional(Type.Boolean()),
});

export const RotateSecretRequest = Type.Object({
  grace_period_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 168, description: 'Hours the old secret keeps signing next to the new one (default 24)' })),
});

export const WebhookAttempt = Type.Object({
  attempt_number: Type.Integer(),
  attempted_at: DateTime,
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  response_excerpt: Nullable(Type.String()),
  error: Nullable(Type.String()),
  succeeded: Type.Boolean(),
});

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  endpoint_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  object_id: Nullable(Type.String()),
  trigger: Type.Union([Type.Literal('EVENT'), Type.Literal('REDELIVERY'), Type.Literal('TEST')]),
  status: Type.Enum(DELIVERY_STATUSES),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(DateTime),
  last_attempt_at: Nullable(DateTime),
  last_status_code: Nullable(Type.Integer()),
  created_at: DateTime,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The body sent, as JSON' }),
  attempts: Type.Array(WebhookAttempt),
});

export function endpointToWire(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: isoOrNull(row.previous_secret_expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function attemptToWire(row: AttemptRow) {
  return {
    attempt_number: row.attempt_number,
    attempted_at: iso(row.attempted_at),
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    response_excerpt: row.response_excerpt,
    error: row.error,
    succeeded: row.succeeded,
  };
}

export function deliveryToWire(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    object_id: row.object_id,
    trigger: row.trigger,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: isoOrNull(row.next_attempt_at),
    last_attempt_at: isoOrNull(row.last_attempt_at),
    last_status_code: row.last_status_code,
    created_at: iso(row.created_at),
    payload: row.payload,
    attempts: attempts.filter((a) => a.delivery_id === row.id).map(attemptToWire),
  };
}
