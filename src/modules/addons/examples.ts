// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

const AT = '2026-03-15T12:00:00.000Z';
const SEATS_PRODUCT = 'prd_01KKRNW4G0RG9V3DJMAXH55520';
const PRICE_ID = 'pri_01KKRNW4G0346FJM3N06B9ZZR4';
const slotFee = {
  type: 'SLOT' as const,
  rates: [{ term: 'MONTHLY' as const, price: '8.00' }],
  slot_unit_name: 'seat',
  minimum_count: null,
  quota: null,
  upgrade_policy: 'PRORATED' as const,
  downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' as const,
};

export const createAddOnExample = {
  name: 'Extra seats pack',
  description: 'Seats beyond the plan\'s quota',
  product_id: SEATS_PRODUCT,
  price: { currency: 'EUR', fee: { type: 'SLOT' as const, rates: [{ term: 'MONTHLY' as const, price: '8.00' }] } },
  self_serviceable: true,
  max_instances_per_subscription: 5,
  entitlements: [{ feature_id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY', value: { type: 'BOOLEAN' as const, enabled: true } }],
};

export const addOnExample = {
  id: 'add_01KKRNW4G0S8TPBYB5G0ZBVS7Y',
  name: 'Extra seats pack',
  description: 'Seats beyond the plan\'s quota',
  product_id: SEATS_PRODUCT,
  price_id: PRICE_ID,
  fee_type: 'SLOT' as const,
  currency: 'EUR',
  price: { id: PRICE_ID, currency: 'EUR', fee: slotFee },
  self_serviceable: true,
  max_instances_per_subscription: 5,
  entitlements: [
    { id: 'ent_01KKRNW4G0MX6WZNWSP2T8CRAB', feature_id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY', value: { type: 'BOOLEAN' as const, enabled: true }, created_at: AT, updated_at: AT },
  ],
  created_at: AT,
  archived_at: null,
};

export const ssoEntitlementExample = {
  feature: { id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY', code: 'sso', name: 'Single sign-on', product: { id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', name: 'Platform fee' } },
  value: { type: 'BOOLEAN' as const, enabled: true },
};
