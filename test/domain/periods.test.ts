import { describe, expect, it } from 'vitest';
import { decimal, toMinor } from '../../src/kernel/money.js';
import { addDays, addMonthsAnchored, daysBetween, fromDayNumber, parseLocalDate, toDayNumber } from '../../src/domain/dates.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import {
  amountForPeriod,
  firstBoundary,
  listPeriods,
  periodAt,
  periodContaining,
  periodEndingOn,
  periodStartingOn,
  type BillingPeriod,
  type BillingSchedule,
  type BillingTerm,
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
      'quarterly, start after the anchor: first period runs to one quarter later, prorated over the quarter ending there',
      { startDate: '2024-01-15', anchorDay: 1, term: 'QUARTERLY' },
      [['2024-01-15', '2024-04-01', 77, 91], ['2024-04-01', '2024-07-01', 91, 91], ['2024-07-01', '2024-10-01', 92, 92]],
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

// Period 0 from start D with anchor A: D on or past the anchor of its month (clamped anchors
// count) → it ends one whole term later on the anchor; D before it → it ends on the anchor of D's
// month. Its full period (the proration denominator) is the whole term ending on that boundary;
// later periods are whole terms. 2027 is a plain year, 2028 a leap year.
describe('first period and later periods, every term × anchor edge', () => {
  it.each<[string, BillingSchedule, Row[]]>([
    // MONTHLY
    ['monthly anchor 1, start on it', { startDate: '2027-03-01', anchorDay: 1, term: 'MONTHLY' }, [['2027-03-01', '2027-04-01', 31, 31], ['2027-04-01', '2027-05-01', 30, 30], ['2027-05-01', '2027-06-01', 31, 31]]],
    ['monthly anchor 15, start before it: to the anchor of the same month', { startDate: '2027-03-10', anchorDay: 15, term: 'MONTHLY' }, [['2027-03-10', '2027-03-15', 5, 28], ['2027-03-15', '2027-04-15', 31, 31], ['2027-04-15', '2027-05-15', 30, 30]]],
    ['monthly anchor 15, start after it: to the anchor of the next month', { startDate: '2027-03-20', anchorDay: 15, term: 'MONTHLY' }, [['2027-03-20', '2027-04-15', 26, 31], ['2027-04-15', '2027-05-15', 30, 30]]],
    ['monthly anchor 28, start Feb 28 (on it)', { startDate: '2027-02-28', anchorDay: 28, term: 'MONTHLY' }, [['2027-02-28', '2027-03-28', 28, 28], ['2027-03-28', '2027-04-28', 31, 31]]],
    ['monthly anchor 29, start Feb 28 2027 (on the clamped anchor): full period', { startDate: '2027-02-28', anchorDay: 29, term: 'MONTHLY' }, [['2027-02-28', '2027-03-29', 29, 29], ['2027-03-29', '2027-04-29', 31, 31]]],
    ['monthly anchor 29, start Feb 28 2028 (leap: one day before the anchor)', { startDate: '2028-02-28', anchorDay: 29, term: 'MONTHLY' }, [['2028-02-28', '2028-02-29', 1, 31], ['2028-02-29', '2028-03-29', 29, 29]]],
    ['monthly anchor 30, start Feb 29 2028 (on the clamped anchor): full period', { startDate: '2028-02-29', anchorDay: 30, term: 'MONTHLY' }, [['2028-02-29', '2028-03-30', 30, 30], ['2028-03-30', '2028-04-30', 31, 31]]],
    ['monthly anchor 30, start Jan 31 (after it)', { startDate: '2027-01-31', anchorDay: 30, term: 'MONTHLY' }, [['2027-01-31', '2027-02-28', 28, 29], ['2027-02-28', '2027-03-30', 30, 30]]],
    ['monthly anchor 31, start Feb 28 2027 (on the clamped anchor): full period, never a zero-day stub', { startDate: '2027-02-28', anchorDay: 31, term: 'MONTHLY' }, [['2027-02-28', '2027-03-31', 31, 31], ['2027-03-31', '2027-04-30', 30, 30], ['2027-04-30', '2027-05-31', 31, 31]]],
    ['monthly anchor 31, start Feb 28 2028 (leap: one day before the clamped anchor)', { startDate: '2028-02-28', anchorDay: 31, term: 'MONTHLY' }, [['2028-02-28', '2028-02-29', 1, 29], ['2028-02-29', '2028-03-31', 31, 31]]],
    ['monthly anchor 31, start Apr 30 (on the clamped anchor): full period', { startDate: '2027-04-30', anchorDay: 31, term: 'MONTHLY' }, [['2027-04-30', '2027-05-31', 31, 31]]],
    // QUARTERLY
    ['quarterly anchor 1, start Jan 10 (after it): [Jan 10, Apr 1) is 81 of 90 days', { startDate: '2026-01-10', anchorDay: 1, term: 'QUARTERLY' }, [['2026-01-10', '2026-04-01', 81, 90], ['2026-04-01', '2026-07-01', 91, 91], ['2026-07-01', '2026-10-01', 92, 92]]],
    ['quarterly anchor 1, start on it', { startDate: '2026-01-01', anchorDay: 1, term: 'QUARTERLY' }, [['2026-01-01', '2026-04-01', 90, 90], ['2026-04-01', '2026-07-01', 91, 91]]],
    ['quarterly anchor 15, start before it: a 5-day first period, then whole quarters', { startDate: '2026-01-10', anchorDay: 15, term: 'QUARTERLY' }, [['2026-01-10', '2026-01-15', 5, 92], ['2026-01-15', '2026-04-15', 90, 90]]],
    ['quarterly anchor 15, start after it', { startDate: '2026-01-20', anchorDay: 15, term: 'QUARTERLY' }, [['2026-01-20', '2026-04-15', 85, 90], ['2026-04-15', '2026-07-15', 91, 91]]],
    ['quarterly anchor 28, start Feb 29 2028 (after it)', { startDate: '2028-02-29', anchorDay: 28, term: 'QUARTERLY' }, [['2028-02-29', '2028-05-28', 89, 90], ['2028-05-28', '2028-08-28', 92, 92]]],
    ['quarterly anchor 29, start Feb 10 2027 (before the clamped anchor Feb 28)', { startDate: '2027-02-10', anchorDay: 29, term: 'QUARTERLY' }, [['2027-02-10', '2027-02-28', 18, 91], ['2027-02-28', '2027-05-29', 90, 90], ['2027-05-29', '2027-08-29', 92, 92]]],
    ['quarterly anchor 29, start Feb 10 2028 (before the leap-day anchor)', { startDate: '2028-02-10', anchorDay: 29, term: 'QUARTERLY' }, [['2028-02-10', '2028-02-29', 19, 92], ['2028-02-29', '2028-05-29', 90, 90]]],
    ['quarterly anchor 30, start Jan 31 (after it)', { startDate: '2026-01-31', anchorDay: 30, term: 'QUARTERLY' }, [['2026-01-31', '2026-04-30', 89, 90], ['2026-04-30', '2026-07-30', 91, 91]]],
    ['quarterly anchor 31, start Feb 28 2027 (on the clamped anchor): full quarter', { startDate: '2027-02-28', anchorDay: 31, term: 'QUARTERLY' }, [['2027-02-28', '2027-05-31', 92, 92], ['2027-05-31', '2027-08-31', 92, 92]]],
    ['quarterly anchor 31, start Nov 30 (on the clamped anchor), through Feb 29 2028', { startDate: '2027-11-30', anchorDay: 31, term: 'QUARTERLY' }, [['2027-11-30', '2028-02-29', 91, 91], ['2028-02-29', '2028-05-31', 92, 92]]],
    ['quarterly anchor 31, start on it: clamps never stick (Apr 30 → Jul 31)', { startDate: '2028-01-31', anchorDay: 31, term: 'QUARTERLY' }, [['2028-01-31', '2028-04-30', 90, 90], ['2028-04-30', '2028-07-31', 92, 92], ['2028-07-31', '2028-10-31', 92, 92], ['2028-10-31', '2029-01-31', 92, 92]]],
    // SEMIANNUAL
    ['semiannual anchor 1, start after it', { startDate: '2026-01-10', anchorDay: 1, term: 'SEMIANNUAL' }, [['2026-01-10', '2026-07-01', 172, 181], ['2026-07-01', '2027-01-01', 184, 184]]],
    ['semiannual anchor 15, start before it', { startDate: '2026-03-10', anchorDay: 15, term: 'SEMIANNUAL' }, [['2026-03-10', '2026-03-15', 5, 181], ['2026-03-15', '2026-09-15', 184, 184]]],
    ['semiannual anchor 30, start Aug 31 (after it), ending on Feb 29 2028', { startDate: '2027-08-31', anchorDay: 30, term: 'SEMIANNUAL' }, [['2027-08-31', '2028-02-29', 182, 183], ['2028-02-29', '2028-08-30', 183, 183]]],
    // ANNUAL
    ['annual anchor 1, start Apr 15 (after it): ends on the anchor day a year on, not on Jan 1', { startDate: '2025-04-15', anchorDay: 1, term: 'ANNUAL' }, [['2025-04-15', '2026-04-01', 351, 365], ['2026-04-01', '2027-04-01', 365, 365]]],
    ['annual anchor 1, start on it, across Feb 29 2028', { startDate: '2027-03-01', anchorDay: 1, term: 'ANNUAL' }, [['2027-03-01', '2028-03-01', 366, 366], ['2028-03-01', '2029-03-01', 365, 365]]],
    ['annual anchor 15, start before it', { startDate: '2027-06-10', anchorDay: 15, term: 'ANNUAL' }, [['2027-06-10', '2027-06-15', 5, 365], ['2027-06-15', '2028-06-15', 366, 366]]],
    ['annual anchor 15, start after it: full year holds Feb 29 2028', { startDate: '2027-06-20', anchorDay: 15, term: 'ANNUAL' }, [['2027-06-20', '2028-06-15', 361, 366], ['2028-06-15', '2029-06-15', 365, 365]]],
    ['annual anchor 28, start Feb 29 2028 (after it)', { startDate: '2028-02-29', anchorDay: 28, term: 'ANNUAL' }, [['2028-02-29', '2029-02-28', 365, 366], ['2029-02-28', '2030-02-28', 365, 365]]],
    ['annual anchor 29, start before the clamped anchor, then across the leap day', { startDate: '2027-02-10', anchorDay: 29, term: 'ANNUAL' }, [['2027-02-10', '2027-02-28', 18, 365], ['2027-02-28', '2028-02-29', 366, 366], ['2028-02-29', '2029-02-28', 365, 365]]],
    ['annual anchor 30, start Mar 31 (after it)', { startDate: '2028-03-31', anchorDay: 30, term: 'ANNUAL' }, [['2028-03-31', '2029-03-30', 364, 365], ['2029-03-30', '2030-03-30', 365, 365]]],
    ['annual anchor 31, start Feb 28 2027 (on the clamped anchor): full year to Feb 29 2028', { startDate: '2027-02-28', anchorDay: 31, term: 'ANNUAL' }, [['2027-02-28', '2028-02-29', 366, 366], ['2028-02-29', '2029-02-28', 365, 365]]],
    ['annual anchor 31, start Feb 29 2028 (on the clamped anchor)', { startDate: '2028-02-29', anchorDay: 31, term: 'ANNUAL' }, [['2028-02-29', '2029-02-28', 365, 365], ['2029-02-28', '2030-02-28', 365, 365]]],
    // Cut by an end date
    ['quarterly first period, then a quarter cut by the end date', { startDate: '2026-01-10', anchorDay: 1, term: 'QUARTERLY', endDate: '2026-05-15' }, [['2026-01-10', '2026-04-01', 81, 90], ['2026-04-01', '2026-05-15', 44, 91]]],
    ['annual first period cut by the end date keeps the full year as denominator', { startDate: '2025-04-15', anchorDay: 1, term: 'ANNUAL', endDate: '2025-10-15' }, [['2025-04-15', '2025-10-15', 183, 365]]],
  ])('%s', (_name, schedule, expected) => {
    expect(shape(schedule, expected.length + (schedule.endDate == null ? 0 : 1))).toEqual(expected);
  });

  it.each<[BillingTerm, string]>([
    ['MONTHLY', '2027-03-31'],
    ['QUARTERLY', '2027-05-31'],
    ['SEMIANNUAL', '2027-08-31'],
    ['ANNUAL', '2028-02-29'],
  ])('%s: a start on a clamped anchor (Feb 28 2027, anchor 31) bills a full first term ending %s', (term, end) => {
    const first = periodAt({ startDate: '2027-02-28', anchorDay: 31, term }, 0);
    expect(first).toMatchObject({ start: '2027-02-28', end });
    expect(first?.days).toBe(first?.fullPeriodDays);
  });

  it.each<[BillingTerm, number, string, string]>([
    ['MONTHLY', 1, '2026-01-10', '2026-02-01'],
    ['QUARTERLY', 1, '2026-01-10', '2026-04-01'],
    ['SEMIANNUAL', 1, '2026-01-10', '2026-07-01'],
    ['ANNUAL', 1, '2025-04-15', '2026-04-01'],
    ['QUARTERLY', 15, '2026-01-10', '2026-01-15'],
    ['ANNUAL', 31, '2027-02-28', '2028-02-29'],
    ['ANNUAL', 31, '2028-02-28', '2028-02-29'],
  ])('firstBoundary %s anchor %i from %s is %s', (term, anchorDay, startDate, expected) => {
    expect(firstBoundary(startDate, anchorDay, term)).toBe(expected);
  });
});

describe('look-ups agree with the listed periods on every day', () => {
  it('periodContaining / periodStartingOn / periodEndingOn, all terms, anchors 1, 15, 28..31, starts before, on and after the anchor, with and without an end date', () => {
    let checked = 0;
    const mismatches: unknown[] = [];
    for (const term of ['MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'] as const) {
      for (const anchorDay of [1, 15, 28, 29, 30, 31]) {
        for (const startDate of ['2027-01-31', '2027-02-28', '2028-02-15', '2028-02-29']) {
          for (const endDate of [null, addDays(startDate, 700)]) {
            const schedule: BillingSchedule = { startDate, anchorDay, term, endDate };
            const periods = listPeriods(schedule, addDays(startDate, 800));
            const byDay = new Map<string, BillingPeriod>();
            for (const period of periods) for (let day = period.start; day < period.end; day = addDays(day, 1)) byDay.set(day, period);
            for (let offset = -2; offset < 800; offset += 1) {
              const date = addDays(startDate, offset);
              const containing = byDay.get(date) ?? null;
              const before = byDay.get(addDays(date, -1)) ?? null;
              const expected = [containing, containing?.start === date ? containing : null, before?.end === date ? before : null];
              const actual = [periodContaining(schedule, date), periodStartingOn(schedule, date), periodEndingOn(schedule, date)];
              // One comparison per day, collected: a million expect() calls would take half a minute.
              if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ schedule, date, expected, actual });
              checked += 1;
            }
          }
        }
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(checked).toBe(4 * 6 * 4 * 2 * 802);
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
    ['quarterly first period 77/91 of 300.00 = 253.846.. -> 253.85', { startDate: '2024-01-15', anchorDay: 1, term: 'QUARTERLY' }, 0, '300.00', 25385n],
    ['quarterly from Jan 10, anchor 1: 81/90 of 300.00', { startDate: '2026-01-10', anchorDay: 1, term: 'QUARTERLY' }, 0, '300.00', 27000n],
    ['quarterly from Jan 10, anchor 1, period 1 is whole', { startDate: '2026-01-10', anchorDay: 1, term: 'QUARTERLY' }, 1, '300.00', 30000n],
    ['quarterly from Jan 10, anchor 15: 5/92 of 300.00 = 16.304.. -> 16.30', { startDate: '2026-01-10', anchorDay: 15, term: 'QUARTERLY' }, 0, '300.00', 1630n],
    ['quarterly cut by the end date: 44/91 of 91.00', { startDate: '2026-01-10', anchorDay: 1, term: 'QUARTERLY', endDate: '2026-05-15' }, 1, '91.00', 4400n],
    ['semiannual from Jan 10, anchor 1: 172/181 of 181.00', { startDate: '2026-01-10', anchorDay: 1, term: 'SEMIANNUAL' }, 0, '181.00', 17200n],
    ['annual from Apr 15, anchor 1: 351/365 of 1200.00 = 1153.972.. -> 1153.97', { startDate: '2025-04-15', anchorDay: 1, term: 'ANNUAL' }, 0, '1200.00', 115397n],
    ['annual from Feb 29 2028, anchor 28: 365/366 of 366.00', { startDate: '2028-02-29', anchorDay: 28, term: 'ANNUAL' }, 0, '366.00', 36500n],
    ['annual anchor 31 from Feb 28 2027 (clamped anchor) is whole', { startDate: '2027-02-28', anchorDay: 31, term: 'ANNUAL' }, 0, '1200.00', 120000n],
    ['monthly anchor 31 from Feb 28 2028: 1/29 of 29.00', { startDate: '2028-02-28', anchorDay: 31, term: 'MONTHLY' }, 0, '29.00', 100n],
    ['anchor 30 Feb stub 19/30 of 10.00', { startDate: '2024-02-10', anchorDay: 30, term: 'MONTHLY' }, 0, '10.00', 633n],
    ['cut last period 14/31 of 62.00', { startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY', endDate: '2024-03-15' }, 2, '62.00', 2800n],
  ])('%s', (_name, schedule, index, price, expectedMinor) => {
    const period = periodAt(schedule, index);
    if (period === null) throw new Error('period expected');
    expect(toMinor(amountForPeriod(decimal(price), period), 'EUR')).toBe(expectedMinor);
  });
});
