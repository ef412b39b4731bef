import { Type } from 'typebox';
import { iso, isoOrNull, Nullable, Name } from '../../http/schemas.js';
import { AGGREGATION_TYPES, SEGMENTATION_TYPES, UNIT_ROUNDINGS } from './definition.js';
import type { MetricRow } from './repository.js';

const Dimension = Type.Object({ key: Type.String(), values: Type.Array(Type.String()) });

/** Tagged by `type`; the per-type fields are checked in definition.ts with messages naming the field. */
export const SegmentationMatrixSchema = Type.Object(
  {
    type: Type.Enum(SEGMENTATION_TYPES),
    key: Type.Optional(Type.String()),
    values: Type.Optional(Type.Unknown({ description: 'SINGLE: array of values; LINKED: object mapping each dimension1 value to its dimension2 values' })),
    dimension1: Type.Optional(Dimension),
    dimension2: Type.Optional(Dimension),
    dimension1_key: Type.Optional(Type.String()),
    dimension2_key: Type.Optional(Type.String()),
  },
  { description: 'SINGLE {key, values[]}, DOUBLE {dimension1, dimension2}, LINKED {dimension1_key, dimension2_key, values{}}' },
);

export const UnitConversionSchema = Type.Object({
  factor: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'aggregated usage is divided by this factor' }),
  rounding: Type.Enum(UNIT_ROUNDINGS),
});

const common = {
  id: Type.String(),
  name: Type.String(),
  code: Type.String({ description: 'the event code whose events this metric aggregates' }),
  description: Type.Optional(Nullable(Type.String())),
  aggregation_type: Type.Enum(AGGREGATION_TYPES),
  aggregation_key: Type.Optional(Nullable(Type.String())),
  created_at: Type.String({ format: 'date-time' }),
  archived_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
};

export const MetricSummary = Type.Object(common);

export const Metric = Type.Object({
  ...common,
  product_family_id: Type.String(),
  product_id: Type.Optional(Nullable(Type.String())),
  segmentation_matrix: Type.Optional(Nullable(SegmentationMatrixSchema)),
  unit_conversion: Type.Optional(Nullable(UnitConversionSchema)),
  usage_group_key: Type.Optional(Nullable(Type.String())),
});

export const CreateMetricRequest = Type.Object({
  name: Name(),
  code: Type.String({ minLength: 1 }),
  description: Type.Optional(Nullable(Type.String())),
  aggregation_type: Type.Enum(AGGREGATION_TYPES),
  aggregation_key: Type.Optional(Nullable(Type.String())),
  product_family_id: Type.String(),
  product_id: Type.Optional(Nullable(Type.String())),
  segmentation_matrix: Type.Optional(Nullable(SegmentationMatrixSchema)),
  unit_conversion: Type.Optional(Nullable(UnitConversionSchema)),
  usage_group_key: Type.Optional(Nullable(Type.String())),
});

/** Other fields are answered with a 400 saying they are immutable (checked in the service). */
export const UpdateMetricRequest = Type.Object({
  name: Type.Optional(Nullable(Name())),
  description: Type.Optional(Nullable(Type.String())),
  segmentation_matrix: Type.Optional(Nullable(SegmentationMatrixSchema)),
  unit_conversion: Type.Optional(Nullable(UnitConversionSchema)),
});

export function metricSummaryToWire(row: MetricRow) {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    description: row.description,
    aggregation_type: row.aggregation_type,
    aggregation_key: row.aggregation_key,
    created_at: iso(row.created_at),
    archived_at: isoOrNull(row.archived_at),
  };
}

export function metricToWire(row: MetricRow) {
  return {
    ...metricSummaryToWire(row),
    product_family_id: row.product_family_id,
    product_id: row.product_id,
    segmentation_matrix: row.segmentation_matrix,
    unit_conversion:
      row.unit_conversion_factor !== null && row.unit_conversion_rounding !== null
        ? { factor: row.unit_conversion_factor, rounding: row.unit_conversion_rounding }
        : null,
    usage_group_key: row.usage_group_key,
  };
}
