import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc';

dayjs.extend(utc);

/**
 * Amounts arrive as decimal strings and are shown as they are (no float arithmetic on money):
 * only grouped for reading, with the currency code.
 */
export function money(amount: string | null | undefined, currency?: string | null): string {
  if (amount === null || amount === undefined) return '—';
  const [whole = '0', fraction] = amount.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${digits}${fraction ? `.${fraction}` : ''}${currency ? ` ${currency}` : ''}`;
}

/** A timestamp in UTC to the minute, as everywhere in the service (`2026-03-15 12:00 UTC`). */
export function dateTime(iso: string | null | undefined): string {
  return iso ? `${dayjs.utc(iso).format('YYYY-MM-DD HH:mm')} UTC` : '—';
}

export function date(iso: string | null | undefined): string {
  return iso ? dayjs.utc(iso).format('YYYY-MM-DD') : '—';
}

export { dayjs };
