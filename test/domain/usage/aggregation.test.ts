import { describe, expect, it } from 'vitest';
import { aggregateEvents, checkEvent, mergeGroups, summarize, type UsageEvent, type UsageMetric } from '../../../src/domain/usage/index.js';

const metric = (aggregation: UsageMetric['aggregation'], extra: Partial<UsageMetric> = {}): UsageMetric => ({
  id: 'bm_1', name: 'm', code: 'c', aggregation, property: aggregation === 'COUNT' ? null : 'v', groupBy: ['g'], ...extra,
});
const at = (iso: string) => new Date(iso);
const events: UsageEvent[] = [
  { eventId: 'a', timestamp: at('2026-01-01T00:00:00Z'), properties: { v: '1.5', g: 'x' } },
  { eventId: 'b', timestamp: at('2026-01-02T00:00:00Z'), properties: { v: '-2', g: 'x' } },
  { eventId: 'c', timestamp: at('2026-01-02T00:00:00Z'), properties: { v: '10', g: 'y' } },
  { eventId: 'd', timestamp: at('2026-01-03T00:00:00Z'), properties: { v: 'n/a', g: 'y' } },
  { eventId: 'e', timestamp: at('2026-01-01T00:00:00Z'), properties: { v: '1.5' } },
];

describe('usage aggregation', () => {
  it.each([
    ['COUNT', '5', { x: '2', y: '2', '': '1' }],
    ['SUM', '11', { x: '-0.5', y: '10', '': '1.5' }],
    ['MIN', '-2', { x: '-2', y: '10', '': '1.5' }],
    ['MAX', '10', { x: '1.5', y: '10', '': '1.5' }],
    ['MEAN', '2.75', { x: '-0.25', y: '10', '': '1.5' }],
    ['LATEST', '10', { x: '-2', y: '10', '': '1.5' }],
    ['COUNT_DISTINCT', '4', { x: '2', y: '2', '': '1' }],
  ] as const)('%s', (aggregation, total, groups) => {
    const result = summarize(aggregation, aggregateEvents(metric(aggregation), events));
    expect(result.totalValue).toBe(total);
    expect(Object.fromEntries(result.groups.map((g) => [g.dimensions.g, g.value]))).toEqual(groups);
  });

  it('merging split partials gives the same figures as one pass (rollup + tail)', () => {
    for (const aggregation of ['COUNT', 'SUM', 'MIN', 'MAX', 'MEAN', 'LATEST', 'COUNT_DISTINCT'] as const) {
      const m = metric(aggregation);
      const merged = mergeGroups(aggregateEvents(m, events.slice(0, 2)), aggregateEvents(m, events.slice(2)));
      expect(summarize(aggregation, merged)).toEqual(summarize(aggregation, aggregateEvents(m, events)));
    }
  });

  it('LATEST breaks timestamp ties by the greater event id; segmentation filters', () => {
    expect(summarize('LATEST', aggregateEvents(metric('LATEST', { groupBy: [] }), events.slice(1, 3).reverse())).totalValue).toBe('10');
    const filtered = metric('SUM', { filters: { g: ['y'] } });
    expect(summarize('SUM', aggregateEvents(filtered, events)).totalValue).toBe('10');
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
