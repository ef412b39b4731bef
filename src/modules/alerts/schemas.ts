import { Type } from 'typebox';
import { DecimalString, iso, isoOrNull, Name, Nullable } from '../../http/schemas.js';
import type { AlertView } from './service.js';
import type { HistoryRow } from './repository.js';
import { ALERT_KINDS } from './transitions.js';

const DateTime = Type.String({ format: 'date-time' });
const Kind = Type.Enum([...ALERT_KINDS], {
  description: 'USAGE_UNITS: usage of `metric_id` in the current period. SPEND: usage charges in the current period, in the subscription\'s currency. CREDIT_BALANCE: the projected credit balance (fires when it falls below a threshold).',
});
const Thresholds = Type.Array(DecimalString('a threshold, e.g. "1000"'), { minItems: 1, maxItems: 20 });

export const CreateAlertRequest = Type.Object({
  name: Type.Optional(Name()),
  kind: Kind,
  customer_id: Type.String({ minLength: 1, description: 'Customer ID or alias' }),
  subscription_id: Type.Optional(Nullable(Type.String({ description: 'Watch this subscription only; without it, the customer\'s serving subscriptions (the oldest one\'s period)' }))),
  metric_id: Type.Optional(Nullable(Type.String({ description: 'USAGE_UNITS only: the billable metric watched' }))),
  thresholds: Thresholds,
}, { additionalProperties: false });

export const UpdateAlertRequest = Type.Object({
  name: Type.Optional(Name()),
  thresholds: Type.Optional(Thresholds),
}, { additionalProperties: false });

export const ThresholdState = Type.Object({
  threshold: Type.String({ description: 'decimal string' }),
  triggered: Type.Boolean({ description: 'true between an alert.triggered and its alert.resolved' }),
  period_start: Nullable(DateTime),
  period_end: Nullable(DateTime),
  last_value: Nullable(Type.String({ description: 'the value at the last transition' })),
  changed_at: Nullable(DateTime),
});

export const Alert = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Kind,
  customer_id: Type.String(),
  subscription_id: Nullable(Type.String()),
  metric_id: Nullable(Type.String()),
  thresholds: Type.Array(Type.String()),
  status: Type.Enum(['ACTIVE', 'ARCHIVED']),
  state: Type.Array(ThresholdState),
  created_at: DateTime,
  updated_at: DateTime,
});

export const AlertHistoryEntry = Type.Object({
  id: Type.String(),
  threshold: Type.String(),
  transition: Type.Enum(['TRIGGERED', 'RESOLVED']),
  value: Nullable(Type.String({ description: 'the value measured; null when there was none (no serving subscription)' })),
  period_start: Nullable(DateTime),
  period_end: Nullable(DateTime),
  reason: Type.Enum(['USAGE_COMMITTED', 'PERIOD_ENDED', 'ALERT_CHANGED', 'REQUESTED']),
  event_id: Type.String({ description: 'the id of the alert.triggered or alert.resolved event sent' }),
  occurred_at: DateTime,
});

export function alertToWire({ alert, states }: AlertView) {
  return {
    id: alert.id,
    name: alert.name,
    kind: alert.kind,
    customer_id: alert.customer_id,
    subscription_id: alert.subscription_id,
    metric_id: alert.metric_id,
    thresholds: alert.thresholds,
    status: alert.status,
    state: states.map((s) => ({ threshold: s.threshold, triggered: s.triggered, period_start: isoOrNull(s.period_start), period_end: isoOrNull(s.period_end), last_value: s.last_value, changed_at: isoOrNull(s.changed_at) })),
    created_at: iso(alert.created_at),
    updated_at: iso(alert.updated_at),
  };
}

export function historyToWire(row: HistoryRow) {
  return {
    id: row.id.toString(),
    threshold: row.threshold,
    transition: row.transition,
    value: row.value,
    period_start: isoOrNull(row.period_start),
    period_end: isoOrNull(row.period_end),
    reason: row.reason as 'USAGE_COMMITTED',
    event_id: row.event_id,
    occurred_at: iso(row.occurred_at),
  };
}
