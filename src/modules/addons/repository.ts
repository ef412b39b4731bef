import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { PlanFee } from '../plans/index.js';

export interface PriceRow {
  id: string;
  product_id: string;
  currency: string;
  fee: PlanFee;
  created_at: Date;
}

export interface AddOnRow {
  id: string;
  name: string;
  description: string | null;
  product_id: string;
  price_id: string;
  self_serviceable: boolean;
  max_instances_per_subscription: number | null;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

/** An add-on with its price, as every read returns it. */
export type AddOnWithPrice = AddOnRow & { price: PriceRow };

const ADDON_COLUMNS = 'a.id, a.name, a.description, a.product_id, a.price_id, a.self_serviceable, a.max_instances_per_subscription, a.created_at, a.updated_at, a.archived_at';
const SELECT = `SELECT ${ADDON_COLUMNS}, json_build_object('id', p.id, 'product_id', p.product_id, 'currency', p.currency, 'fee', p.fee, 'created_at', p.created_at) AS price
  FROM add_ons a JOIN prices p ON p.tenant_id = a.tenant_id AND p.id = a.price_id`;

function withDates(row: AddOnRow & { price: Omit<PriceRow, 'created_at'> & { created_at: string } }): AddOnWithPrice {
  return { ...row, price: { ...row.price, created_at: new Date(row.price.created_at) } };
}

export async function insertPrice(db: Queryable, tenantId: string, row: PriceRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO prices (tenant_id, id, product_id, currency, fee_type, fee, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.id, row.product_id, row.currency, row.fee.type, JSON.stringify(row.fee), row.created_at],
  );
}

export async function findPrice(db: Queryable, tenantId: string, priceId: string): Promise<PriceRow | undefined> {
  return scoped(db, tenantId).one<PriceRow>(`SELECT id, product_id, currency, fee, created_at FROM prices WHERE tenant_id = $1 AND id = $2`, [priceId]);
}

export async function insertAddOn(db: Queryable, tenantId: string, row: AddOnRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO add_ons (tenant_id, id, name, description, product_id, price_id, self_serviceable, max_instances_per_subscription, created_at, updated_at, archived_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [row.id, row.name, row.description, row.product_id, row.price_id, row.self_serviceable, row.max_instances_per_subscription, row.created_at, row.updated_at, row.archived_at],
  );
}

export async function updateAddOn(db: Queryable, tenantId: string, row: AddOnRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE add_ons SET name = $3, description = $4, price_id = $5, self_serviceable = $6, max_instances_per_subscription = $7, updated_at = $8, archived_at = $9
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.name, row.description, row.price_id, row.self_serviceable, row.max_instances_per_subscription, row.updated_at, row.archived_at],
  );
}

export async function findAddOn(db: Queryable, tenantId: string, addOnId: string, lock = false): Promise<AddOnWithPrice | undefined> {
  const row = await scoped(db, tenantId).one(`${SELECT} WHERE a.tenant_id = $1 AND a.id = $2${lock ? ' FOR UPDATE OF a' : ''}`, [addOnId]);
  return row ? withDates(row as never) : undefined;
}

export async function listAddOns(
  db: Queryable,
  tenantId: string,
  filter: { search?: string; currency?: string; includeArchived?: boolean },
  order: OrderBy<'name' | 'created_at'>,
  page: PageRequest,
): Promise<{ rows: AddOnWithPrice[]; total: number }> {
  const where = `a.tenant_id = $1 AND ($2::text IS NULL OR a.name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR p.currency = $3) AND ($4::boolean OR a.archived_at IS NULL)`;
  const params = [filter.search ?? null, filter.currency ?? null, filter.includeArchived ?? false];
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  const rows = await scoped(db, tenantId).query(`${SELECT} WHERE ${where} ORDER BY a.${order.column} ${direction}, a.id ${direction} LIMIT $5 OFFSET $6`, [
    ...params,
    page.perPage,
    page.page * page.perPage,
  ]);
  const count = await scoped(db, tenantId).one<{ n: bigint }>(
    `SELECT count(*) AS n FROM add_ons a JOIN prices p ON p.tenant_id = a.tenant_id AND p.id = a.price_id WHERE ${where}`,
    params,
  );
  return { rows: rows.map((r) => withDates(r as never)), total: Number(count?.n ?? 0n) };
}

/** Existing, unarchived add-ons among `ids`. */
export async function existingAddOnIds(db: Queryable, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await scoped(db, tenantId).query<{ id: string }>(`SELECT id FROM add_ons WHERE tenant_id = $1 AND id = ANY($2) AND archived_at IS NULL`, [ids]);
  return new Set(rows.map((r) => r.id));
}

export async function existingPriceIds(db: Queryable, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await scoped(db, tenantId).query<{ id: string }>(`SELECT id FROM prices WHERE tenant_id = $1 AND id = ANY($2)`, [ids]);
  return new Set(rows.map((r) => r.id));
}
