// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

const FAMILY_ID = 'pf_01KKRNW4G00G4BFSVS7WNF9KJ6';
const AT = '2026-03-15T12:00:00.000Z';
const SSO = { id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY', code: 'sso', name: 'Single sign-on', product: { id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', name: 'Platform fee' } };
const API_CALLS = { id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9', code: 'api-calls', name: 'API calls', product: null };
const API_METRIC = 'bm_01KKRNW4G0H1V3T9GFT3902B3Z';

export const createPlanExample = {
  name: 'Pro',
  description: 'For growing teams',
  product_family_id: FAMILY_ID,
  currency: 'EUR',
  status: 'ACTIVE' as const,
  billing: { net_terms: 15 },
  trial: { duration_days: 14, is_free: true },
  components: [
    { name: 'Platform', product_id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', fee: { rates: [{ term: 'MONTHLY' as const, price: '49.00' }, { term: 'ANNUAL' as const, price: '490.00' }] } },
    { name: 'Seats', product_id: 'prd_01KKRNW4G0RG9V3DJMAXH55520', fee: { rates: [{ price: '10.00' }], minimum_count: 1, quota: 50 } },
    {
      name: 'API calls',
      product_id: 'prd_01KKRNW4G0M5T7125TCS8P5KAX',
      fee: { pricing: { type: 'TIERED' as const, tiers: [{ first_unit: 0, rate: '0' }, { first_unit: 10000, rate: '0.0015' }] } },
    },
  ],
  entitlements: [
    { feature_id: SSO.id, value: { type: 'BOOLEAN' as const, enabled: true } },
    { feature_id: API_CALLS.id, value: { type: 'METERED' as const, limit: '100000', reset_period: { type: 'BILLING_CYCLE' as const } } },
  ],
};

export const planExample = {
  id: 'plan_01KKRNW4G0RR7S0F96CFXEQTY4',
  name: 'Pro',
  description: 'For growing teams',
  currency: 'EUR',
  plan_type: 'STANDARD' as const,
  status: 'ACTIVE' as const,
  version: 1,
  version_id: 'plv_01KKRNW4G0CRJDYQRD78DQ5CAR',
  is_draft: false,
  net_terms: 15,
  billing_cycles: null,
  period_start_day: null,
  tax_inclusive: false,
  self_service_rank: null,
  custom_properties: {},
  created_at: AT,
  product_family: { id: FAMILY_ID, name: 'Cloud Platform' },
  price_components: [
    {
      id: 'price_01KKRNW4G0DA52HH5ME6XXGD15',
      name: 'Platform',
      product_id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G',
      fee: { type: 'RATE' as const, rates: [{ term: 'MONTHLY' as const, price: '49.00' }, { term: 'ANNUAL' as const, price: '490.00' }] },
    },
    {
      id: 'price_01KKRNW4G0H1W3ZASPF4R3FT7K',
      name: 'Seats',
      product_id: 'prd_01KKRNW4G0RG9V3DJMAXH55520',
      fee: {
        type: 'SLOT' as const,
        rates: [{ term: 'MONTHLY' as const, price: '10.00' }],
        slot_unit_name: 'seat',
        minimum_count: 1,
        quota: 50,
        upgrade_policy: 'PRORATED' as const,
        downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' as const,
      },
    },
    {
      id: 'price_01KKRNW4G0P1HAPYM6YZ035784',
      name: 'API calls',
      product_id: 'prd_01KKRNW4G0M5T7125TCS8P5KAX',
      fee: {
        type: 'USAGE' as const,
        metric_id: API_METRIC,
        cadence: 'MONTHLY' as const,
        pricing: {
          type: 'TIERED' as const,
          tiers: [
            { first_unit: 0, rate: '0', flat_fee: null, flat_cap: null },
            { first_unit: 10000, rate: '0.0015', flat_fee: null, flat_cap: null },
          ],
          block_size: null,
        },
      },
    },
  ],
  available_parameters: {
    billing_periods: { price_01KKRNW4G0DA52HH5ME6XXGD15: ['MONTHLY' as const, 'ANNUAL' as const] },
    capacity_thresholds: {},
    slot_components: ['price_01KKRNW4G0H1W3ZASPF4R3FT7K'],
  },
  entitlements: [
    { id: 'ent_01KKRNW4G08JPPD97A3DSW8V32', feature_id: SSO.id, value: { type: 'BOOLEAN' as const, enabled: true }, created_at: AT, updated_at: AT },
    {
      id: 'ent_01KKRNW4G0RJFDGBD15WYDMGFQ',
      feature_id: API_CALLS.id,
      value: { type: 'METERED' as const, enabled: true, limit: '100000', reset_period: { type: 'BILLING_CYCLE' as const } },
      created_at: AT,
      updated_at: AT,
    },
  ],
  add_ons: [{ add_on_id: 'add_01KKRNW4G0S8TPBYB5G0ZBVS7Y', price_id: null, max_instances: 5, self_serviceable: true }],
  minimum_commitment: null,
  usage_thresholds: [] as { amount: string; recurring: boolean; threshold_display_name: string | null }[],
  trial: { duration_days: 14, is_free: true, trialing_plan_id: null },
};

export const replacePlanExample = {
  name: 'Pro',
  description: 'For growing teams',
  currency: 'EUR',
  status: 'ACTIVE' as const,
  billing: { net_terms: 15 },
  components: [
    { name: 'Platform', product_id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', fee: { rates: [{ term: 'MONTHLY' as const, price: '59.00' }, { term: 'ANNUAL' as const, price: '590.00' }] } },
    { name: 'Seats', product_id: 'prd_01KKRNW4G0RG9V3DJMAXH55520', fee: { rates: [{ price: '12.00' }], minimum_count: 1, quota: 50 } },
  ],
  minimum_commitment: { amount: '100.00' },
  usage_thresholds: [{ amount: '100.00' }, { amount: '500.00', recurring: true, threshold_display_name: 'Every 500' }],
};

/** Version 2 as written by `replacePlanExample` (entitlements and add-ons carried over). */
export const replacedPlanExample = {
  ...planExample,
  version: 2,
  version_id: 'plv_01KKSQ3D7M2B8N4X6TVWJ0C5RE',
  trial: null,
  minimum_commitment: { amount: '100.00', scope: {} },
  usage_thresholds: [{ amount: '100.00', recurring: false, threshold_display_name: null }, { amount: '500.00', recurring: true, threshold_display_name: 'Every 500' }],
  entitlements: planExample.entitlements.map((e, i) => ({ ...e, id: ['ent_01KKSQ3D7MZ3H8C1Y6NAVKP0QE', 'ent_01KKSQ3D7M5WB9RT2GXJ4ED7FS'][i]!, created_at: '2026-04-01T08:30:00.000Z', updated_at: '2026-04-01T08:30:00.000Z' })),
  price_components: [
    {
      id: 'price_01KKSQ3D7MA4N6PW2Y8ZB0R3TC',
      name: 'Platform',
      product_id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G',
      fee: { type: 'RATE' as const, rates: [{ term: 'MONTHLY' as const, price: '59.00' }, { term: 'ANNUAL' as const, price: '590.00' }] },
    },
    {
      id: 'price_01KKSQ3D7MRE1K5JH9Q2XW7V4D',
      name: 'Seats',
      product_id: 'prd_01KKRNW4G0RG9V3DJMAXH55520',
      fee: {
        type: 'SLOT' as const,
        rates: [{ term: 'MONTHLY' as const, price: '12.00' }],
        slot_unit_name: 'seat',
        minimum_count: 1,
        quota: 50,
        upgrade_policy: 'PRORATED' as const,
        downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' as const,
      },
    },
  ],
  available_parameters: {
    billing_periods: { price_01KKSQ3D7MA4N6PW2Y8ZB0R3TC: ['MONTHLY' as const, 'ANNUAL' as const] },
    capacity_thresholds: {},
    slot_components: ['price_01KKSQ3D7MRE1K5JH9Q2XW7V4D'],
  },
};

export const versionExamples = [
  { id: replacedPlanExample.version_id, version: 2, is_draft: false, currency: 'EUR', created_at: '2026-04-01T08:30:00.000Z', published_at: '2026-04-01T08:30:00.000Z' },
  { id: planExample.version_id, version: 1, is_draft: false, currency: 'EUR', created_at: AT, published_at: AT },
];

/** What the entitlements of a plan version, an add-on or a product's features list. */
export const resolvedEntitlementExamples = [
  { feature: SSO, value: { type: 'BOOLEAN' as const, enabled: true } },
  { feature: API_CALLS, value: { type: 'METERED' as const, enabled: true, limit: '100000', metric_id: API_METRIC, reset_period: { type: 'BILLING_CYCLE' as const } } },
];
