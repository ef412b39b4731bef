import type { Pool } from '../../db/pool.js';
import type { UsageMetric } from '../../domain/usage/index.js';
import { loadMetricDefinition, loadMetricDefinitionsByCode, type MetricDefinition, type MetricsService } from '../metrics/index.js';

/** A billable metric as aggregation sees it; segmentation values filter the events counted. */
export function toUsageMetric(def: MetricDefinition): UsageMetric {
  const filters: Record<string, string[]> = {};
  const matrix = def.segmentation_matrix;
  let linked: UsageMetric['linked'];
  if (matrix?.type === 'SINGLE') filters[matrix.key] = matrix.values;
  if (matrix?.type === 'DOUBLE') {
    filters[matrix.dimension1.key] = matrix.dimension1.values;
    filters[matrix.dimension2.key] = matrix.dimension2.values;
  }
  if (matrix?.type === 'LINKED') linked = { key1: matrix.dimension1_key, key2: matrix.dimension2_key, values: matrix.values };
  return {
    id: def.id,
    name: def.name,
    code: def.code,
    aggregation: def.aggregation_type,
    property: def.aggregation_key,
    groupBy: def.group_by,
    ...(Object.keys(filters).length ? { filters } : {}),
    ...(linked ? { linked } : {}),
  };
}

export interface UsageMetricSource {
  get(tenantId: string, metricId: string): Promise<(UsageMetric & { archived: boolean }) | undefined>;
  /** Every metric of the tenant, archived included. */
  all(tenantId: string): Promise<(UsageMetric & { archived: boolean })[]>;
  codeExists(tenantId: string, code: string): Promise<boolean>;
}

/** Reads billable metrics through the metrics module's public surface. */
export function metricSource(pool: Pool, metrics: MetricsService): UsageMetricSource {
  const withArchived = (def: MetricDefinition) => ({ ...toUsageMetric(def), archived: def.archived });
  return {
    async get(tenantId, metricId) {
      const def = await loadMetricDefinition(pool, tenantId, metricId);
      return def ? withArchived(def) : undefined;
    },
    async all(tenantId) {
      const codes = new Set<string>();
      for (let page = 0; ; page++) {
        const result = await metrics.list(tenantId, { page, per_page: 100 });
        result.data.forEach((row) => codes.add(row.code));
        if (page + 1 >= result.pagination_meta.total_pages) break;
      }
      const out: (UsageMetric & { archived: boolean })[] = [];
      for (const code of [...codes].sort()) {
        for (const def of await loadMetricDefinitionsByCode(pool, tenantId, code, { includeArchived: true })) out.push(withArchived(def));
      }
      return out.sort((a, b) => (a.id < b.id ? -1 : 1));
    },
    async codeExists(tenantId, code) {
      return (await loadMetricDefinitionsByCode(pool, tenantId, code)).length > 0;
    },
  };
}
