import { describe, expect, it } from 'vitest';
import { decimal, toMinor } from '../../src/kernel/money.js';
import { addMonthsAnchored, daysBetween, fromDayNumber, parseLocalDate, toDayNumber } from '../../src/domain/dates.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import {
  amountForPeriod,
  listPeriods,
  periodAt,
  periodContaining,
  periodEndingOn,
  periodStartingOn,
  type BillingSchedule,
} from '../../src/domain/periods.js';

type Row = [start: string, end: string, days: number, fullPeriodDays: number];
const shape = (schedule: BillingSchedule, count: number): Row[] =>
  Array.from({ length: count }, (_, index) => periodAt(schedule, index)).flatMap((p) =>
    p === null ? [] : [[p.start, p.end, p.days, p.fullPeriodDays] as Row],
  );

describe('calendar arithmetic', () => {
  it.each([
    ['1970-01-01', 0],
    ['2024-02-29', 19782],
    ['2000-03-01', 11017],
    ['1969-12-31', -1],
  ])('%s is day %i and back', (date, dayNumber) => {
    expect(toDayNumber(date)).toBe(dayNumber);
    expect(fromDayNumber(dayNumber)).toBe(date);
  });

  it.each([
    ['leap February', '2024-02-01', '2024-03-01', 29],
    ['plain February', '2023-02-01', '2023-03-01', 28],
    ['leap year', '2024-01-01', '2025-01-01', 366],
    ['century non-leap 2100', '2100-02-01', '2100-03-01', 28],
  ])('%s has the right length', (_name, from, to, days) => {
    expect(daysBetween(from, to)).toBe(days);
  });

  it.each(['2023-02-29', '2024-13-01', '2024-1-01', '2024-04-31', ''])('rejects %j', (text) => {
    expect(() => parseLocalDate(text)).toThrow(BillingRuleError);
  });

  it.each([
    ['Jan 31 + 1 month, anchor 31 -> Feb 29 (leap)', '2024-01-31', 1, 31, '2024-02-29'],
    ['clamped Feb 29 + 1 month goes back to Mar 31', '2024-02-29', 1, 31, '2024-03-31'],
    ['Feb 28 (2023) + 1, anchor 30', '2023-02-28', 1, 30, '2023-03-30'],
    ['Nov 30 + 3 months anchor 31 -> Feb 28', '2024-11-30', 3, 31, '2025-02-28'],
    ['backwards across a year', '2024-01-15', -2, 15, '2023-11-15'],
  ])('addMonthsAnchored: %s', (_name, date, months, anchor, expected) => {
    expect(addMonthsAnchored(date, months, anchor)).toBe(expected);
  });
});

describe('periods on the anchor grid', () => {
  it.each<[string, BillingSchedule, Row[]]>([
    [
      'monthly, mid-month start, anchor 1: stub prorated over the full January',
      { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' },
      [['2024-01-15', '2024-02-01', 17, 31], ['2024-02-01', '2024-03-01', 29, 29], ['2024-03-01', '2024-04-01', 31, 31]],
    ],
    [
      'monthly anchor 31 through a leap February and back to 31',
      { startDate: '2024-01-31', anchorDay: 31, term: 'MONTHLY' },
      [['2024-01-31', '2024-02-29', 29, 29], ['2024-02-29', '2024-03-31', 31, 31], ['2024-03-31', '2024-04-30', 30, 30], ['2024-04-30', '2024-05-31', 31, 31]],
    ],
    [
      'start on a clamped anchor day (Feb 28, anchor 31) is a full period',
      { startDate: '2023-02-28', anchorDay: 31, term: 'MONTHLY' },
      [['2023-02-28', '2023-03-31', 31, 31]],
    ],
    [
      'anchor 30 with a start in February: first boundary is Feb 29',
      { startDate: '2024-02-10', anchorDay: 30, term: 'MONTHLY' },
      [['2024-02-10', '2024-02-29', 19, 30], ['2024-02-29', '2024-03-30', 30, 30]],
    ],
    [
      'anchor 29 in a non-leap year: boundary Feb 28',
      { startDate: '2023-02-15', anchorDay: 29, term: 'MONTHLY' },
      [['2023-02-15', '2023-02-28', 13, 30], ['2023-02-28', '2023-03-29', 29, 29]],
    ],
    [
      'anchor after the start day within the same month',
      { startDate: '2024-03-10', anchorDay: 20, term: 'MONTHLY' },
      [['2024-03-10', '2024-03-20', 10, 29], ['2024-03-20', '2024-04-20', 31, 31]],
    ],
    [
      'quarterly: stub to the first anchor, prorated over the quarter ending there',
      { startDate: '2024-01-15', anchorDay: 1, term: 'QUARTERLY' },
      [['2024-01-15', '2024-02-01', 17, 92], ['2024-02-01', '2024-05-01', 90, 90], ['2024-05-01', '2024-08-01', 92, 92]],
    ],
    [
      'semiannual anchor 31',
      { startDate: '2024-08-31', anchorDay: 31, term: 'SEMIANNUAL' },
      [['2024-08-31', '2025-02-28', 181, 181], ['2025-02-28', '2025-08-31', 184, 184]],
    ],
    [
      'annual from a leap day, anchor 29',
      { startDate: '2024-02-29', anchorDay: 29, term: 'ANNUAL' },
      [['2024-02-29', '2025-02-28', 365, 365], ['2025-02-28', '2026-02-28', 365, 365], ['2026-02-28', '2027-02-28', 365, 365], ['2027-02-28', '2028-02-29', 366, 366]],
    ],
    [
      'end date cuts the last period (prorated) and stops the schedule',
      { startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY', endDate: '2024-03-15' },
      [['2024-01-01', '2024-02-01', 31, 31], ['2024-02-01', '2024-03-01', 29, 29], ['2024-03-01', '2024-03-15', 14, 31]],
    ],
    [
      'end date on a boundary leaves no empty period',
      { startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY', endDate: '2024-02-01' },
      [['2024-01-01', '2024-02-01', 31, 31]],
    ],
  ])('%s', (_name, schedule, expected) => {
    // For cut schedules, ask for one more period than expected to prove the schedule stops.
    expect(shape(schedule, expected.length + (schedule.endDate == null ? 0 : 1))).toEqual(expected);
  });

  it.each([0, 32, 1.5])('rejects anchor %s', (anchorDay) => {
    expect(() => periodAt({ startDate: '2024-01-01', anchorDay, term: 'MONTHLY' }, 0)).toThrow(BillingRuleError);
  });

  it('rejects a negative cycle index', () => {
    expect(() => periodAt({ startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY' }, -1)).toThrow(BillingRuleError);
  });

  it('rejects an end date before the start', () => {
    expect(() => periodAt({ startDate: '2024-01-10', anchorDay: 1, term: 'MONTHLY', endDate: '2024-01-01' }, 0)).toThrow(BillingRuleError);
  });
});

describe('finding periods', () => {
  const schedule: BillingSchedule = { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' };

  it('lists every period started on or before the as-of date', () => {
    expect(listPeriods(schedule, '2024-03-01').map((p) => p.start)).toEqual(['2024-01-15', '2024-02-01', '2024-03-01']);
    expect(listPeriods(schedule, '2024-02-29').map((p) => p.start)).toEqual(['2024-01-15', '2024-02-01']);
    expect(listPeriods(schedule, '2024-01-14')).toEqual([]);
  });

  it('finds the period containing, starting on and ending on a date', () => {
    expect(periodContaining(schedule, '2024-02-29')?.start).toBe('2024-02-01');
    expect(periodContaining(schedule, '2024-01-01')).toBeNull();
    expect(periodStartingOn(schedule, '2024-03-01')?.cycleIndex).toBe(2);
    expect(periodStartingOn(schedule, '2024-03-02')).toBeNull();
    expect(periodEndingOn(schedule, '2024-03-01')?.start).toBe('2024-02-01');
    expect(periodEndingOn(schedule, '2024-02-01')?.start).toBe('2024-01-15');
    expect(periodEndingOn(schedule, '2024-01-15')).toBeNull();
  });

  it('a cut last period ends on the end date', () => {
    const ending = { ...schedule, endDate: '2024-02-20' };
    expect(periodEndingOn(ending, '2024-02-20')).toMatchObject({ start: '2024-02-01', end: '2024-02-20', days: 19, fullPeriodDays: 29 });
  });
});

describe('period amounts (proration factor = days used / days of the full period)', () => {
  it.each<[string, BillingSchedule, number, string, bigint]>([
    ['January stub 17/31 of 31.00', { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' }, 0, '31.00', 1700n],
    ['stub 17/31 of 49.00 = 26.870967.. -> 26.87', { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' }, 0, '49.00', 2687n],
    ['full leap February is not prorated', { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' }, 1, '49.00', 4900n],
    ['quarterly stub 17/92 of 300.00', { startDate: '2024-01-15', anchorDay: 1, term: 'QUARTERLY' }, 0, '300.00', 5543n],
    ['anchor 30 Feb stub 19/30 of 10.00', { startDate: '2024-02-10', anchorDay: 30, term: 'MONTHLY' }, 0, '10.00', 633n],
    ['cut last period 14/31 of 62.00', { startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY', endDate: '2024-03-15' }, 2, '62.00', 2800n],
  ])('%s', (_name, schedule, index, price, expectedMinor) => {
    const period = periodAt(schedule, index);
    if (period === null) throw new Error('period expected');
    expect(toMinor(amountForPeriod(decimal(price), period), 'EUR')).toBe(expectedMinor);
  });
});
