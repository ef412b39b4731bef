import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { PRODUCT_NAMES_RELATION } from '../catalog/index.js';
import type { EntitlementValue, FeatureStatus, FeatureTypeName } from './values.js';

export interface FeatureRow {
  id: string;
  code: string;
  name: string;
  description: string | null;
  status: FeatureStatus;
  feature_type: FeatureTypeName;
  metric_id: string | null;
  product_id: string | null;
  /** Joined from products, for the `product {id, name}` of the wire shape. */
  product_name: string | null;
  default_entitlement_id: string | null;
  default_entitlement_value: EntitlementValue | null;
  default_entitlement_created_at: Date | null;
  default_entitlement_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT f.id, f.code, f.name, f.description, f.status, f.feature_type, f.metric_id, f.product_id, p.name AS product_name,
    f.default_entitlement_id, f.default_entitlement_value, f.default_entitlement_created_at, f.default_entitlement_updated_at,
    f.created_at, f.updated_at
  FROM features f LEFT JOIN ${PRODUCT_NAMES_RELATION} p ON p.id = f.product_id AND p.tenant_id = f.tenant_id`;

export async function insertFeature(db: Queryable, tenantId: string, row: FeatureRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO features (tenant_id, id, code, name, description, status, feature_type, metric_id, product_id,
       default_entitlement_id, default_entitlement_value, default_entitlement_created_at, default_entitlement_updated_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      row.id,
      row.code,
      row.name,
      row.description,
      row.status,
      row.feature_type,
      row.metric_id,
      row.product_id,
      row.default_entitlement_id,
      row.default_entitlement_value === null ? null : JSON.stringify(row.default_entitlement_value),
      row.default_entitlement_created_at,
      row.default_entitlement_updated_at,
      row.created_at,
      row.updated_at,
    ],
  );
}

/** By id or by code; an id match wins (a code can never look like another feature's id anyway). */
export async function findFeature(db: Queryable, tenantId: string, idOrCode: string, lock = false): Promise<FeatureRow | undefined> {
  return scoped(db, tenantId).one<FeatureRow>(
    `${SELECT} WHERE f.tenant_id = $1 AND (f.id = $2 OR f.code = $2) ORDER BY (f.id = $2) DESC LIMIT 1${lock ? ' FOR UPDATE OF f' : ''}`,
    [idOrCode],
  );
}

export async function listFeatures(
  db: Queryable,
  tenantId: string,
  filter: { statuses?: FeatureStatus[]; productId?: string; search?: string },
  page: PageRequest,
): Promise<{ rows: FeatureRow[]; total: number }> {
  const where = `f.tenant_id = $1 AND ($2::text[] IS NULL OR f.status = ANY($2)) AND ($3::text IS NULL OR f.product_id = $3)
    AND ($4::text IS NULL OR f.name ILIKE '%' || $4 || '%')`;
  const params = [filter.statuses && filter.statuses.length > 0 ? filter.statuses : null, filter.productId ?? null, filter.search ?? null];
  const rows = await scoped(db, tenantId).query<FeatureRow>(
    `${SELECT} WHERE ${where} ORDER BY f.name ASC, f.id ASC LIMIT $5 OFFSET $6`,
    [...params, page.perPage, page.page * page.perPage],
  );
  const count = await scoped(db, tenantId).one<{ n: bigint }>(`SELECT count(*) AS n FROM features f WHERE ${where}`, params);
  return { rows, total: Number(count?.n ?? 0n) };
}

export async function updateFeature(db: Queryable, tenantId: string, row: FeatureRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE features SET name = $3, description = $4, status = $5, default_entitlement_id = $6, default_entitlement_value = $7,
       default_entitlement_created_at = $8, default_entitlement_updated_at = $9, updated_at = $10
     WHERE tenant_id = $1 AND id = $2`,
    [
      row.id,
      row.name,
      row.description,
      row.status,
      row.default_entitlement_id,
      row.default_entitlement_value === null ? null : JSON.stringify(row.default_entitlement_value),
      row.default_entitlement_created_at,
      row.default_entitlement_updated_at,
      row.updated_at,
    ],
  );
}

/** The tenant's ACTIVE features, by code. */
/**
 * The statement reading the active feature a reference (the parameter `refParam`, a code or an
 * id) names, a code match first: for statements of other modules that read it with their own
 * rows in one round trip. Its row is a `FeatureRow`; `featureRowOfJson` reads it back from JSON.
 */
export function activeFeatureOfRefSql(refParam: string): string {
  return `${SELECT} WHERE f.tenant_id = $1 AND f.status = 'ACTIVE' AND (f.code = ${refParam} OR f.id = ${refParam}) ORDER BY (f.code = ${refParam}) DESC LIMIT 1`;
}

/** A `FeatureRow` read as `to_jsonb` of its row: its instants come as text. */
export function featureRowOfJson(json: Record<string, unknown>): FeatureRow {
  const instant = (value: unknown) => (value === null ? null : new Date(value as string));
  const row = json as unknown as FeatureRow;
  return {
    ...row,
    default_entitlement_created_at: instant(json.default_entitlement_created_at),
    default_entitlement_updated_at: instant(json.default_entitlement_updated_at),
    created_at: new Date(json.created_at as string),
    updated_at: new Date(json.updated_at as string),
  };
}

export async function listActiveFeatures(db: Queryable, tenantId: string): Promise<FeatureRow[]> {
  return scoped(db, tenantId).query<FeatureRow>(`${SELECT} WHERE f.tenant_id = $1 AND f.status = 'ACTIVE' ORDER BY f.code`);
}

/** Ids of the tenant's features that belong to a product (archived ones left out), by code. */
export async function featureIdsOfProduct(db: Queryable, tenantId: string, productId: string): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `SELECT id FROM features WHERE tenant_id = $1 AND product_id = $2 AND status <> 'ARCHIVED' ORDER BY code`,
    [productId],
  );
  return rows.map((r) => r.id);
}
