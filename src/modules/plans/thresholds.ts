// Spend thresholds (progressive billing) as plan versions and subscriptions store and show them:
// the wire shape is the stored shape (docs/credits-and-alerts.md, "Spend thresholds"). Checked
// here once for both (subscriptions import this through the plans index).
import { Type } from 'typebox';
import { badRequest } from '../../kernel/errors.js';
import { currencyExponent, parseDecimal } from '../../kernel/money.js';
import { Nullable } from '../../http/schemas.js';
import { decimalString } from './fees.js';

/** One threshold: usage charges accrued in the current period at which they are invoiced at once. */
export interface UsageThreshold {
  /** Decimal string in the plan's currency, e.g. "100.00". */
  amount: string;
  /** true: a step repeated after the highest fixed amount (or from zero): "then every 500.00". */
  recurring: boolean;
  threshold_display_name: string | null;
}

/** More would be a price list, not thresholds. */
export const MAX_USAGE_THRESHOLDS = 20;

export const UsageThresholdSchema = Type.Object(
  {
    amount: Type.String({ description: 'decimal string: accrued usage charges of the period (before discount and tax) at which they are invoiced, e.g. "100.00"' }),
    recurring: Type.Optional(Type.Boolean({ description: 'default false; true: every `amount` more after the highest fixed threshold (at most one)' })),
    threshold_display_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: false },
);
export const UsageThresholdsSchema = Type.Array(UsageThresholdSchema, {
  maxItems: MAX_USAGE_THRESHOLDS,
  description: 'Spend thresholds (progressive billing): fixed amounts and at most one recurring step; [] for none',
});

/**
 * Checks a request's thresholds against the currency and returns them sorted (fixed amounts
 * ascending, then the recurring one), as they are stored. `path` names the field in errors.
 */
export function parseUsageThresholds(raw: readonly { amount: unknown; recurring?: boolean | null; threshold_display_name?: string | null }[], currency: string, path = 'usage_thresholds'): UsageThreshold[] {
  if (raw.length > MAX_USAGE_THRESHOLDS) throw badRequest(`${path} holds at most ${MAX_USAGE_THRESHOLDS} thresholds, got ${raw.length}`);
  const exponent = currencyExponent(currency);
  const out: UsageThreshold[] = [];
  raw.forEach((item, i) => {
    const field = `${path}[${i}].amount`;
    const amount = decimalString(item.amount, field);
    const value = parseDecimal(amount);
    if (value.isZero()) throw badRequest(`${field} must be above zero, e.g. "100.00"`);
    if (value.decimalPlaces() > exponent) throw badRequest(`${field} has more than ${exponent} decimals for ${currency}, e.g. "${value.toFixed(exponent)}"`);
    const recurring = item.recurring ?? false;
    if (recurring && out.some((t) => t.recurring)) throw badRequest(`${path}[${i}].recurring: at most one threshold may be recurring`);
    if (!recurring && out.some((t) => !t.recurring && parseDecimal(t.amount).equals(value))) throw badRequest(`${field} "${amount}" is already a fixed threshold of this list`);
    const name = item.threshold_display_name?.trim();
    out.push({ amount: value.toFixed(exponent), recurring, threshold_display_name: name ? name : null });
  });
  return out.sort((a, b) => (a.recurring !== b.recurring ? (a.recurring ? 1 : -1) : parseDecimal(a.amount).comparedTo(parseDecimal(b.amount))));
}
