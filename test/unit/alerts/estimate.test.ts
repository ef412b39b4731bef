import { describe, expect, it } from 'vitest';
import { contributionBound, createEstimates } from '../../../src/modules/alerts/estimate.js';

const count = { aggregation: 'COUNT' as const, property: null };
const sum = { aggregation: 'SUM' as const, property: 'bytes' };
const max = { aggregation: 'MAX' as const, property: 'bytes' };
const events = (...values: (string | undefined)[]): { properties: Record<string, string> }[] => values.map((v) => ({ properties: v === undefined ? ({} as Record<string, string>) : { bytes: v } }));

describe('crossing estimates (the fast lane)', () => {
  it('bounds what events may add: their number, their positive values, or their largest value', () => {
    expect(contributionBound(count, events('1', '2', undefined))?.toString()).toBe('3');
    expect(contributionBound(sum, events('2.5', '-10', 'x', undefined, '1'))?.toString()).toBe('3.5');
    expect(contributionBound(max, events('2.5', '7', 'x'))?.toString()).toBe('7');
    expect(contributionBound(max, events('x', undefined))).toBeNull();
  });

  it('flags the events that may reach the next threshold above the measured value, and none before a measurement', () => {
    const e = createEstimates();
    expect(e.told('alr_a', count, events('1'))).toBe(false); // never measured here: the usual rounds
    const started = e.starts(['alr_a']);
    e.measured(started, 'alr_a', '3', ['2', '5', '10']);
    expect(e.told('alr_a', count, events('1'))).toBe(false); // 4
    expect(e.told('alr_a', count, events('1'))).toBe(true); // 5 reaches 5
    // measured again at 5: the next threshold is 10
    const again = e.starts(['alr_a']);
    e.measured(again, 'alr_a', '5', ['2', '5', '10']);
    expect(e.told('alr_a', count, events(...Array(4).fill('1')))).toBe(false);
    expect(e.told('alr_a', count, events('1'))).toBe(true);
    // past the last threshold nothing is flagged
    const last = e.starts(['alr_a']);
    e.measured(last, 'alr_a', '12', ['2', '5', '10']);
    expect(e.told('alr_a', count, events(...Array(100).fill('1')))).toBe(false);
  });

  it('counts events told during an evaluation against its reading (erring high), and ignores an older reading that finishes last', () => {
    const e = createEstimates();
    e.measured(e.starts(['alr_a']), 'alr_a', '0', ['10']);
    const first = e.starts(['alr_a']);
    e.told('alr_a', sum, events('4')); // during the first evaluation: it may or may not see it
    const second = e.starts(['alr_a']);
    e.told('alr_a', sum, events('3'));
    e.measured(second, 'alr_a', '7', ['10']);
    e.measured(first, 'alr_a', '0', ['10']); // older: ignored
    // base 7 (second) + 3 told since the second started = 10
    expect(e.told('alr_a', sum, events('0'))).toBe(true);
  });

  it('keeps its base and what was told when an evaluation fails', () => {
    const e = createEstimates();
    e.measured(e.starts(['alr_a']), 'alr_a', '0', ['3']);
    const failing = e.starts(['alr_a']);
    e.told('alr_a', count, events('1', '1'));
    e.failed(failing, 'alr_a');
    expect(e.told('alr_a', count, events('1'))).toBe(true);
  });
});
