import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalPayload, checkEvent, parseRfc3339 } from '../../src/domain/usage/index.js';

const now = new Date('2026-03-15T12:00:00.000Z');

describe('usage event checks', () => {
  it('gives the canonical payload as the JSON of [code, customer, sent timestamp, sorted [key, value] pairs]', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.dictionary(fc.string({ minLength: 1 }), fc.string()), fc.boolean(), (code, customer, properties, withTime) => {
        const result = checkEvent({ event_id: 'e', code, customer_id: customer, properties, ...(withTime ? { timestamp: '2026-03-15T11:00:00.5Z' } : {}) }, now, false);
        fc.pre(result.ok);
        if (!result.ok) return;
        const keys = Object.keys(properties).sort();
        const expected = JSON.stringify([code, 'cus_x', withTime ? '2026-03-15T11:00:00.500Z' : '', keys.map((k) => [k, properties[k]])]);
        expect(canonicalPayload(result.event, 'cus_x')).toBe(expected);
      }),
    );
  });

  it('keeps the timestamp as UTC text with milliseconds, "now" when absent', () => {
    const sent = checkEvent({ event_id: 'e', code: 'c', customer_id: 'x', timestamp: '2026-03-15T13:30:00.123456+02:00' }, now, false);
    expect(sent).toMatchObject({ ok: true, event: { timestampText: '2026-03-15T11:30:00.123Z', sentTimestamp: '2026-03-15T11:30:00.123Z' } });
    const absent = checkEvent({ event_id: 'e', code: 'c', customer_id: 'x' }, now, false);
    expect(absent).toMatchObject({ ok: true, event: { timestampText: '2026-03-15T12:00:00.000Z', sentTimestamp: '' } });
    expect(parseRfc3339('2026-03-15T11:30:00.1234567Z')?.toISOString()).toBe('2026-03-15T11:30:00.123Z');
    expect(parseRfc3339('2026-03-15 11:30:00Z')?.toISOString()).toBe('2026-03-15T11:30:00.000Z');
    expect(parseRfc3339('2026-03-15T11:30Z')).toBeUndefined();
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
