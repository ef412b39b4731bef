// Checks on one incoming usage event that need nothing but the event and the time: field
// shapes, the timestamp window and the canonical payload used to tell a retry from a new event.
import { MS_PER_DAY, MS_PER_HOUR } from '../../kernel/clock.js';

/** Past events older than this are refused unless the batch allows backfilling. */
export const BACKFILL_WINDOW_MS = MS_PER_DAY;
/** Events further than this in the future are always refused. */
export const FUTURE_WINDOW_MS = MS_PER_HOUR;
/** Even when backfilling, nothing older than this instant (guards against typos like year 0202). */
export const EARLIEST_EVENT_AT = new Date('2000-01-01T00:00:00.000Z');
export const MAX_EVENT_ID_CHARS = 255;
export const MAX_CODE_BYTES = 512;
export const MAX_PROPERTIES = 100;

export interface RawEvent {
  event_id?: unknown;
  code?: unknown;
  customer_id?: unknown;
  timestamp?: unknown;
  properties?: unknown;
}

/** An event whose fields are well formed; the customer is not resolved yet. */
export interface CheckedEvent {
  eventId: string;
  code: string;
  customerRef: string;
  timestamp: Date;
  /** The timestamp as the client sent it, normalised ('' when it asked for "now"). */
  sentTimestamp: string;
  properties: Record<string, string>;
}

export type CheckResult = { ok: true; event: CheckedEvent } | { ok: false; reason: string };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 instant to millisecond precision, or undefined. */
export function parseRfc3339(text: string): Date | undefined {
  if (!RFC3339.test(text)) return undefined;
  // Date keeps milliseconds: trim longer fractions first so "…00.123456Z" parses everywhere.
  const trimmed = text.replace(/(\.\d{3})\d+/, '$1');
  const at = new Date(trimmed);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

function fail(reason: string): CheckResult {
  return { ok: false, reason };
}

/**
 * Checks one event. `now` is the ingestion time; `allowBackfilling` lifts the past window.
 * The reasons name the field, so a client can fix the event.
 */
export function checkEvent(raw: RawEvent, now: Date, allowBackfilling: boolean): CheckResult {
  const { event_id: eventId, code, customer_id: customerRef, timestamp, properties } = raw;
  if (typeof eventId !== 'string' || eventId === '') return fail('event_id is required and must be a non-empty string');
  if (eventId.length > MAX_EVENT_ID_CHARS) return fail(`event_id must be at most ${MAX_EVENT_ID_CHARS} characters`);
  if (typeof code !== 'string' || code === '') return fail('code is required and must be a non-empty string');
  if (Buffer.byteLength(code, 'utf8') > MAX_CODE_BYTES) return fail(`code must be at most ${MAX_CODE_BYTES} bytes`);
  if (typeof customerRef !== 'string' || customerRef === '') return fail('customer_id is required and must be a customer id or alias');

  let at: Date;
  let sentTimestamp = '';
  if (timestamp === undefined || timestamp === null || timestamp === '') {
    at = now;
  } else if (typeof timestamp !== 'string') {
    return fail('timestamp must be an RFC 3339 string');
  } else {
    const parsed = parseRfc3339(timestamp);
    if (!parsed) return fail(`timestamp '${timestamp}' is not an RFC 3339 date-time`);
    at = parsed;
    sentTimestamp = parsed.toISOString();
  }
  if (at.getTime() > now.getTime() + FUTURE_WINDOW_MS) {
    return fail(`timestamp ${at.toISOString()} is more than 1 hour in the future`);
  }
  if (at.getTime() < EARLIEST_EVENT_AT.getTime()) {
    return fail(`timestamp ${at.toISOString()} is before ${EARLIEST_EVENT_AT.toISOString()}`);
  }
  if (!allowBackfilling && at.getTime() < now.getTime() - BACKFILL_WINDOW_MS) {
    return fail(`timestamp ${at.toISOString()} is more than 24 hours in the past; set allow_backfilling to ingest it`);
  }

  const props: Record<string, string> = {};
  if (properties !== undefined && properties !== null) {
    if (typeof properties !== 'object' || Array.isArray(properties)) return fail('properties must be an object of string values');
    const entries = Object.entries(properties as Record<string, unknown>);
    if (entries.length > MAX_PROPERTIES) return fail(`properties must have at most ${MAX_PROPERTIES} keys`);
    for (const [key, value] of entries) {
      if (key === '') return fail('properties must not have an empty key');
      if (typeof value !== 'string') return fail(`properties.${key} must be a string (send numbers as "123")`);
      props[key] = value;
    }
  }
  return { ok: true, event: { eventId, code, customerRef, timestamp: at, sentTimestamp, properties: props } };
}

/**
 * The canonical text of an event's payload: a retry (same text) is a no-op, another text under
 * the same id is a conflict. The customer is its resolved reference, so id and alias agree.
 */
export function canonicalPayload(event: CheckedEvent, resolvedCustomerRef: string): string {
  const keys = Object.keys(event.properties).sort();
  return JSON.stringify([event.code, resolvedCustomerRef, event.sentTimestamp, keys.map((k) => [k, event.properties[k]])]);
}
