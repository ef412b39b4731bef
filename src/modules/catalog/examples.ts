// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

export const familyExample = { id: 'pf_01KKRNW4G00G4BFSVS7WNF9KJ6', name: 'Cloud Platform' };

export const productExample = {
  id: 'prd_01KKRNW4G0CGV4ZC09S0PKPY9G',
  name: 'Platform fee',
  description: 'Monthly access to the platform',
  product_family_id: familyExample.id,
  catalog: true,
  fee_type: 'RATE' as const,
  fee_structure: { type: 'RATE' as const },
  custom_properties: {},
  created_at: '2026-03-15T12:00:00.000Z',
  archived_at: null,
};

export const usageProductExample = {
  ...productExample,
  id: 'prd_01KKRNW4G0M5T7125TCS8P5KAX',
  name: 'API calls',
  description: null,
  fee_type: 'USAGE' as const,
  fee_structure: { type: 'USAGE' as const, metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z', model: 'TIERED' },
};
