import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalPayload, checkEvent, parseRfc3339 } from '../../../src/domain/usage/index.js';

const now = new Date('2026-03-15T12:00:00.000Z');
/** Texts mixing plain characters with those JSON escapes (quote, backslash, controls) and others. */
const mixedText = (minLength = 0) => fc.string({ minLength, unit: fc.constantFrom('a', 'Z', '"', '\\', '\n', '\u0001', '\u001f', 'é', '💶', '\u2028') });

describe('usage event checks', () => {
  it('gives the canonical payload as the JSON of [code, customer, sent timestamp, sorted [key, value] pairs]', () => {
    fc.assert(
      fc.property(mixedText(1), mixedText(1), fc.dictionary(mixedText(1), mixedText()), fc.boolean(), (code, customer, properties, withTime) => {
        const result = checkEvent({ event_id: 'e', code, customer_id: customer, properties, ...(withTime ? { timestamp: '2026-03-15T11:00:00.5Z' } : {}) }, now, false);
        fc.pre(result.ok);
        if (!result.ok) return;
        const keys = Object.keys(properties).sort();
        const expected = JSON.stringify([code, 'cus_x', withTime ? '2026-03-15T11:00:00.500Z' : '', keys.map((k) => [k, properties[k]])]);
        expect(canonicalPayload(result.event, 'cus_x')).toBe(expected);
      }),
    );
  });

  it('keeps the sent timestamp as UTC text with milliseconds, "now" when absent', () => {
    const sent = checkEvent({ event_id: 'e', code: 'c', customer_id: 'x', timestamp: '2026-03-15T13:30:00.123456+02:00' }, now, false);
    expect(sent).toMatchObject({ ok: true, event: { sentTimestamp: '2026-03-15T11:30:00.123Z' } });
    expect(sent.ok && sent.event.timestamp.toISOString()).toBe('2026-03-15T11:30:00.123Z');
    const absent = checkEvent({ event_id: 'e', code: 'c', customer_id: 'x' }, now, false);
    expect(absent).toMatchObject({ ok: true, event: { timestamp: now, sentTimestamp: '' } });
    expect(parseRfc3339('2026-03-15T11:30:00.1234567Z')?.toISOString()).toBe('2026-03-15T11:30:00.123Z');
    expect(parseRfc3339('2026-03-15 11:30:00Z')?.toISOString()).toBe('2026-03-15T11:30:00.000Z');
    expect(parseRfc3339('2026-03-15T11:30Z')).toBeUndefined();
  });

  it('parses RFC 3339 instants with any offset and fraction, and refuses impossible dates', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom('T', 't', ' '),
        (instant, offsetMinutes, extraDigits, separator) => {
          // The same instant as local time at the offset, with a fraction of 3 + extraDigits digits.
          const local = new Date(instant.getTime() + offsetMinutes * 60_000).toISOString();
          const sign = offsetMinutes < 0 ? '-' : '+';
          const zone = offsetMinutes === 0 && extraDigits % 2 === 0 ? 'Z' : `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
          const text = `${local.slice(0, 10)}${separator}${local.slice(11, 23)}${'7'.repeat(extraDigits)}${zone}`;
          expect(parseRfc3339(text)?.getTime()).toBe(instant.getTime());
        },
      ),
    );
    expect(parseRfc3339('2024-02-29T00:00:00Z')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseRfc3339('2026-03-15T11:30:00.5z')?.toISOString()).toBe('2026-03-15T11:30:00.500Z');
    expect(parseRfc3339('0099-01-01T00:00:00Z')?.toISOString()).toBe('0099-01-01T00:00:00.000Z');
    for (const impossible of ['2026-02-29T00:00:00Z', '2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z',
      '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-01-01T23:59:60Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+01:60',
      '2026-01-01T00:00:00.Z', '2026-01-01T00:00:00.1234567890Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00Zx', '2026-01-01X00:00:00Z',
      '2026-1-01T00:00:00Z', '2026-01-01T00:00:00+0100', '+2026-01-01T00:00:00Z']) {
      expect(parseRfc3339(impossible), impossible).toBeUndefined();
    }
  });

  it('refuses text PostgreSQL cannot store, naming the field', () => {
    const check = (raw: Record<string, unknown>) => checkEvent({ event_id: 'e', code: 'c', customer_id: 'x', ...raw }, now, false);
    expect(check({ event_id: 'a\u0000' })).toEqual({ ok: false, reason: 'event_id contains a NUL character or an unpaired surrogate' });
    expect(check({ code: '\ud800' })).toEqual({ ok: false, reason: 'code contains a NUL character or an unpaired surrogate' });
    expect(check({ customer_id: 'x\udc00y' })).toMatchObject({ ok: false, reason: expect.stringContaining('customer_id') });
    expect(check({ properties: { k: 'v\u0000' } })).toMatchObject({ ok: false, reason: expect.stringContaining('properties.k') });
    expect(check({ properties: { k: '💶' } })).toMatchObject({ ok: true });
    expect(check({ customer_id: 'a'.repeat(256) })).toEqual({ ok: false, reason: 'customer_id must be at most 255 characters' });
    expect(check({ customer_id: 'a'.repeat(255) })).toMatchObject({ ok: true });
  });
});
