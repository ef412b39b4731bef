import { Type } from 'typebox';
import { iso, Nullable, Name } from '../../http/schemas.js';
import { featureRefOf } from './lookup.js';
import type { FeatureRow } from './repository.js';
import { CALENDAR_UNITS, FEATURE_STATUSES, FEATURE_TYPES, RESET_PERIOD_TYPES } from './values.js';

export const ResetPeriodSchema = Type.Object(
  {
    type: Type.Enum(RESET_PERIOD_TYPES),
    unit: Type.Optional(Type.Enum(CALENDAR_UNITS)),
    interval: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { description: 'BILLING_CYCLE {}, NEVER {}, CALENDAR | FIXED_WINDOW | SLIDING_WINDOW {unit, interval}' },
);

/** Tagged by `type` (BOOLEAN or METERED); checked against the feature's type in values.ts. */
export const EntitlementValueSchema = Type.Object(
  {
    type: Type.Optional(Type.Enum(FEATURE_TYPES)),
    enabled: Type.Optional(Type.Boolean({ description: 'BOOLEAN: required. METERED: kill switch, default true' })),
    limit: Type.Optional(Nullable(Type.String({ description: 'METERED: decimal cap on usage; null = unlimited' }))),
    reset_period: Type.Optional(Nullable(ResetPeriodSchema)),
    overage_policy: Type.Optional(Nullable(Type.Enum(['BLOCK', 'ALLOW_AND_BILL'], { description: 'METERED: at the limit, BLOCK refuses and ALLOW_AND_BILL allows and bills the overage; unset = BLOCK' }))),
  },
  { description: 'BOOLEAN {enabled}, METERED {enabled, limit, reset_period, overage_policy}' },
);

export const EntitlementSchema = Type.Object({
  id: Type.String(),
  feature_id: Type.String(),
  value: EntitlementValueSchema,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const FeatureTypeSchema = Type.Object(
  { type: Type.Enum(FEATURE_TYPES), metric_id: Type.Optional(Type.String()) },
  { description: 'BOOLEAN {} or METERED {metric_id}' },
);

export const Feature = Type.Object({
  id: Type.String(),
  code: Type.String({ description: 'Unique key used to reference this feature in your code. Cannot be changed after creation.' }),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  status: Type.Enum(FEATURE_STATUSES),
  feature_type: FeatureTypeSchema,
  entitlement: Type.Optional(Nullable(EntitlementSchema)),
  product: Type.Optional(Nullable(Type.Object({ id: Type.String(), name: Type.String() }))),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreateFeatureRequest = Type.Object({
  code: Type.String({ description: '1 to 128 lower-case letters, digits, - or _; unique per tenant; immutable' }),
  name: Name(),
  description: Type.Optional(Nullable(Type.String())),
  feature_type: FeatureTypeSchema,
  product_id: Type.Optional(Nullable(Type.String())),
  entitlement: Type.Optional(Nullable(Type.Object({ value: EntitlementValueSchema }, { description: 'feature-level default entitlement' }))),
});

/** Spec section 4: only name and description; code, feature_type and product are refused as immutable. */
export const UpdateFeatureRequest = Type.Object({
  name: Type.Optional(Name()),
  description: Type.Optional(Nullable(Type.String())),
});

export const SetEntitlementRequest = Type.Object({ value: EntitlementValueSchema });

export function featureToWire(row: FeatureRow) {
  const { feature_type, default_entitlement: entitlement, product } = featureRefOf(row);
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    description: row.description,
    status: row.status,
    feature_type,
    entitlement: entitlement ? { id: entitlement.id, feature_id: row.id, value: entitlement.value, created_at: iso(entitlement.created_at), updated_at: iso(entitlement.updated_at) } : null,
    product,
    created_at: iso(row.created_at),
  };
}
