// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas there.

export const effectiveEntitlementExamples = [
  {
    feature: { id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9', code: 'api-calls', name: 'API calls', product: null },
    value: {
      type: 'METERED' as const,
      spec: { enabled: true, limit: '100000', metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z', reset_period: { type: 'BILLING_CYCLE' as const } },
      usage: { consumed: '12840', remaining: '87160', reset_at: '2026-04-15T00:00:00.000Z' },
    },
  },
  {
    feature: { id: 'feat_01KKRNW4G01TZYZA34QN2WGJHY', code: 'sso', name: 'Single sign-on', product: { id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G', name: 'Platform fee' } },
    value: { type: 'BOOLEAN' as const, enabled: true },
  },
];

export const overrideValueExample = { type: 'METERED' as const, enabled: true, limit: '250000', reset_period: { type: 'BILLING_CYCLE' as const } };

export const overrideExample = {
  id: 'ent_01KKRNW4G07K3VXVBQS2VF8J0E',
  feature_id: 'feat_01KKRNW4G0Q841X0CQ0K68EGW9',
  value: overrideValueExample,
  created_at: '2026-03-15T12:00:00.000Z',
  updated_at: '2026-03-15T12:00:00.000Z',
};
