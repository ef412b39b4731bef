import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { CouponDiscount, CouponFilter, CouponTerms } from './rules.js';

export interface CouponRow extends CouponTerms {
  id: string;
  description: string | null;
  recurring_value: number | null;
  last_redemption_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type CouponOrderColumn = 'code' | 'created_at' | 'expires_at';

interface DbRow extends Omit<CouponRow, 'discount'> {
  discount_type: 'PERCENTAGE' | 'FIXED';
  discount_percentage: string | null;
  discount_amount: string | null;
  discount_currency: string | null;
}

const COLUMNS = `id, code, description, discount_type, discount_percentage, discount_amount, discount_currency, expires_at,
  redemption_limit, recurring_value, reusable, disabled, archived_at, redemption_count, last_redemption_at, plan_ids, created_at, updated_at`;

function fromDb(row: DbRow): CouponRow {
  const { discount_type, discount_percentage, discount_amount, discount_currency, ...rest } = row;
  const discount: CouponDiscount =
    discount_type === 'PERCENTAGE'
      ? { type: 'PERCENTAGE', percentage: discount_percentage! }
      : { type: 'FIXED', currency: discount_currency!, amount: discount_amount! };
  return { ...rest, discount };
}

function discountColumns(discount: CouponDiscount): [string, string | null, string | null, string | null] {
  return discount.type === 'PERCENTAGE'
    ? ['PERCENTAGE', discount.percentage, null, null]
    : ['FIXED', null, discount.amount, discount.currency];
}

export async function insertCoupon(db: Queryable, tenantId: string, row: CouponRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO coupons (tenant_id, id, code, description, discount_type, discount_percentage, discount_amount, discount_currency,
       expires_at, redemption_limit, recurring_value, reusable, disabled, plan_ids, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [
      row.id,
      row.code,
      row.description,
      ...discountColumns(row.discount),
      row.expires_at,
      row.redemption_limit,
      row.recurring_value,
      row.reusable,
      row.disabled,
      row.plan_ids,
      row.created_at,
      row.updated_at,
    ],
  );
}

export async function findCoupon(db: Queryable, tenantId: string, couponId: string, lock = false): Promise<CouponRow | undefined> {
  const row = await scoped(db, tenantId).one<DbRow>(
    `SELECT ${COLUMNS} FROM coupons WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [couponId],
  );
  return row && fromDb(row);
}

/** By id, or by code ignoring case (codes are typed by customers). */
export async function findCouponByIdOrCode(db: Queryable, tenantId: string, idOrCode: string, lock = false): Promise<CouponRow | undefined> {
  const row = await scoped(db, tenantId).one<DbRow>(
    `SELECT ${COLUMNS} FROM coupons WHERE tenant_id = $1 AND (id = $2 OR lower(code) = lower($2))
     ORDER BY (id = $2) DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
    [idOrCode],
  );
  return row && fromDb(row);
}

/** SQL of the status views; `$2` is the instant coupons are judged at. */
const FILTER_SQL: Record<CouponFilter, string> = {
  ALL: 'true',
  ARCHIVED: 'archived_at IS NOT NULL',
  ACTIVE: `archived_at IS NULL AND NOT disabled AND (expires_at IS NULL OR expires_at > $2)
    AND (redemption_limit IS NULL OR redemption_count < redemption_limit)`,
  INACTIVE: `archived_at IS NULL AND (disabled OR (expires_at IS NOT NULL AND expires_at <= $2)
    OR (redemption_limit IS NOT NULL AND redemption_count >= redemption_limit))`,
};

export async function listCoupons(
  db: Queryable,
  tenantId: string,
  filter: { status: CouponFilter; search?: string; at: Date },
  order: OrderBy<CouponOrderColumn>,
  page: PageRequest,
): Promise<{ rows: CouponRow[]; total: number }> {
  const where = `tenant_id = $1 AND ${FILTER_SQL[filter.status]} AND $2::timestamptz IS NOT NULL
    AND ($3::text IS NULL OR code ILIKE '%' || $3 || '%' OR description ILIKE '%' || $3 || '%')`;
  const params = [filter.at, filter.search ?? null];
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  const nulls = order.column === 'expires_at' ? ' NULLS LAST' : '';
  const { rows, total } = await scoped(db, tenantId).page<DbRow>(
    { columns: COLUMNS, from: 'coupons', where, orderBy: `${order.column} ${direction}${nulls}, id ${direction}` },
    params,
    page,
  );
  return { rows: rows.map(fromDb), total };
}

export async function updateCoupon(db: Queryable, tenantId: string, row: CouponRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE coupons SET description = $3, discount_type = $4, discount_percentage = $5, discount_amount = $6, discount_currency = $7,
       plan_ids = $8, disabled = $9, archived_at = $10, redemption_count = $11, last_redemption_at = $12, updated_at = $13
     WHERE tenant_id = $1 AND id = $2`,
    [
      row.id,
      row.description,
      ...discountColumns(row.discount),
      row.plan_ids,
      row.disabled,
      row.archived_at,
      row.redemption_count,
      row.last_redemption_at,
      row.updated_at,
    ],
  );
}

export async function hasCustomerRedeemed(db: Queryable, tenantId: string, couponId: string, customerId: string): Promise<boolean> {
  const row = await scoped(db, tenantId).one(
    `SELECT 1 FROM coupon_redemptions WHERE tenant_id = $1 AND coupon_id = $2 AND customer_id = $3 LIMIT 1`,
    [couponId, customerId],
  );
  return row !== undefined;
}

export async function insertRedemption(
  db: Queryable,
  tenantId: string,
  redemption: { couponId: string; customerId: string; subscriptionId: string | null; redeemedAt: Date },
): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO coupon_redemptions (tenant_id, coupon_id, customer_id, subscription_id, redeemed_at) VALUES ($1, $2, $3, $4, $5)`,
    [redemption.couponId, redemption.customerId, redemption.subscriptionId, redemption.redeemedAt],
  );
}

/** Deletes the redemptions of these customers (a test clock's deletion): their coupons count them no more. */
export async function deleteRedemptionsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM coupon_redemptions WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}
