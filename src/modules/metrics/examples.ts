// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

const summary = {
  id: 'bm_01KKRNW4G07ZHP3G8QJNNDRC9W',
  name: 'Storage',
  code: 'storage_bytes',
  description: 'Peak stored bytes per region',
  aggregation_type: 'MAX' as const,
  aggregation_key: 'bytes',
  created_at: '2026-03-15T12:00:00.000Z',
  archived_at: null,
};

export const metricSummaryExamples = [
  {
    ...summary,
    id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z',
    name: 'API calls',
    code: 'api_call',
    description: 'Requests to the public API',
    aggregation_type: 'COUNT' as const,
    aggregation_key: null,
  },
  summary,
];

export const metricExample = {
  ...summary,
  product_family_id: 'pf_01KKRNW4G00G4BFSVS7WNF9KJ6',
  product_id: null,
  segmentation_matrix: { type: 'SINGLE' as const, key: 'region', values: ['eu-west', 'us-east'] },
  unit_conversion: { factor: 1000000000, rounding: 'UP' as const },
  usage_group_key: null,
};

export const createMetricExample = {
  name: 'Storage',
  code: 'storage_bytes',
  description: 'Peak stored bytes per region',
  aggregation_type: 'MAX' as const,
  aggregation_key: 'bytes',
  product_family_id: 'pf_01KKRNW4G00G4BFSVS7WNF9KJ6',
  segmentation_matrix: { type: 'SINGLE' as const, key: 'region', values: ['eu-west', 'us-east'] },
  unit_conversion: { factor: 1000000000, rounding: 'UP' as const },
};
