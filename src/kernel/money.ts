// Money has two shapes: decimals (prices, rates, quantities) and bigint minor units (settled
// amounts). This file owns the only place where a decimal becomes a settled amount (`toMinor`).
import { Decimal } from 'decimal.js';
import { AppError } from './errors.js';

/**
 * Decimal constructor used by all billing code. The library default keeps 20 significant digits,
 * which silently rounds large quantity × tiny-rate products; 60 digits keeps every intermediate
 * exact for any realistic invoice, so the single rounding in `toMinor` is the only one.
 * The high toExp bounds stop `toString()` from ever switching to exponent notation.
 */
export const Dec = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -100,
  toExpPos: 100,
});
export type Dec = Decimal;

export type MoneyErrorCode =
  | 'INVALID_DECIMAL'
  | 'INVALID_CURRENCY'
  | 'TOO_MANY_DECIMALS'
  | 'INVALID_ALLOCATION'
  | 'AMOUNT_TOO_LARGE';

/** Bad money input is always the caller's mistake, hence BAD_REQUEST; `reason` is the detail. */
export class MoneyError extends AppError {
  constructor(
    readonly reason: MoneyErrorCode,
    message: string,
  ) {
    super('BAD_REQUEST', message);
    this.name = 'MoneyError';
  }
}

/** ISO 4217 currency code, upper case. */
export type CurrencyCode = string;

// Only currencies whose minor unit is not 2 are listed; everything else defaults to 2.
const NON_DEFAULT_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0,
  UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};
const DEFAULT_EXPONENT = 2;
const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** Number of minor-unit digits of a currency (EUR 2, JPY 0, KWD 3). */
export function currencyExponent(currency: CurrencyCode): number {
  if (!CURRENCY_PATTERN.test(currency)) {
    throw new MoneyError('INVALID_CURRENCY', `currency must be three upper-case letters, got "${currency}"`);
  }
  return NON_DEFAULT_EXPONENTS[currency] ?? DEFAULT_EXPONENT;
}

// 10^exponent per currency exponent, made once (decimals are immutable, so they can be shared)
const MINOR_SCALES = new Map<number, Decimal>();

function minorScale(currency: CurrencyCode): Decimal {
  const exponent = currencyExponent(currency);
  let scale = MINOR_SCALES.get(exponent);
  if (!scale) {
    scale = new Dec(10).pow(exponent);
    MINOR_SCALES.set(exponent, scale);
  }
  return scale;
}

/** Builds a billing decimal. Deliberately no `number` overload: floats never enter money. */
export function decimal(value: string | bigint | Decimal): Decimal {
  if (typeof value === 'string') return parseDecimal(value);
  return new Dec(value);
}

const DECIMAL_PATTERN = /^-?\d+(\.\d+)?$/;

/**
 * Strict decimal parser for wire values: digits with an optional fraction and sign.
 * Rejects JSON numbers, exponents ("1e3"), blanks, "+1", ".5", "5." and surrounding spaces,
 * because each of those has bitten billing systems with silently different values.
 */
export function parseDecimal(text: unknown): Decimal {
  if (typeof text !== 'string') {
    throw new MoneyError('INVALID_DECIMAL', `decimal must be a string, got ${typeof text}`);
  }
  if (!DECIMAL_PATTERN.test(text)) {
    throw new MoneyError('INVALID_DECIMAL', `"${text}" is not a plain decimal string`);
  }
  return new Dec(text);
}

/**
 * A decimal string times a whole count (an add-on's instances), exact, written with as many
 * decimals as it had ("12.25" x 2 = "24.50"). The count enters as a bigint, never as a float.
 */
export function timesCount(text: string, count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new MoneyError('INVALID_DECIMAL', `count must be a whole number >= 0, got ${count}`);
  if (count === 1) return text;
  // the written decimals, not Decimal's significant ones: "12.50" keeps two
  const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  return parseDecimal(text).times(decimal(BigInt(count))).toFixed(decimals);
}

/** Parses a settled amount ("49.00") into minor units; more digits than the currency has is an error. */
export function parseAmountMinor(text: unknown, currency: CurrencyCode): bigint {
  const value = parseDecimal(text);
  const exponent = currencyExponent(currency);
  if (value.decimalPlaces() > exponent) {
    throw new MoneyError('TOO_MANY_DECIMALS', `"${String(text)}" has more than ${exponent} decimals for ${currency}`);
  }
  return storableMinor(BigInt(value.times(minorScale(currency)).toString()));
}

/**
 * THE rounding point: major-unit decimal -> integer minor units, half away from zero
 * (decimal.js ROUND_HALF_UP is symmetric: 0.005 -> 0.01 and -0.005 -> -0.01), so a credit
 * mirrors exactly the charge it reverses.
 */
export function toMinor(amount: Decimal, currency: CurrencyCode): bigint {
  const scaled = new Dec(amount).times(minorScale(currency));
  return storableMinor(BigInt(scaled.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toString()));
}

/** Amounts are stored as PostgreSQL bigint minor units. */
const MAX_AMOUNT_MINOR = 9_223_372_036_854_775_807n;

/**
 * The amount itself, or a MoneyError when it is beyond what can be stored (absurd prices or usage).
 * Thrown while an invoice is computed, before anything is written: the billing run records it
 * against that subscription alone, and a preview answers it.
 */
function storableMinor(amountMinor: bigint): bigint {
  if (amountMinor > MAX_AMOUNT_MINOR || amountMinor < -MAX_AMOUNT_MINOR) {
    throw new MoneyError('AMOUNT_TOO_LARGE', `an amount of ${amountMinor} minor units exceeds the largest amount that can be stored (${MAX_AMOUNT_MINOR})`);
  }
  return amountMinor;
}

/**
 * Rounds several parts of one amount so that the parts sum exactly to `toMinor(Σ parts)`
 * (cumulative rounding: each part is the difference of two rounded running sums). Used for
 * display sub-lines such as pricing tiers, which must add up to their line.
 */
export function toMinorParts(parts: readonly Decimal[], currency: CurrencyCode): bigint[] {
  let running = new Dec(0);
  let previousMinor = 0n;
  return parts.map((part) => {
    running = running.plus(part);
    const runningMinor = toMinor(running, currency);
    const partMinor = runningMinor - previousMinor;
    previousMinor = runningMinor;
    return partMinor;
  });
}

/** Exact conversion back to a major-unit decimal (no rounding involved). */
export function minorToDecimal(amountMinor: bigint, currency: CurrencyCode): Decimal {
  return new Dec(amountMinor.toString()).div(minorScale(currency));
}

/** "49.00", "-3.50", "100" (JPY), "1.250" (KWD): always exactly the currency's digits. */
export function formatMinor(amountMinor: bigint, currency: CurrencyCode): string {
  const exponent = currencyExponent(currency);
  const negative = amountMinor < 0n;
  const digits = (negative ? -amountMinor : amountMinor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${fraction}` : ''}`;
}

/**
 * Splits `totalMinor` across non-negative weights so the parts sum exactly to the total
 * (largest remainder method). Each part is floor(total × w / W) plus at most one unit; the
 * leftover units go to the largest remainders, ties to the earlier index, so the result is
 * deterministic. A negative total is split as its absolute value and negated.
 */
export function allocateMinor(totalMinor: bigint, weights: readonly bigint[]): bigint[] {
  if (weights.some((weight) => weight < 0n)) {
    throw new MoneyError('INVALID_ALLOCATION', 'allocation weights must not be negative');
  }
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0n);
  if (totalMinor === 0n) return weights.map(() => 0n);
  if (weightSum === 0n) {
    throw new MoneyError('INVALID_ALLOCATION', 'cannot allocate a non-zero amount over zero weights');
  }
  const sign = totalMinor < 0n ? -1n : 1n;
  const absTotal = totalMinor * sign;
  const parts = weights.map((weight) => (absTotal * weight) / weightSum);
  const remainders = weights.map((weight, index) => ({ index, remainder: (absTotal * weight) % weightSum }));
  let leftover = absTotal - parts.reduce((sum, part) => sum + part, 0n);
  remainders.sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const { index } of remainders) {
    if (leftover === 0n) break;
    parts[index] = (parts[index] ?? 0n) + 1n;
    leftover -= 1n;
  }
  return parts.map((part) => part * sign);
}

/** Sum of bigint amounts (kept here so callers never reach for `number`). */
export function sumMinor(amountsMinor: readonly bigint[]): bigint {
  return storableMinor(amountsMinor.reduce((sum, amount) => sum + amount, 0n));
}

export function maxMinor(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function minMinor(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * JSON text of a value holding bigints (minor-unit amounts, counters), each written as a decimal
 * string: `JSON.stringify` refuses bigints. The multi-row statements' parameters, outbox rows and
 * content fingerprints are all written with it.
 */
export function jsonWithBigints(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? item.toString() : item));
}
