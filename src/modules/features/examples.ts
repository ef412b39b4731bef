// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

export const booleanFeatureExample = {
  id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY',
  code: 'sso',
  name: 'Single sign-on',
  description: 'SAML and OIDC sign-in',
  status: 'ACTIVE' as const,
  feature_type: { type: 'BOOLEAN' as const },
  entitlement: null,
  product: { id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', name: 'Platform fee' },
  created_at: '2026-03-15T12:00:00.000Z',
};

const meteredValueExample = { type: 'METERED' as const, enabled: true, limit: '10000', reset_period: { type: 'BILLING_CYCLE' as const } };

export const meteredFeatureExample = {
  id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9',
  code: 'api-calls',
  name: 'API calls',
  description: null,
  status: 'ACTIVE' as const,
  feature_type: { type: 'METERED' as const, metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z' },
  entitlement: {
    id: 'ent_01KKRNW4G0QC0KTHQSTBZ1D7VR',
    feature_id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9',
    value: meteredValueExample,
    created_at: '2026-03-15T12:00:00.000Z',
    updated_at: '2026-03-15T12:00:00.000Z',
  },
  product: null,
  created_at: '2026-03-15T12:00:00.000Z',
};
