import type { Queryable } from '../../db/pool.js';
import { groupByKeys, type AggregationType, type SegmentationMatrix, type UnitConversion } from './definition.js';
import * as repo from './repository.js';
import type { MetricRow } from './repository.js';

/** What metering and invoicing need to aggregate a metric's events. */
export interface MetricDefinition {
  id: string;
  name: string;
  /** The event code whose events are aggregated. */
  code: string;
  aggregation_type: AggregationType;
  /** The event property aggregated; null only for COUNT. */
  aggregation_key: string | null;
  usage_group_key: string | null;
  segmentation_matrix: SegmentationMatrix | null;
  /** Property names usage is grouped by: `usage_group_key` first, then the segmentation keys. */
  group_by: string[];
  /** Divide the aggregated quantity by `factor`, then round with `rounding`; null = as is. */
  unit_conversion: UnitConversion | null;
  archived: boolean;
}

export function toDefinition(row: MetricRow): MetricDefinition {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    aggregation_type: row.aggregation_type,
    aggregation_key: row.aggregation_key,
    usage_group_key: row.usage_group_key,
    segmentation_matrix: row.segmentation_matrix,
    group_by: groupByKeys(row.segmentation_matrix, row.usage_group_key),
    unit_conversion:
      row.unit_conversion_factor !== null && row.unit_conversion_rounding !== null
        ? { factor: row.unit_conversion_factor, rounding: row.unit_conversion_rounding }
        : null,
    archived: row.archived_at !== null,
  };
}

/**
 * True when `metricId` is a metric of the tenant. Archived metrics count only when asked, so
 * nothing new (a product's fee, a metered feature) gets bound to an archived metric.
 * Matches the catalog's `MetricExists` signature.
 */
export async function metricExists(db: Queryable, tenantId: string, metricId: string, options: { includeArchived?: boolean } = {}): Promise<boolean> {
  const row = await repo.findMetric(db, tenantId, metricId);
  return row !== undefined && (options.includeArchived === true || row.archived_at === null);
}

/** The definition of one metric of the tenant (archived included), or undefined. */
export async function loadMetricDefinition(db: Queryable, tenantId: string, metricId: string): Promise<MetricDefinition | undefined> {
  const row = await repo.findMetric(db, tenantId, metricId);
  return row ? toDefinition(row) : undefined;
}

/** The definition of `metricOfIdSql`'s row, read as `to_jsonb` of it. */
export function metricDefinitionOfJson(json: Record<string, unknown>): MetricDefinition {
  return toDefinition(repo.metricRowOfJson(json));
}

/** Every metric that reads events of `code` (several may aggregate the same events). */
export async function loadMetricDefinitionsByCode(
  db: Queryable,
  tenantId: string,
  code: string,
  options: { includeArchived?: boolean } = {},
): Promise<MetricDefinition[]> {
  return (await repo.findMetricsByCode(db, tenantId, code, options.includeArchived === true)).map(toDefinition);
}
