// Checks on one incoming usage event that need nothing but the event and the time: field
// shapes, the timestamp window and the canonical payload used to tell a retry from a new event.
import { MS_PER_DAY, MS_PER_HOUR } from '../../kernel/clock.js';
import { isStorableText, NOT_STORABLE } from '../../kernel/text.js';

/** Past events older than this are refused unless the batch allows backfilling. */
export const BACKFILL_WINDOW_MS = MS_PER_DAY;
/** Events further than this in the future are always refused. */
export const FUTURE_WINDOW_MS = MS_PER_HOUR;
/** Even when backfilling, nothing older than this instant (guards against typos like year 0202). */
export const EARLIEST_EVENT_AT = new Date('2000-01-01T00:00:00.000Z');
export const MAX_EVENT_ID_CHARS = 255;
export const MAX_CODE_BYTES = 512;
/** A customer id or alias (aliases of unknown customers are stored and indexed as sent). */
export const MAX_CUSTOMER_REF_CHARS = 255;
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
  /** `timestamp` as RFC 3339 text in UTC with milliseconds (what `toISOString` gives). */
  timestampText: string;
  /** The timestamp as the client sent it, normalised ('' when it asked for "now"). */
  sentTimestamp: string;
  properties: Record<string, string>;
}

export type CheckResult = { ok: true; event: CheckedEvent } | { ok: false; reason: string };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 instant to millisecond precision, or undefined. */
export function parseRfc3339(text: string): Date | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  // Date keeps milliseconds: trim longer fractions first so "…00.123456Z" parses everywhere.
  const fraction = match[1];
  const at = new Date(fraction !== undefined && fraction.length > 4 ? text.replace(fraction, fraction.slice(0, 4)) : text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

const notStorable = (field: string) => `${field} ${NOT_STORABLE}`;

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
  if (!isStorableText(eventId)) return fail(notStorable('event_id'));
  if (typeof code !== 'string' || code === '') return fail('code is required and must be a non-empty string');
  // (A UTF-16 unit is at most 3 UTF-8 bytes: short codes need no byte count.)
  if (code.length * 3 > MAX_CODE_BYTES && Buffer.byteLength(code, 'utf8') > MAX_CODE_BYTES) return fail(`code must be at most ${MAX_CODE_BYTES} bytes`);
  if (!isStorableText(code)) return fail(notStorable('code'));
  if (typeof customerRef !== 'string' || customerRef === '') return fail('customer_id is required and must be a customer id or alias');
  if (customerRef.length > MAX_CUSTOMER_REF_CHARS) return fail(`customer_id must be at most ${MAX_CUSTOMER_REF_CHARS} characters`);
  if (!isStorableText(customerRef)) return fail(notStorable('customer_id'));

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

  let props: Record<string, string> = {};
  if (properties !== undefined && properties !== null) {
    if (typeof properties !== 'object' || Array.isArray(properties)) return fail('properties must be an object of string values');
    let count = 0;
    for (const key in properties) {
      const value = (properties as Record<string, unknown>)[key];
      if (++count > MAX_PROPERTIES) return fail(`properties must have at most ${MAX_PROPERTIES} keys`);
      if (key === '') return fail('properties must not have an empty key');
      if (!isStorableText(key)) return fail(`properties has a key that ${NOT_STORABLE}`);
      if (typeof value !== 'string') return fail(`properties.${key} must be a string (send numbers as "123")`);
      if (!isStorableText(value)) return fail(notStorable(`properties.${key}`));
    }
    // Checked above to be a flat object of strings: kept as is rather than copied (a large batch
    // holds thousands of them). A plain object from JSON has no inherited enumerable keys.
    props = properties as Record<string, string>;
  }
  return { ok: true, event: { eventId, code, customerRef, timestamp: at, timestampText: sentTimestamp || at.toISOString(), sentTimestamp, properties: props } };
}

/**
 * The canonical text of an event's payload: a retry (same text) is a no-op, another text under
 * the same id is a conflict. The customer is its resolved reference, so id and alias agree.
 */
export function canonicalPayload(event: CheckedEvent, resolvedCustomerRef: string): string {
  // The JSON text of [code, customer, sent timestamp, [[key, value], ...] with keys sorted], built
  // by concatenation: the same text as JSON.stringify of those arrays, without allocating them.
  const keys = Object.keys(event.properties).sort();
  let pairs = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    pairs += `${i === 0 ? '' : ','}[${JSON.stringify(key)},${JSON.stringify(event.properties[key])}]`;
  }
  return `[${JSON.stringify(event.code)},${JSON.stringify(resolvedCustomerRef)},${JSON.stringify(event.sentTimestamp)},[${pairs}]]`;
}
