import { describe, expect, it } from 'vitest';
import { parseUsageThresholds } from '../../../src/modules/plans/thresholds.js';

describe('parseUsageThresholds', () => {
  it('sorts fixed amounts ascending, then the recurring one, with the currency digits', () => {
    expect(parseUsageThresholds([{ amount: '500', recurring: true, threshold_display_name: ' Every 500 ' }, { amount: '100.5' }, { amount: '50' }], 'EUR')).toEqual([
      { amount: '50.00', recurring: false, threshold_display_name: null },
      { amount: '100.50', recurring: false, threshold_display_name: null },
      { amount: '500.00', recurring: true, threshold_display_name: 'Every 500' },
    ]);
    expect(parseUsageThresholds([{ amount: '1000' }], 'JPY')).toEqual([{ amount: '1000', recurring: false, threshold_display_name: null }]);
    expect(parseUsageThresholds([{ amount: '1.5', threshold_display_name: '  ' }], 'KWD')).toEqual([{ amount: '1.500', recurring: false, threshold_display_name: null }]);
    expect(parseUsageThresholds([], 'EUR')).toEqual([]);
  });

  it.each<[string, { amount: unknown; recurring?: boolean }[], string, string]>([
    ['a JSON number', [{ amount: 100 }], 'EUR', 'usage_thresholds[0].amount must be a decimal string such as "49.00", not a JSON number'],
    ['a negative amount', [{ amount: '-1' }], 'EUR', 'usage_thresholds[0].amount must be a non-negative decimal string'],
    ['zero', [{ amount: '0' }], 'EUR', 'usage_thresholds[0].amount must be above zero, e.g. "100.00"'],
    ['too many decimals for JPY', [{ amount: '10.5' }], 'JPY', 'usage_thresholds[0].amount has more than 0 decimals for JPY, e.g. "11"'],
    ['two recurring', [{ amount: '1', recurring: true }, { amount: '2', recurring: true }], 'EUR', 'usage_thresholds[1].recurring: at most one threshold may be recurring'],
    ['a repeated fixed amount', [{ amount: '1' }, { amount: '1.00' }], 'EUR', 'usage_thresholds[1].amount "1.00" is already a fixed threshold of this list'],
    ['more than 20', Array.from({ length: 21 }, (_, i) => ({ amount: `${i + 1}` })), 'EUR', 'usage_thresholds holds at most 20 thresholds, got 21'],
  ])('refuses %s, naming the field', (_name, raw, currency, message) => {
    expect(() => parseUsageThresholds(raw, currency)).toThrow(message);
  });

  it('a recurring step may repeat a fixed amount', () => {
    expect(parseUsageThresholds([{ amount: '100' }, { amount: '100', recurring: true }], 'EUR').map((t) => t.recurring)).toEqual([false, true]);
  });
});
