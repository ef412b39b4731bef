import { describe, expect, it } from 'vitest';
import { nextTick } from '../../../src/modules/exports/config-service.js';

describe('export schedule', () => {
  it('ticks at the next full UTC hour, or the next UTC midnight, strictly after now', () => {
    expect(nextTick('HOURLY', new Date('2026-03-15T12:00:00.000Z')).toISOString()).toBe('2026-03-15T13:00:00.000Z');
    expect(nextTick('HOURLY', new Date('2026-03-15T12:59:59.999Z')).toISOString()).toBe('2026-03-15T13:00:00.000Z');
    expect(nextTick('DAILY', new Date('2026-03-15T00:00:00.000Z')).toISOString()).toBe('2026-03-16T00:00:00.000Z');
    expect(nextTick('DAILY', new Date('2026-12-31T23:30:00.000Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
