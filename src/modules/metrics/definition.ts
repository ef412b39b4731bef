import { badRequest } from '../../kernel/errors.js';

/** How a metric turns the events of its code into one quantity per period. */
export const AGGREGATION_TYPES = ['COUNT', 'LATEST', 'MAX', 'MIN', 'MEAN', 'SUM', 'COUNT_DISTINCT'] as const;
export type AggregationType = (typeof AGGREGATION_TYPES)[number];

export const UNIT_ROUNDINGS = ['UP', 'DOWN', 'NEAREST', 'NEAREST_HALF', 'NEAREST_DECILE', 'NONE'] as const;
export type UnitRounding = (typeof UNIT_ROUNDINGS)[number];

/** Aggregated usage is divided by `factor`, then rounded with `rounding` (e.g. bytes -> GB, UP). */
export interface UnitConversion {
  factor: number;
  rounding: UnitRounding;
}

export interface MetricDimension {
  key: string;
  values: string[];
}

/**
 * Group-by dimensions (segmentation), tagged by `type` as in the reference: one dimension, two
 * independent ones, or two linked ones (the allowed second values depend on the first).
 */
export type SegmentationMatrix =
  | { type: 'SINGLE'; key: string; values: string[] }
  | { type: 'DOUBLE'; dimension1: MetricDimension; dimension2: MetricDimension }
  | { type: 'LINKED'; dimension1_key: string; dimension2_key: string; values: Record<string, string[]> };

export const SEGMENTATION_TYPES = ['SINGLE', 'DOUBLE', 'LINKED'] as const;

/** Event codes and property names: the metering side accepts up to 512 bytes. */
const MAX_KEY_BYTES = 512;
/** Factors are int32 on the wire. */
const MAX_FACTOR = 2_147_483_647;

type Input = Record<string, unknown>;

function isObject(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string of at most 512 bytes (event codes and property names). */
export function requireKey(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${path} is required and must be a non-empty string`);
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_BYTES) throw badRequest(`${path} must be at most ${MAX_KEY_BYTES} bytes`);
  return value;
}

function rejectUnknown(input: Input, known: string[], path: string, what: string): void {
  for (const field of Object.keys(input)) {
    if (!known.includes(field)) throw badRequest(`${path}.${field} is not a field of a ${what}`);
  }
}

function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw badRequest(`${path} must be a non-empty array of strings`);
  const seen = new Set<string>();
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item === '') throw badRequest(`${path}[${index}] must be a non-empty string`);
    if (seen.has(item)) throw badRequest(`${path}[${index}] '${item}' is listed twice`);
    seen.add(item);
  });
  return value as string[];
}

function dimension(value: unknown, path: string): MetricDimension {
  if (!isObject(value)) throw badRequest(`${path} must be an object {key, values}`);
  rejectUnknown(value, ['key', 'values'], path, 'dimension');
  return { key: requireKey(value.key, `${path}.key`), values: stringList(value.values, `${path}.values`) };
}

/** Validates a segmentation matrix and returns it normalised (nothing extra kept). */
export function parseSegmentationMatrix(raw: unknown, path = 'segmentation_matrix'): SegmentationMatrix {
  if (!isObject(raw)) throw badRequest(`${path} must be an object`);
  const type = raw.type;
  switch (type) {
    case 'SINGLE':
      rejectUnknown(raw, ['type', 'key', 'values'], path, 'SINGLE segmentation');
      return { type, key: requireKey(raw.key, `${path}.key`), values: stringList(raw.values, `${path}.values`) };
    case 'DOUBLE': {
      rejectUnknown(raw, ['type', 'dimension1', 'dimension2'], path, 'DOUBLE segmentation');
      const dimension1 = dimension(raw.dimension1, `${path}.dimension1`);
      const dimension2 = dimension(raw.dimension2, `${path}.dimension2`);
      if (dimension1.key === dimension2.key) throw badRequest(`${path}.dimension2.key must differ from dimension1.key`);
      return { type, dimension1, dimension2 };
    }
    case 'LINKED': {
      rejectUnknown(raw, ['type', 'dimension1_key', 'dimension2_key', 'values'], path, 'LINKED segmentation');
      const dimension1Key = requireKey(raw.dimension1_key, `${path}.dimension1_key`);
      const dimension2Key = requireKey(raw.dimension2_key, `${path}.dimension2_key`);
      if (dimension1Key === dimension2Key) throw badRequest(`${path}.dimension2_key must differ from dimension1_key`);
      if (!isObject(raw.values) || Object.keys(raw.values).length === 0) {
        throw badRequest(`${path}.values must be a non-empty object mapping each ${dimension1Key} value to its ${dimension2Key} values`);
      }
      const values: Record<string, string[]> = {};
      for (const [first, seconds] of Object.entries(raw.values)) {
        if (first === '') throw badRequest(`${path}.values must not have an empty key`);
        values[first] = stringList(seconds, `${path}.values.${first}`);
      }
      return { type, dimension1_key: dimension1Key, dimension2_key: dimension2Key, values };
    }
    default:
      throw badRequest(`${path}.type must be one of ${SEGMENTATION_TYPES.join(', ')}`);
  }
}

export function parseUnitConversion(raw: unknown, path = 'unit_conversion'): UnitConversion {
  if (!isObject(raw)) throw badRequest(`${path} must be an object {factor, rounding}`);
  rejectUnknown(raw, ['factor', 'rounding'], path, 'unit conversion');
  const { factor, rounding } = raw;
  if (typeof factor !== 'number' || !Number.isInteger(factor) || factor < 1 || factor > MAX_FACTOR) {
    throw badRequest(`${path}.factor must be an integer between 1 and ${MAX_FACTOR}`);
  }
  if (typeof rounding !== 'string' || !UNIT_ROUNDINGS.includes(rounding as UnitRounding)) {
    throw badRequest(`${path}.rounding must be one of ${UNIT_ROUNDINGS.join(', ')}`);
  }
  return { factor, rounding: rounding as UnitRounding };
}

/**
 * Every aggregation but COUNT reads one event property; COUNT counts events and takes none
 * (a key given to COUNT would be silently ignored, so it is refused instead).
 */
export function checkAggregation(type: AggregationType, aggregationKey: string | null | undefined): string | null {
  if (type === 'COUNT') {
    if (aggregationKey !== undefined && aggregationKey !== null) throw badRequest('aggregation_key must be omitted for a COUNT metric: it counts events');
    return null;
  }
  return requireKey(aggregationKey, 'aggregation_key');
}

/** The property names usage is grouped by: `usage_group_key` first, then the segmentation keys. */
export function groupByKeys(matrix: SegmentationMatrix | null, usageGroupKey: string | null): string[] {
  const keys: string[] = usageGroupKey ? [usageGroupKey] : [];
  if (matrix?.type === 'SINGLE') keys.push(matrix.key);
  if (matrix?.type === 'DOUBLE') keys.push(matrix.dimension1.key, matrix.dimension2.key);
  if (matrix?.type === 'LINKED') keys.push(matrix.dimension1_key, matrix.dimension2_key);
  return keys;
}

/** The group-by keys must be distinct: a property cannot be both the usage group and a dimension. */
export function checkGroupBy(matrix: SegmentationMatrix | null, usageGroupKey: string | null): void {
  const keys = groupByKeys(matrix, usageGroupKey);
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
  if (duplicate !== undefined) throw badRequest(`usage_group_key '${duplicate}' is also a segmentation_matrix dimension`);
}
