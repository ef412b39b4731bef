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
  /** The timestamp as the client sent it, normalised ('' when it asked for "now"). */
  sentTimestamp: string;
  properties: Record<string, string>;
}

export type CheckResult = { ok: true; event: CheckedEvent } | { ok: false; reason: string };

/**
 * Parses an RFC 3339 instant ("2026-03-15T11:30:00Z", "2026-03-15 11:30:00.123456+02:00") to
 * millisecond precision, or undefined. Every field is range-checked: JavaScript's own parser
 * turns February 30 into March 2. Read by character codes, without a regex or substrings, as it
 * runs for every event of a batch.
 */
export function parseRfc3339(text: string): Date | undefined {
  if (text.length < 20) return undefined;
  const year = digitsAt(text, 0, 4), month = digitsAt(text, 5, 2), day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2), minute = digitsAt(text, 14, 2), second = digitsAt(text, 17, 2);
  const t = text.charCodeAt(10);
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON) return undefined;
  if (t !== 0x54 /* T */ && t !== 0x74 /* t */ && t !== 0x20 /* space */) return undefined;
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;

  let position = 19;
  let millis = 0;
  if (text.charCodeAt(position) === DOT) {
    const start = ++position;
    while (position < text.length && isDigit(text.charCodeAt(position))) position++;
    const length = position - start;
    if (length < 1 || length > 9) return undefined;
    // Milliseconds are the first three digits of the fraction; the rest is cut, not rounded.
    for (let i = 0; i < 3; i++) millis = millis * 10 + (i < length ? text.charCodeAt(start + i) - ZERO : 0);
  }

  let offsetMinutes = 0;
  const zone = text.charCodeAt(position);
  if (zone === 0x5a /* Z */ || zone === 0x7a /* z */) {
    if (position + 1 !== text.length) return undefined;
  } else if (zone === PLUS || zone === DASH) {
    const offsetHours = digitsAt(text, position + 1, 2), offsetMins = digitsAt(text, position + 4, 2);
    if (position + 6 !== text.length || text.charCodeAt(position + 3) !== COLON) return undefined;
    if (offsetHours < 0 || offsetHours > 23 || offsetMins < 0 || offsetMins > 59) return undefined;
    offsetMinutes = (zone === PLUS ? 1 : -1) * (offsetHours * 60 + offsetMins);
  } else {
    return undefined;
  }
  const at = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  at.setUTCFullYear(year); // Date.UTC reads years 0-99 as 1900-1999
  return new Date(at.getTime() - offsetMinutes * 60_000);
}

const ZERO = 0x30, DOT = 0x2e, DASH = 0x2d, PLUS = 0x2b, COLON = 0x3a;
const isDigit = (code: number) => code >= ZERO && code <= ZERO + 9;

/** The number written by `count` ASCII digits at `start`, or -1. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const code = text.charCodeAt(i); // NaN past the end: not a digit
    if (!isDigit(code)) return -1;
    value = value * 10 + code - ZERO;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** "2026-03-15T11:30:00.000Z": the form `toISOString` writes, given a text parseRfc3339 accepted. */
const isIsoUtcMillis = (parsedText: string) => parsedText.length === 24 && parsedText.charCodeAt(19) === DOT && parsedText.charCodeAt(23) === 0x5a && parsedText.charCodeAt(10) === 0x54;

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
    sentTimestamp = isIsoUtcMillis(timestamp) ? timestamp : parsed.toISOString();
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
  return { ok: true, event: { eventId, code, customerRef, timestamp: at, sentTimestamp, properties: props } };
}

/**
 * The canonical text of an event's payload: a retry (same text) is a no-op, another text under
 * the same id is a conflict. The customer is its resolved reference, so id and alias agree.
 */
export function canonicalPayload(event: CheckedEvent, resolvedCustomerRef: string): string {
  // The JSON text of [code, customer, sent timestamp, [[key, value], ...] with keys sorted], built
  // by concatenation: the same text as JSON.stringify of those arrays, without allocating them.
  const keys = Object.keys(event.properties);
  if (keys.length > 1) keys.sort();
  let pairs = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    pairs += (i === 0 ? '[' : ',[') + jsonString(key) + ',' + jsonString(event.properties[key]!) + ']';
  }
  return '[' + jsonString(event.code) + ',' + jsonString(resolvedCustomerRef) + ',' + jsonString(event.sentTimestamp) + ',[' + pairs + ']]';
}

/** Text that JSON writes as is: no quote, backslash or control character. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const JSON_PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** `JSON.stringify(text)`, without its cost for the usual text that needs no escaping. */
function jsonString(text: string): string {
  return JSON_PLAIN.test(text) ? '"' + text + '"' : JSON.stringify(text);
}
