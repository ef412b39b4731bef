import { describe, expect, it } from 'vitest';
import { checkEvent, emptyPartial, mergePartials, summarize, type UsagePartial } from '../../../src/domain/usage/index.js';
import { Dec } from '../../../src/kernel/money.js';

const at = (iso: string) => new Date(iso);

describe('usage aggregation', () => {
  const partial = (over: Partial<UsagePartial>): UsagePartial => ({ ...emptyPartial({ g: 'x' }), ...over });
  const latest = (at: string, eventId: string, value: string) => ({ at: new Date(at), eventId, value: new Dec(value) });

  it('merges partials (a rollup and the events not folded yet) into one figure per aggregation', () => {
    const folded = partial({ count: 3n, sum: new Dec('1.5'), min: new Dec('-2'), max: new Dec('1.5'), latest: latest('2026-01-02T00:00:00Z', 'b', '-2'), distinct: new Set(['1.5', '-2']) });
    const unfolded = partial({ count: 1n, sum: new Dec('10'), min: new Dec('10'), max: new Dec('10'), latest: latest('2026-01-02T00:00:00Z', 'c', '10'), distinct: new Set(['10', '-2']) });
    const groups = new Map([['x', mergePartials(folded, unfolded)]]);
    expect(summarize('COUNT', groups).totalValue).toBe('4');
    expect(summarize('SUM', groups).totalValue).toBe('11.5');
    expect(summarize('MIN', groups).totalValue).toBe('-2');
    expect(summarize('MAX', groups).totalValue).toBe('10');
    expect(summarize('MEAN', groups).totalValue).toBe('2.875');
    // same timestamp: the greater event id is the latest
    expect(summarize('LATEST', groups).totalValue).toBe('10');
    expect(summarize('COUNT_DISTINCT', groups).totalValue).toBe('3');
  });

  it('rounds a mean half-even at 12 decimals, and totals over groups with the metric aggregation', () => {
    const groups = new Map([
      ['x', partial({ count: 3n, sum: new Dec('1'), max: new Dec('1') })],
      ['y', partial({ dimensions: { g: 'y' }, count: 1n, sum: new Dec('7'), max: new Dec('7') })],
    ]);
    expect(summarize('MEAN', new Map([['x', groups.get('x')!]])).totalValue).toBe('0.333333333333');
    expect(summarize('MAX', groups)).toEqual({ totalValue: '7', groups: [{ dimensions: { g: 'x' }, value: '1' }, { dimensions: { g: 'y' }, value: '7' }] });
  });

  it('checks the timestamp window', () => {
    const now = at('2026-03-15T12:00:00Z');
    const base = { event_id: 'e', code: 'c', customer_id: 'x' };
    expect(checkEvent({ ...base, timestamp: '2026-03-14T12:00:00Z' }, now, false).ok).toBe(true);
    expect(checkEvent({ ...base, timestamp: '2026-03-14T11:59:59.999Z' }, now, false)).toEqual({ ok: false, reason: 'timestamp 2026-03-14T11:59:59.999Z is more than 24 hours in the past; set allow_backfilling to ingest it' });
    expect(checkEvent({ ...base, timestamp: '2026-03-14T11:59:59.999Z' }, now, true).ok).toBe(true);
    expect(checkEvent({ ...base, timestamp: '2026-03-15T13:00:00.001Z' }, now, true).ok).toBe(false);
    expect(checkEvent({ ...base, timestamp: '' }, now, false)).toMatchObject({ ok: true, event: { timestamp: now, sentTimestamp: '' } });
  });
});
