// Calendar dates for billing. Billing dates are civil dates (no time zone, no clock), so they
// are plain `YYYY-MM-DD` strings and all arithmetic goes through a day number computed with
// integer formulas: no `Date`, hence no local-time or DST surprises.
import { BillingRuleError } from './errors.js';

/** A civil date `YYYY-MM-DD`. Validated by `parseLocalDate`; compare with `compareDates`. */
export type LocalDate = string;

export interface CivilDate {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number; // 1..31
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

// A bill run parses the same few dozen dates (period bounds, anchors, invoice dates) tens of
// times per invoice through compareDates, addDays and the period grid: valid dates are parsed
// once and their parts and day numbers kept. Only valid dates are kept (an invalid one throws
// every time), and the caches are emptied when full, so they stay small.
const DATE_CACHE_LIMIT = 10_000;
const parsedDates = new Map<string, CivilDate>();
const dayNumbers = new Map<string, number>();
const datesOfDayNumbers = new Map<number, LocalDate>();

/** `compute(key)`, kept in `cache` (emptied when full); a computation that throws keeps nothing. */
function remembered<K, V>(cache: Map<K, V>, key: K, compute: (key: K) => V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = compute(key);
  if (cache.size >= DATE_CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

export function parseLocalDate(text: string): CivilDate {
  return remembered(parsedDates, text, (key) => Object.freeze(parseUncached(key)));
}

function parseUncached(text: string): CivilDate {
  const match = DATE_PATTERN.exec(text);
  if (!match) throw new BillingRuleError('INVALID_DATE', `"${text}" is not a YYYY-MM-DD date`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new BillingRuleError('INVALID_DATE', `"${text}" is not a calendar date`);
  }
  return { year, month, day };
}

export function formatLocalDate({ year, month, day }: CivilDate): LocalDate {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days since 1970-01-01 (Howard Hinnant's days_from_civil), exact for any Gregorian date. */
export function toDayNumber(date: LocalDate): number {
  return remembered(dayNumbers, date, (key) => dayNumberOf(parseLocalDate(key)));
}

function dayNumberOf({ year, month, day }: CivilDate): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function fromDayNumber(dayNumber: number): LocalDate {
  return remembered(datesOfDayNumbers, dayNumber, dateOfDayNumber);
}

function dateOfDayNumber(dayNumber: number): LocalDate {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return formatLocalDate({ year, month, day });
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return toDayNumber(to) - toDayNumber(from);
}

export function addDays(date: LocalDate, days: number): LocalDate {
  return fromDayNumber(toDayNumber(date) + days);
}

export function compareDates(a: LocalDate, b: LocalDate): number {
  return toDayNumber(a) - toDayNumber(b);
}

/** The earliest of the dates given, ignoring missing ones; null when none is given. */
export function earliestDate(...dates: (LocalDate | null | undefined)[]): LocalDate | null {
  let earliest: LocalDate | null = null;
  for (const date of dates) {
    if (date != null && (earliest === null || compareDates(date, earliest) < 0)) earliest = date;
  }
  return earliest;
}

/**
 * The anchor day of a given month: the anchor, clamped to the month's last day
 * (anchor 31 -> Feb 28 or 29, Apr 30, and back to 31 in months that have it).
 */
export function anchoredDate(year: number, month: number, anchorDay: number): LocalDate {
  return formatLocalDate({ year, month, day: Math.min(anchorDay, daysInMonth(year, month)) });
}

/**
 * Moves `date` by whole months and lands on the anchor day of the target month. The day is
 * taken from the anchor, not from `date`, so a clamped Feb 29 goes back to Mar 31.
 */
export function addMonthsAnchored(date: LocalDate, months: number, anchorDay: number): LocalDate {
  const { year, month } = parseLocalDate(date);
  const monthIndex = year * 12 + (month - 1) + months;
  return anchoredDate(Math.floor(monthIndex / 12), (monthIndex % 12 + 12) % 12 + 1, anchorDay);
}
