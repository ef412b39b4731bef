export type { MetricsService } from './service.js';
export { createMetricsModule } from './module.js';
export { metricExists, loadMetricDefinition, loadMetricDefinitionsByCode, metricDefinitionOfJson } from './lookup.js';
export { metricOfIdSql } from './repository.js';
export type { MetricDefinition } from './lookup.js';
export { AGGREGATION_TYPES, UNIT_ROUNDINGS, groupByKeys } from './definition.js';
export type { AggregationType, UnitRounding, UnitConversion, SegmentationMatrix, MetricDimension } from './definition.js';
