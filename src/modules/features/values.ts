import { badRequest } from '../../kernel/errors.js';
import { parseDecimal } from '../../kernel/money.js';

export const FEATURE_TYPES = ['BOOLEAN', 'METERED'] as const;
export type FeatureTypeName = (typeof FEATURE_TYPES)[number];
export type FeatureType = { type: 'BOOLEAN' } | { type: 'METERED'; metric_id: string };

export const FEATURE_STATUSES = ['ACTIVE', 'DISABLED', 'ARCHIVED'] as const;
export type FeatureStatus = (typeof FEATURE_STATUSES)[number];

export const RESET_PERIOD_TYPES = ['BILLING_CYCLE', 'CALENDAR', 'FIXED_WINDOW', 'SLIDING_WINDOW', 'NEVER'] as const;
export const CALENDAR_UNITS = ['HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

/** When a metered entitlement's consumption starts again from zero. */
export type ResetPeriod =
  | { type: 'BILLING_CYCLE' }
  | { type: 'NEVER' }
  | { type: 'CALENDAR' | 'FIXED_WINDOW' | 'SLIDING_WINDOW'; unit: CalendarUnit; interval: number };

/**
 * What a metered check answers once usage reached the limit: BLOCK refuses (allowed false),
 * ALLOW_AND_BILL allows and the usage over the limit is billed as usage. Unset means BLOCK.
 */
export const OVERAGE_POLICIES = ['BLOCK', 'ALLOW_AND_BILL'] as const;
export type OveragePolicy = (typeof OVERAGE_POLICIES)[number];

export type EntitlementValue =
  | { type: 'BOOLEAN'; enabled: boolean }
  /** `limit` is a decimal string; null means unlimited. `overage_policy` is stored only when set. */
  | { type: 'METERED'; enabled: boolean; limit: string | null; reset_period: ResetPeriod; overage_policy?: OveragePolicy };

/** Lower-case letters, digits, `-` and `_`, starting with a letter or digit, at most 128 characters. */
const FEATURE_CODE = /^[a-z0-9][a-z0-9_-]{0,127}$/;

type Input = Record<string, unknown>;

function isObject(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rejectUnknown(input: Input, known: string[], path: string, what: string): void {
  for (const field of Object.keys(input)) {
    if (!known.includes(field)) throw badRequest(`${path}.${field} is not a field of ${what}`);
  }
}

export function parseFeatureCode(value: unknown): string {
  if (typeof value !== 'string' || !FEATURE_CODE.test(value)) {
    throw badRequest('code must be 1 to 128 lower-case letters, digits, - or _, starting with a letter or digit');
  }
  return value;
}

export function parseFeatureType(raw: unknown, path = 'feature_type'): FeatureType {
  if (!isObject(raw)) throw badRequest(`${path} must be an object {type} or {type, metric_id}`);
  if (raw.type === 'BOOLEAN') {
    rejectUnknown(raw, ['type'], path, 'a BOOLEAN feature type');
    return { type: 'BOOLEAN' };
  }
  if (raw.type === 'METERED') {
    rejectUnknown(raw, ['type', 'metric_id'], path, 'a METERED feature type');
    if (typeof raw.metric_id !== 'string' || raw.metric_id === '') throw badRequest(`${path}.metric_id is required for a METERED feature`);
    return { type: 'METERED', metric_id: raw.metric_id };
  }
  throw badRequest(`${path}.type must be one of ${FEATURE_TYPES.join(', ')}`);
}

export function parseResetPeriod(raw: unknown, path: string): ResetPeriod {
  if (!isObject(raw)) throw badRequest(`${path} must be an object {type, unit?, interval?}`);
  const type = raw.type;
  if (type === 'BILLING_CYCLE' || type === 'NEVER') {
    rejectUnknown(raw, ['type'], path, `a ${type} reset period`);
    return { type };
  }
  if (type === 'CALENDAR' || type === 'FIXED_WINDOW' || type === 'SLIDING_WINDOW') {
    rejectUnknown(raw, ['type', 'unit', 'interval'], path, `a ${type} reset period`);
    if (typeof raw.unit !== 'string' || !CALENDAR_UNITS.includes(raw.unit as CalendarUnit)) {
      throw badRequest(`${path}.unit must be one of ${CALENDAR_UNITS.join(', ')}`);
    }
    // An interval of 0 would reset continuously; at least one unit is required.
    if (typeof raw.interval !== 'number' || !Number.isInteger(raw.interval) || raw.interval < 1 || raw.interval > 10_000) {
      throw badRequest(`${path}.interval must be an integer between 1 and 10000`);
    }
    return { type, unit: raw.unit as CalendarUnit, interval: raw.interval };
  }
  throw badRequest(`${path}.type must be one of ${RESET_PERIOD_TYPES.join(', ')}`);
}

/**
 * Validates an entitlement value against the feature's type. BOOLEAN: `{enabled}`. METERED:
 * `{enabled (default true), limit (decimal string >= 0, null = unlimited), reset_period
 * (default NEVER), overage_policy (BLOCK or ALLOW_AND_BILL; unset = BLOCK)}`. `type` may be
 * omitted; when given it must be the feature's type.
 */
export function parseEntitlementValue(featureType: FeatureTypeName, raw: unknown, path = 'value'): EntitlementValue {
  if (!isObject(raw)) throw badRequest(`${path} must be an object`);
  if (raw.type !== undefined && raw.type !== featureType) throw badRequest(`${path}.type must be ${featureType}: the feature is ${featureType}`);
  if (featureType === 'BOOLEAN') {
    rejectUnknown(raw, ['type', 'enabled'], path, 'a BOOLEAN entitlement value');
    if (typeof raw.enabled !== 'boolean') throw badRequest(`${path}.enabled is required and must be a boolean`);
    return { type: 'BOOLEAN', enabled: raw.enabled };
  }
  rejectUnknown(raw, ['type', 'enabled', 'limit', 'reset_period', 'overage_policy'], path, 'a METERED entitlement value');
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') throw badRequest(`${path}.enabled must be a boolean`);
  let limit: string | null = null;
  if (raw.limit !== undefined && raw.limit !== null) {
    if (typeof raw.limit !== 'string') throw badRequest(`${path}.limit must be a decimal string such as "1000" (or null for unlimited)`);
    let parsed;
    try {
      parsed = parseDecimal(raw.limit);
    } catch {
      throw badRequest(`${path}.limit must be a decimal string such as "1000"; got "${raw.limit}"`);
    }
    if (parsed.isNegative()) throw badRequest(`${path}.limit must not be negative`);
    limit = parsed.toString();
  }
  const resetPeriod = raw.reset_period === undefined || raw.reset_period === null ? { type: 'NEVER' as const } : parseResetPeriod(raw.reset_period, `${path}.reset_period`);
  if (raw.overage_policy !== undefined && raw.overage_policy !== null && !OVERAGE_POLICIES.includes(raw.overage_policy as OveragePolicy)) {
    throw badRequest(`${path}.overage_policy must be BLOCK or ALLOW_AND_BILL (or left out for BLOCK); got ${JSON.stringify(raw.overage_policy)}`);
  }
  const overage = typeof raw.overage_policy === 'string' ? { overage_policy: raw.overage_policy as OveragePolicy } : {};
  return { type: 'METERED', enabled: raw.enabled ?? true, limit, reset_period: resetPeriod, ...overage };
}
