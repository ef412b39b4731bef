import { describe, expect, it } from 'vitest';
import { nextStop } from '../../../src/modules/test-clocks/advance.js';

const at = (iso: string) => new Date(iso);

describe('nextStop: where a test clock advance stops next', () => {
  const cases: { name: string; from: string; target: string; dates: (string | null)[]; instants: (string | null)[]; stop: string }[] = [
    { name: 'nothing due: the target', from: '2026-01-01T00:00:00Z', target: '2026-03-01T00:00:00Z', dates: [null, null], instants: [null], stop: '2026-03-01T00:00:00.000Z' },
    { name: 'a due date: its midnight', from: '2026-01-01T00:00:00Z', target: '2026-03-01T00:00:00Z', dates: ['2026-01-15', '2026-02-01'], instants: [null], stop: '2026-01-15T00:00:00.000Z' },
    { name: 'a date already handled at `from` (same day) is skipped', from: '2026-01-15T10:00:00Z', target: '2026-03-01T00:00:00Z', dates: ['2026-01-15', '2026-02-01'], instants: [null], stop: '2026-02-01T00:00:00.000Z' },
    { name: 'a past date (stuck) is skipped', from: '2026-01-15T00:00:00Z', target: '2026-03-01T00:00:00Z', dates: ['2026-01-10'], instants: [null], stop: '2026-03-01T00:00:00.000Z' },
    { name: 'a finalization between midnights: that instant', from: '2026-02-01T00:00:00Z', target: '2026-03-01T00:00:00Z', dates: ['2026-03-01'], instants: ['2026-02-01T06:00:00Z'], stop: '2026-02-01T06:00:00.000Z' },
    { name: 'a finalization at `from` is done: skipped', from: '2026-02-02T00:00:00Z', target: '2026-03-01T00:00:00Z', dates: [null], instants: ['2026-02-02T00:00:00Z'], stop: '2026-03-01T00:00:00.000Z' },
    { name: 'the target before anything due', from: '2026-01-01T00:00:00Z', target: '2026-01-10T12:30:00Z', dates: ['2026-01-15'], instants: ['2026-01-20T00:00:00Z'], stop: '2026-01-10T12:30:00.000Z' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(nextStop(at(c.from), at(c.target), { dates: c.dates, instants: c.instants.map((i) => (i ? at(i) : null)) }).toISOString()).toBe(c.stop);
    });
  }
});
