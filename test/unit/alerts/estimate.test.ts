import { describe, expect, it } from 'vitest';
import { contributionBound, createEstimates, mayLower } from '../../../src/modules/alerts/estimate.js';

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
    expect(e.told('alr_a', count, events('1'))).toBe('UNKNOWN'); // never measured here: the usual rounds
    const started = e.starts(['alr_a']);
    e.measured(started, 'alr_a', '3', ['2', '5', '10']);
    expect(e.told('alr_a', count, events('1'))).toBe('QUIET'); // 4
    expect(e.told('alr_a', count, events('1'))).toBe('MAY_CROSS'); // 5 reaches 5
    // measured again at 5: the next threshold is 10
    const again = e.starts(['alr_a']);
    e.measured(again, 'alr_a', '5', ['2', '5', '10']);
    expect(e.told('alr_a', count, events(...Array(4).fill('1')))).toBe('QUIET');
    expect(e.told('alr_a', count, events('1'))).toBe('MAY_CROSS');
    // past the last threshold nothing can cross, and a count cannot fall
    const last = e.starts(['alr_a']);
    e.measured(last, 'alr_a', '12', ['2', '5', '10']);
    expect(e.told('alr_a', count, events(...Array(100).fill('1')))).toBe('QUIET');
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
    expect(e.told('alr_a', sum, events('0'))).toBe('MAY_CROSS');
  });

  it('keeps its base and what was told when an evaluation fails', () => {
    const e = createEstimates();
    e.measured(e.starts(['alr_a']), 'alr_a', '0', ['3']);
    const failing = e.starts(['alr_a']);
    e.told('alr_a', count, events('1', '1'));
    e.failed(failing, 'alr_a');
    expect(e.told('alr_a', count, events('1'))).toBe('MAY_CROSS');
  });

  it('calls a batch quiet only when the value cannot have fallen: no negative SUM value, never for MIN, MEAN or LATEST', () => {
    expect(mayLower(sum, events('2', 'x', '-x', undefined))).toBe(false);
    expect(mayLower(sum, events('2', '-0.5'))).toBe(true);
    expect(mayLower(max, events('-7'))).toBe(false);
    expect(mayLower(count, events('-7'))).toBe(false);
    expect(mayLower({ aggregation: 'LATEST', property: 'bytes' }, events('9'))).toBe(true);
    expect(mayLower({ aggregation: 'MIN', property: 'bytes' }, [])).toBe(false);

    const e = createEstimates();
    e.measured(e.starts(['alr_a']), 'alr_a', '5', ['3', '10']); // 3 triggered, next 10
    expect(e.told('alr_a', sum, events('1'))).toBe('QUIET');
    // a negative value may take it back under 3: measured in the usual round, until measured again
    expect(e.told('alr_a', sum, events('-4'))).toBe('UNKNOWN');
    expect(e.told('alr_a', sum, events('1'))).toBe('UNKNOWN');
    e.measured(e.starts(['alr_a']), 'alr_a', '3', ['3', '10']);
    expect(e.told('alr_a', sum, events('1'))).toBe('QUIET');
    // a negative value told while an evaluation runs may be missing from its reading: it stays counted
    const running = e.starts(['alr_a']);
    e.told('alr_a', sum, events('-1'));
    e.measured(running, 'alr_a', '4', ['3', '10']);
    expect(e.told('alr_a', sum, events('1'))).toBe('UNKNOWN');
    const latest = { aggregation: 'LATEST' as const, property: 'bytes' };
    e.measured(e.starts(['alr_l']), 'alr_l', '5', ['10']);
    expect(e.told('alr_l', latest, events('6'))).toBe('UNKNOWN');
  });
});
