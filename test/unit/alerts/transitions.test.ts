import { describe, expect, it } from 'vitest';
import { transitionsOf, type ThresholdState } from '../../../src/modules/alerts/transitions.js';

const march = new Date('2026-03-01T00:00:00Z');
const april = new Date('2026-04-01T00:00:00Z');
const may = new Date('2026-05-01T00:00:00Z');
const idle = (threshold: string): ThresholdState => ({ threshold, triggered: false, periodStart: null });
const fired = (threshold: string, periodStart: Date | null = march): ThresholdState => ({ threshold, triggered: true, periodStart });

describe('alert transitions', () => {
  it.each([
    // [kind, states, value, period, expected]
    ['usage at the threshold triggers', 'USAGE_UNITS', [idle('100')], '100', march, ['TRIGGER 100']],
    ['usage below it does nothing', 'USAGE_UNITS', [idle('100')], '99.999', march, []],
    ['a triggered threshold stays triggered in its period', 'USAGE_UNITS', [fired('100')], '250', march, []],
    ['a new period resolves it', 'USAGE_UNITS', [fired('100')], '0', april, ['RESOLVE 100']],
    ['a new period already over resolves then triggers again', 'USAGE_UNITS', [fired('100')], '120', april, ['RESOLVE 100', 'TRIGGER 100']],
    ['one batch over two thresholds triggers both', 'SPEND', [idle('10'), idle('50'), idle('90')], '60.00', march, ['TRIGGER 10', 'TRIGGER 50']],
    ['no value (no serving subscription) resolves', 'SPEND', [fired('10')], null, null, ['RESOLVE 10']],
    ['a balance below the threshold triggers', 'CREDIT_BALANCE', [idle('20')], '19.99', null, ['TRIGGER 20']],
    ['a balance at the threshold is fine', 'CREDIT_BALANCE', [idle('20')], '20', null, []],
    ['a top-up resolves', 'CREDIT_BALANCE', [fired('20', null)], '120', null, ['RESOLVE 20']],
    ['a negative balance under a negative threshold', 'CREDIT_BALANCE', [idle('-5')], '-5.01', null, ['TRIGGER -5']],
  ] as const)('%s', (_name, kind, states, value, periodStart, expected) => {
    const measured = { value, periodStart, periodEnd: periodStart === march ? april : periodStart === april ? may : null };
    expect(transitionsOf(kind, states, measured).map((t) => `${t.kind} ${t.threshold}`)).toEqual(expected);
  });
});
