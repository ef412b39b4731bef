import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { AggregationType, SegmentationMatrix, UnitRounding } from './definition.js';

export interface MetricRow {
  id: string;
  product_family_id: string;
  product_id: string | null;
  name: string;
  description: string | null;
  code: string;
  aggregation_type: AggregationType;
  aggregation_key: string | null;
  unit_conversion_factor: number | null;
  unit_conversion_rounding: UnitRounding | null;
  segmentation_matrix: SegmentationMatrix | null;
  usage_group_key: string | null;
  created_at: Date;
  archived_at: Date | null;
}

export type MetricOrderColumn = 'name' | 'code' | 'created_at';

const COLUMNS = `id, product_family_id, product_id, name, description, code, aggregation_type, aggregation_key,
  unit_conversion_factor, unit_conversion_rounding, segmentation_matrix, usage_group_key, created_at, archived_at`;

export async function insertMetric(db: Queryable, tenantId: string, row: MetricRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO billable_metrics (tenant_id, id, product_family_id, product_id, name, description, code, aggregation_type,
       aggregation_key, unit_conversion_factor, unit_conversion_rounding, segmentation_matrix, usage_group_key, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.id,
      row.product_family_id,
      row.product_id,
      row.name,
      row.description,
      row.code,
      row.aggregation_type,
      row.aggregation_key,
      row.unit_conversion_factor,
      row.unit_conversion_rounding,
      row.segmentation_matrix === null ? null : JSON.stringify(row.segmentation_matrix),
      row.usage_group_key,
      row.created_at,
    ],
  );
}

export async function findMetric(db: Queryable, tenantId: string, metricId: string, lock = false): Promise<MetricRow | undefined> {
  return scoped(db, tenantId).one<MetricRow>(
    `SELECT ${COLUMNS} FROM billable_metrics WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [metricId],
  );
}

/**
 * The statement reading one metric of the tenant by id (the SQL expression `idSql`): for statements
 * of other modules that read a metric's definition with their own rows in one round trip. Its row
 * is a `MetricRow`; `metricRowOfJson` reads it back from JSON.
 */
export function metricOfIdSql(idSql: string): string {
  return `SELECT ${COLUMNS} FROM billable_metrics WHERE tenant_id = $1 AND id = ${idSql}`;
}

/** A `MetricRow` read as `to_jsonb` of its row: its instants come as text (its one number is an integer). */
export function metricRowOfJson(json: Record<string, unknown>): MetricRow {
  const row = json as unknown as MetricRow;
  return { ...row, created_at: new Date(json.created_at as string), archived_at: json.archived_at === null ? null : new Date(json.archived_at as string) };
}

/** Every metric reading events of `code` (several may aggregate the same events differently). */
export async function findMetricsByCode(db: Queryable, tenantId: string, code: string, includeArchived: boolean): Promise<MetricRow[]> {
  return scoped(db, tenantId).query<MetricRow>(
    `SELECT ${COLUMNS} FROM billable_metrics WHERE tenant_id = $1 AND code = $2 AND ($3::boolean OR archived_at IS NULL) ORDER BY id`,
    [code, includeArchived],
  );
}

export async function listMetrics(
  db: Queryable,
  tenantId: string,
  filter: { productFamilyId?: string; search?: string },
  order: OrderBy<MetricOrderColumn>,
  page: PageRequest,
): Promise<{ rows: MetricRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR product_family_id = $2)
    AND ($3::text IS NULL OR name ILIKE '%' || $3 || '%' OR code ILIKE '%' || $3 || '%')`;
  const params = [filter.productFamilyId ?? null, filter.search ?? null];
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<MetricRow>({ columns: COLUMNS, from: 'billable_metrics', where, orderBy: `${order.column} ${direction}, id ${direction}` }, params, page);
}

export async function updateMetric(db: Queryable, tenantId: string, row: MetricRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE billable_metrics SET name = $3, description = $4, unit_conversion_factor = $5, unit_conversion_rounding = $6,
       segmentation_matrix = $7, archived_at = $8
     WHERE tenant_id = $1 AND id = $2`,
    [
      row.id,
      row.name,
      row.description,
      row.unit_conversion_factor,
      row.unit_conversion_rounding,
      row.segmentation_matrix === null ? null : JSON.stringify(row.segmentation_matrix),
      row.archived_at,
    ],
  );
}
