import { badRequest } from '../../kernel/errors.js';

export const FEE_TYPES = ['RATE', 'SLOT', 'CAPACITY', 'USAGE', 'EXTRA_RECURRING', 'ONE_TIME'] as const;
export type FeeType = (typeof FEE_TYPES)[number];
/** How a usage fee is priced: a product fixes the model, its plan fees give the prices. */
export const USAGE_MODELS = ['PER_UNIT', 'TIERED', 'VOLUME', 'PACKAGE', 'MATRIX'] as const;
export type UsageModel = (typeof USAGE_MODELS)[number];

/**
 * A product's fee structure: its fee type and what that binds (metric, slot unit, usage model,
 * billing type), tagged by `type` as in the reference. It carries no price: plan fees
 * (plans/fees.ts) price it, and must agree with it.
 */
export type FeeStructure =
  | { type: 'RATE' }
  | { type: 'SLOT'; slot_unit_name: string; upgrade_policy: 'PRORATED'; downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' }
  | { type: 'CAPACITY'; metric_id: string }
  | { type: 'USAGE'; metric_id: string; model: UsageModel }
  | { type: 'EXTRA_RECURRING'; billing_type: 'ADVANCE' | 'ARREARS' }
  | { type: 'ONE_TIME' };

type Input = Record<string, unknown>;

function requireString(input: Input, field: string, path: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${path}.${field} is required and must be a non-empty string`);
  return value;
}

function requireEnum<T extends string>(input: Input, field: string, allowed: readonly T[], path: string, fallback?: T): T {
  const value = input[field] ?? fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw badRequest(`${path}.${field} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function rejectUnknown(input: Input, known: string[], path: string): void {
  for (const field of Object.keys(input)) {
    if (!known.includes(field)) throw badRequest(`${path}.${field} is not a field of a ${String(input.type)} fee structure`);
  }
}

/**
 * Validates a fee structure for its type and returns it normalised (defaults filled, nothing
 * extra kept). `path` names the field in error messages.
 */
export function parseFeeStructure(raw: unknown, path = 'fee_structure'): FeeStructure {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest(`${path} must be an object`);
  const input = raw as Input;
  const type = requireEnum(input, 'type', FEE_TYPES, path);
  switch (type) {
    case 'RATE':
    case 'ONE_TIME':
      rejectUnknown(input, ['type'], path);
      return { type };
    case 'SLOT':
      rejectUnknown(input, ['type', 'slot_unit_name', 'upgrade_policy', 'downgrade_policy'], path);
      return {
        type,
        slot_unit_name: requireString(input, 'slot_unit_name', path),
        upgrade_policy: requireEnum(input, 'upgrade_policy', ['PRORATED'] as const, path, 'PRORATED'),
        downgrade_policy: requireEnum(input, 'downgrade_policy', ['REMOVE_AT_END_OF_PERIOD'] as const, path, 'REMOVE_AT_END_OF_PERIOD'),
      };
    case 'CAPACITY':
      rejectUnknown(input, ['type', 'metric_id'], path);
      return { type, metric_id: requireString(input, 'metric_id', path) };
    case 'USAGE':
      rejectUnknown(input, ['type', 'metric_id', 'model'], path);
      return { type, metric_id: requireString(input, 'metric_id', path), model: requireEnum(input, 'model', USAGE_MODELS, path) };
    case 'EXTRA_RECURRING':
      rejectUnknown(input, ['type', 'billing_type'], path);
      return { type, billing_type: requireEnum(input, 'billing_type', ['ADVANCE', 'ARREARS'] as const, path) };
  }
}

/** The metric a fee structure is bound to, if any: it must exist in the tenant. */
export function metricIdOf(fee: FeeStructure): string | undefined {
  return fee.type === 'CAPACITY' || fee.type === 'USAGE' ? fee.metric_id : undefined;
}
