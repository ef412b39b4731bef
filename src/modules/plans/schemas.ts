import { Type } from 'typebox';
import { MAX_NET_TERMS_DAYS, MAX_TRIAL_DAYS, Name, Nullable } from '../../http/schemas.js';
import { EntitlementSchema, EntitlementValueSchema, ResetPeriodSchema } from '../features/index.js';
import { entitlementToWire } from './entitlements.js';
import { FEE_TYPES, USAGE_MODELS } from '../catalog/index.js';
import { availableParameters, BILLING_TERMS } from './fees.js';
import type { VersionRow } from './repository.js';
import type { PlanView } from './views.js';
import { UsageThresholdsSchema } from './thresholds.js';
import { CustomPropertiesInput, CustomPropertiesOutput } from '../custom-properties/index.js';

const PLAN_TYPES = ['STANDARD', 'FREE', 'CUSTOM'] as const;
const PLAN_STATUSES = ['DRAFT', 'ACTIVE', 'INACTIVE', 'ARCHIVED'] as const;
// "decimal" in the description is what lets a JSON number here be answered "send a decimal string" (http/validation.ts).
const Decimal = (description?: string) => Type.String({ description: description ? `decimal string: ${description}` : 'decimal string, e.g. "49.00"' });
const NullableDecimal = Nullable(Decimal());

const TermRate = Type.Object({ term: Type.Optional(Type.Enum(BILLING_TERMS, { description: 'default MONTHLY' })), price: Decimal() });
const TierRow = Type.Object({ first_unit: Type.Integer({ minimum: 0 }), rate: Decimal(), flat_fee: Type.Optional(NullableDecimal), flat_cap: Type.Optional(NullableDecimal) });
const MatrixDimension = Type.Object({ key: Type.String(), value: Type.String() });

/** Usage pricing, tagged by `type`; per-model rules are checked in fees.ts. */
export const UsagePricingSchema = Type.Object(
  {
    type: Type.Optional(Type.Enum(USAGE_MODELS)),
    rate: Type.Optional(Decimal()),
    tiers: Type.Optional(Type.Array(TierRow)),
    block_size: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    rounding: Type.Optional(Type.Enum(['UP', 'DOWN'], { description: 'PACKAGE: how a partial block counts (default UP)' })),
    rates: Type.Optional(Type.Array(Type.Object({ dimension1: MatrixDimension, dimension2: Type.Optional(Nullable(MatrixDimension)), per_unit_price: Decimal() }))),
  },
  { description: 'PER_UNIT {rate}, TIERED|VOLUME {tiers[{first_unit, rate, flat_fee, flat_cap}], block_size}, PACKAGE {block_size, rate, rounding}, MATRIX {rates[{dimension1, dimension2, per_unit_price}]}' },
);

/** A component's fee, tagged by `type` (taken from the product when omitted). */
export const FeeSchema = Type.Object(
  {
    type: Type.Optional(Type.Enum(FEE_TYPES)),
    rates: Type.Optional(Type.Array(TermRate)),
    slot_unit_name: Type.Optional(Type.String()),
    minimum_count: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    quota: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    upgrade_policy: Type.Optional(Type.Literal('PRORATED')),
    downgrade_policy: Type.Optional(Type.Literal('REMOVE_AT_END_OF_PERIOD')),
    metric_id: Type.Optional(Type.String()),
    thresholds: Type.Optional(Type.Array(Type.Object({ included_amount: Type.Integer({ minimum: 0 }), price: Decimal(), per_unit_overage: Decimal() }))),
    cadence: Type.Optional(Type.Enum(BILLING_TERMS)),
    pricing: Type.Optional(UsagePricingSchema),
    unit_price: Type.Optional(Decimal()),
    quantity: Type.Optional(Type.Integer({ minimum: 0 })),
    billing_type: Type.Optional(Type.Enum(['ADVANCE', 'ARREARS'])),
  },
  {
    description:
      'RATE {rates}, SLOT {rates, slot_unit_name, minimum_count, quota, upgrade_policy, downgrade_policy}, CAPACITY {metric_id, thresholds, cadence}, ' +
      'USAGE {metric_id, pricing, cadence}, EXTRA_RECURRING {unit_price, quantity, billing_type, cadence}, ONE_TIME {unit_price, quantity}. Prices are decimal strings.',
  },
);

const ComponentInput = Type.Object({ name: Type.String(), product_id: Type.String(), fee: FeeSchema });

export const EntitlementInputSchema = Type.Object({ feature_id: Type.String(), value: EntitlementValueSchema });
export const Entitlement = EntitlementSchema;
export const ResolvedEntitlementList = Type.Object({
  data: Type.Array(
    Type.Object({
      feature: Type.Object({ id: Type.String(), code: Type.String(), name: Type.String(), product: Nullable(Type.Object({ id: Type.String(), name: Type.String() })) }),
      value: Type.Object({
        type: Type.Optional(Type.Enum(['BOOLEAN', 'METERED'])),
        enabled: Type.Boolean(),
        limit: Type.Optional(NullableDecimal),
        metric_id: Type.Optional(Nullable(Type.String())),
        reset_period: Type.Optional(ResetPeriodSchema),
      }),
    }),
  ),
});

const PlanAddOnInput = Type.Object({
  add_on_id: Type.String(),
  price_id: Type.Optional(Nullable(Type.String())),
  max_instances: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  self_serviceable: Type.Optional(Nullable(Type.Boolean())),
});
const Billing = Type.Object({
  billing_cycles: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000 }))),
  net_terms: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_NET_TERMS_DAYS })),
  period_start_day: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 31 }))),
});
const Trial = Type.Object({
  duration_days: Type.Integer({ minimum: 0, maximum: MAX_TRIAL_DAYS }),
  is_free: Type.Boolean(),
  trialing_plan_id: Type.Optional(Nullable(Type.String())),
});
const MinimumCommitment = Type.Object({
  amount: Decimal('the floor of each billing-period invoice, after discounts'),
  scope: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'free-form; stored and returned as given' })),
});

const versionFields = {
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  components: Type.Array(ComponentInput),
  description: Type.Optional(Nullable(Type.String())),
  add_ons: Type.Optional(Type.Array(PlanAddOnInput)),
  billing: Type.Optional(Nullable(Billing)),
  entitlements: Type.Optional(Type.Array(EntitlementInputSchema)),
  tax_inclusive: Type.Optional(Type.Boolean({ default: false })),
  trial: Type.Optional(Nullable(Trial)),
  minimum_commitment: Type.Optional(Nullable(MinimumCommitment)),
  usage_thresholds: Type.Optional(Nullable(UsageThresholdsSchema)),
  // the plan's, not the version's: left out of a PUT, the stored values stay (checked again)
  custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
};

export const CreatePlanRequest = Type.Object({
  name: Name(),
  product_family_id: Type.String(),
  plan_type: Type.Optional(Type.Enum(PLAN_TYPES, { description: 'default STANDARD' })),
  status: Type.Optional(Type.Enum(PLAN_STATUSES, { description: 'DRAFT (default) stages version 1; ACTIVE publishes it immediately; INACTIVE and ARCHIVED publish it and put the plan in that state, not offered for new subscriptions' })),
  self_service_rank: Type.Optional(Nullable(Type.Integer())),
  ...versionFields,
});

export const ReplacePlanRequest = Type.Object({
  name: Name(),
  status: Type.Optional(Nullable(Type.Enum(PLAN_STATUSES, { description: 'DRAFT stages, ACTIVE publishes; default: DRAFT for a never-published plan, ACTIVE otherwise' }))),
  ...versionFields,
});

export const PatchPlanRequest = Type.Object(
  {
    name: Type.Optional(Nullable(Name())),
    description: Type.Optional(Nullable(Type.String())),
    self_service_rank: Type.Optional(Nullable(Type.Integer())),
    custom_properties: Type.Optional(Nullable(CustomPropertiesInput)),
  },
  { additionalProperties: false },
);

export const Plan = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  currency: Type.String(),
  plan_type: Type.Enum(PLAN_TYPES),
  status: Type.Enum(PLAN_STATUSES),
  version: Type.Integer(),
  version_id: Type.String(),
  is_draft: Type.Boolean(),
  net_terms: Type.Integer(),
  billing_cycles: Nullable(Type.Integer()),
  period_start_day: Nullable(Type.Integer()),
  tax_inclusive: Type.Boolean(),
  self_service_rank: Nullable(Type.Integer()),
  custom_properties: CustomPropertiesOutput,
  created_at: Type.String({ format: 'date-time' }),
  product_family: Type.Object({ id: Type.String(), name: Type.String() }),
  price_components: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), product_id: Type.String(), fee: FeeSchema })),
  available_parameters: Type.Object({
    billing_periods: Type.Record(Type.String(), Type.Array(Type.Enum(BILLING_TERMS))),
    capacity_thresholds: Type.Record(Type.String(), Type.Array(Type.Integer())),
    slot_components: Type.Array(Type.String()),
  }),
  entitlements: Type.Array(Entitlement),
  add_ons: Type.Array(PlanAddOnInput),
  minimum_commitment: Nullable(MinimumCommitment),
  usage_thresholds: UsageThresholdsSchema,
  trial: Nullable(Trial),
});

export const PlanVersionSummary = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  is_draft: Type.Boolean(),
  currency: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  published_at: Nullable(Type.String({ format: 'date-time' })),
});

export function planToWire(view: PlanView) {
  const { plan, version } = view;
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    currency: version.currency,
    plan_type: plan.plan_type,
    status: plan.status,
    version: version.version,
    version_id: version.id,
    is_draft: version.is_draft,
    net_terms: version.net_terms,
    billing_cycles: version.billing_cycles,
    period_start_day: version.period_start_day,
    tax_inclusive: version.tax_inclusive,
    self_service_rank: plan.self_service_rank,
    custom_properties: plan.custom_properties,
    created_at: plan.created_at.toISOString(),
    product_family: view.family,
    price_components: view.components.map((c) => ({ id: c.id, name: c.name, product_id: c.product_id, fee: c.fee })),
    available_parameters: availableParameters(view.components),
    entitlements: view.entitlements.map(entitlementToWire),
    add_ons: view.addOns.map((a) => ({ add_on_id: a.add_on_id, price_id: a.price_id, max_instances: a.max_instances, self_serviceable: a.self_serviceable })),
    minimum_commitment: version.minimum_commitment,
    usage_thresholds: version.usage_thresholds,
    trial:
      version.trial_duration_days === null
        ? null
        : { duration_days: version.trial_duration_days, is_free: version.trial_is_free, trialing_plan_id: version.trialing_plan_id },
  };
}

export function versionToWire(row: VersionRow) {
  return {
    id: row.id,
    version: row.version,
    is_draft: row.is_draft,
    currency: row.currency,
    created_at: row.created_at.toISOString(),
    published_at: row.published_at ? row.published_at.toISOString() : null,
  };
}
