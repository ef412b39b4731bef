import type { MetricRow } from './repository.js';

/** `data` of metric.* events, in the reference's MetricEventData shape. */
export function metricEventData(metric: MetricRow): Record<string, unknown> {
  return {
    metric_id: metric.id,
    name: metric.name,
    code: metric.code,
    description: metric.description,
    aggregation_type: metric.aggregation_type,
    aggregation_key: metric.aggregation_key,
    product_family_id: metric.product_family_id,
    product_id: metric.product_id,
    segmentation_matrix: metric.segmentation_matrix,
    unit_conversion_factor: metric.unit_conversion_factor,
    unit_conversion_rounding: metric.unit_conversion_rounding,
    usage_group_key: metric.usage_group_key,
    created_at: metric.created_at.toISOString(),
  };
}
