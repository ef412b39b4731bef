import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { FeeStructure, FeeType } from './fees.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';

export interface ProductFamilyRow {
  id: string;
  name: string;
  alias: string | null;
  created_at: Date;
}

export interface ProductRow {
  id: string;
  product_family_id: string;
  name: string;
  description: string | null;
  catalog: boolean;
  fee_type: FeeType;
  fee_structure: FeeStructure;
  /** Checked by custom-properties' port on every write (docs/custom-properties.md). */
  custom_properties: CustomPropertyValues;
  created_at: Date;
  archived_at: Date | null;
}

const FAMILY_COLUMNS = 'id, name, alias, created_at';
const PRODUCT_COLUMNS = 'id, product_family_id, name, description, catalog, fee_type, fee_structure, custom_properties, created_at, archived_at';

/**
 * Products as other modules' statements may join them (features show the product's name): a
 * read-only relation with the columns this module publishes, so the table stays this module's.
 */
export const PRODUCT_NAMES_RELATION = '(SELECT tenant_id, id, name FROM products)';

/** `ORDER BY` text from an allow-listed column; `id` breaks ties so pages are stable. */
function orderSql(order: OrderBy<string>): string {
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return `${order.column} ${direction}, id ${direction}`;
}

export async function insertFamily(db: Queryable, tenantId: string, row: ProductFamilyRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO product_families (tenant_id, id, name, alias, created_at) VALUES ($1, $2, $3, $4, $5)`,
    [row.id, row.name, row.alias, row.created_at],
  );
}

export async function findFamily(db: Queryable, tenantId: string, idOrAlias: string): Promise<ProductFamilyRow | undefined> {
  return scoped(db, tenantId).one<ProductFamilyRow>(
    `SELECT ${FAMILY_COLUMNS} FROM product_families WHERE tenant_id = $1 AND (id = $2 OR alias = $2)
     ORDER BY (id = $2) DESC LIMIT 1`,
    [idOrAlias],
  );
}

export async function listFamilies(
  db: Queryable,
  tenantId: string,
  filter: { search?: string },
  order: OrderBy<'name' | 'created_at'>,
  page: PageRequest,
): Promise<{ rows: ProductFamilyRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR name ILIKE '%' || $2 || '%')`;
  const params = [filter.search ?? null];
  return scoped(db, tenantId).page<ProductFamilyRow>({ columns: FAMILY_COLUMNS, from: 'product_families', where, orderBy: `${orderSql(order)}` }, params, page);
}

export async function insertProduct(db: Queryable, tenantId: string, row: ProductRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO products (tenant_id, id, product_family_id, name, description, catalog, fee_type, fee_structure, custom_properties, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.product_family_id, row.name, row.description, row.catalog, row.fee_type, JSON.stringify(row.fee_structure), JSON.stringify(row.custom_properties), row.created_at],
  );
}

export async function findProduct(db: Queryable, tenantId: string, productId: string, lock = false): Promise<ProductRow | undefined> {
  return scoped(db, tenantId).one<ProductRow>(
    `SELECT ${PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [productId],
  );
}

export async function listProducts(
  db: Queryable,
  tenantId: string,
  filter: { productFamilyId?: string; search?: string; includeArchived?: boolean; properties?: CustomPropertyValues | null },
  order: OrderBy<'name' | 'created_at'>,
  page: PageRequest,
): Promise<{ rows: ProductRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR product_family_id = $2)
    AND ($3::text IS NULL OR name ILIKE '%' || $3 || '%') AND ($4::boolean OR archived_at IS NULL)${filter.properties ? ' AND custom_properties @> $5::jsonb' : ''}`;
  const params: unknown[] = [filter.productFamilyId ?? null, filter.search ?? null, filter.includeArchived ?? false];
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  return scoped(db, tenantId).page<ProductRow>({ columns: PRODUCT_COLUMNS, from: 'products', where, orderBy: `${orderSql(order)}` }, params, page);
}

export async function updateProduct(
  db: Queryable,
  tenantId: string,
  productId: string,
  changes: { name: string; description: string | null; fee_structure: FeeStructure; custom_properties: CustomPropertyValues; archived_at: Date | null },
): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE products SET name = $3, description = $4, fee_structure = $5, custom_properties = $6, archived_at = $7 WHERE tenant_id = $1 AND id = $2`,
    [productId, changes.name, changes.description, JSON.stringify(changes.fee_structure), JSON.stringify(changes.custom_properties), changes.archived_at],
  );
}
