import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { couponEventData } from './events.js';
import * as repo from './repository.js';
import type { CouponRow } from './repository.js';
import { COUPON_FILTERS, parseCouponCode, parseDiscount, type CouponFilter } from './rules.js';

export interface CreateCouponInput {
  code: string;
  description?: string | null;
  discount: unknown;
  expires_at?: string | null;
  plan_ids?: string[];
  recurring_value?: number | null;
  redemption_limit?: number | null;
  reusable?: boolean;
}

export interface ListCouponsQuery {
  search?: string;
  filter?: CouponFilter;
  order_by?: string;
  page?: number;
  per_page?: number;
}

/** Checks plan ids a coupon is restricted to; the plans part of the catalog supplies it. */
export type PlanExists = (db: Queryable, tenantId: string, planId: string) => Promise<boolean>;

const MUTABLE_FIELDS = ['description', 'discount', 'plan_ids'];
const FIXED_AT_CREATION = ['code', 'expires_at', 'redemption_limit', 'recurring_value', 'reusable'];

function positiveCount(value: number | null | undefined, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > 2_147_483_647) throw badRequest(`${field} must be a positive integer (or null for no limit)`);
  return value;
}

export function createCouponsService(deps: { pool: Pool; clock: Clock; planExists?: PlanExists }) {
  const { pool, clock } = deps;

  async function requireCoupon(db: Queryable, tenantId: string, couponId: string, lock = false): Promise<CouponRow> {
    const row = await repo.findCoupon(db, tenantId, couponId, lock);
    if (!row) throw notFound('coupon');
    return row;
  }

  async function checkPlans(db: Queryable, tenantId: string, planIds: unknown): Promise<string[]> {
    if (!Array.isArray(planIds)) throw badRequest('plan_ids must be an array of plan ids');
    const unique = [...new Set(planIds as string[])];
    for (const [index, planId] of unique.entries()) {
      if (typeof planId !== 'string' || !planId.startsWith('plan_')) throw badRequest(`plan_ids[${index}] must be a plan id (plan_...)`);
      if (deps.planExists && !(await deps.planExists(db, tenantId, planId))) throw badRequest(`plan_ids[${index}] '${planId}' is not a plan of this tenant`);
    }
    return unique;
  }

  async function create(tenantId: string, input: CreateCouponInput): Promise<CouponRow> {
    const code = parseCouponCode(input.code);
    const discount = parseDiscount(input.discount);
    const now = clock.now();
    let expiresAt: Date | null = null;
    if (input.expires_at != null) {
      expiresAt = new Date(input.expires_at);
      if (Number.isNaN(expiresAt.getTime())) throw badRequest('expires_at must be a date-time such as 2026-12-31T23:59:59Z');
      if (expiresAt.getTime() <= now.getTime()) throw badRequest('expires_at must be in the future');
    }
    const redemptionLimit = positiveCount(input.redemption_limit, 'redemption_limit');
    const recurringValue = positiveCount(input.recurring_value, 'recurring_value');
    return withTx(pool, async (tx) => {
      const row: CouponRow = {
        id: newId('coupon', now.getTime()),
        code,
        description: input.description ?? null,
        discount,
        expires_at: expiresAt,
        redemption_limit: redemptionLimit,
        recurring_value: recurringValue,
        reusable: input.reusable ?? false,
        disabled: false,
        archived_at: null,
        redemption_count: 0,
        last_redemption_at: null,
        plan_ids: await checkPlans(tx, tenantId, input.plan_ids ?? []),
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insertCoupon(tx, tenantId, row);
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`code '${code}' is already used by another coupon (codes ignore case)`);
        throw error;
      }
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'coupon.created', objectId: row.id, data: couponEventData(row) });
      return row;
    });
  }

  async function list(tenantId: string, query: ListCouponsQuery): Promise<Page<CouponRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['code', 'created_at', 'expires_at'] as const, { column: 'created_at', direction: 'desc' });
    const status = query.filter ?? 'ALL';
    if (!COUPON_FILTERS.includes(status)) throw badRequest(`filter must be one of ${COUPON_FILTERS.join(', ')}`);
    const { rows, total } = await repo.listCoupons(pool, tenantId, { status, search: query.search, at: clock.now() }, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** description, discount and plan_ids; the terms a customer was promised stay as created. */
  async function update(tenantId: string, couponId: string, input: Record<string, unknown>): Promise<CouponRow> {
    for (const field of Object.keys(input)) {
      if (FIXED_AT_CREATION.includes(field)) throw badRequest(`${field} is immutable: only description, discount and plan_ids can be changed`);
      if (!MUTABLE_FIELDS.includes(field)) throw badRequest(`${field} is not a field of a coupon update`);
    }
    return withTx(pool, async (tx) => {
      const current = await requireCoupon(tx, tenantId, couponId, true);
      const next: CouponRow = { ...current, updated_at: clock.now() };
      if (input.description !== undefined) {
        if (input.description !== null && typeof input.description !== 'string') throw badRequest('description must be a string or null');
        next.description = input.description;
      }
      if (input.discount !== undefined && input.discount !== null) {
        next.discount = parseDiscount(input.discount);
        // Subscriptions already carrying a fixed coupon are billed in its currency.
        const currencyOf = (row: CouponRow) => (row.discount.type === 'FIXED' ? row.discount.currency : null);
        if (current.redemption_count > 0 && currencyOf(next) !== currencyOf(current)) {
          throw badRequest('discount cannot change type or currency once the coupon has been redeemed; create a new coupon');
        }
      }
      if (input.plan_ids !== undefined && input.plan_ids !== null) next.plan_ids = await checkPlans(tx, tenantId, input.plan_ids);
      await repo.updateCoupon(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'coupon.updated', objectId: next.id, data: couponEventData(next) });
      return next;
    });
  }

  /**
   * Flag moves. Repeating the current state is a no-op without an event; archive emits
   * `coupon.archived`, the others `coupon.updated` (the reference has no other coupon kinds).
   */
  async function setFlag(tenantId: string, couponId: string, change: { disabled?: boolean; archived?: boolean }): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await requireCoupon(tx, tenantId, couponId, true);
      const now = clock.now();
      const next: CouponRow = { ...current, updated_at: now };
      if (change.disabled !== undefined) {
        if (current.disabled === change.disabled) return;
        next.disabled = change.disabled;
      }
      if (change.archived !== undefined) {
        if ((current.archived_at !== null) === change.archived) return;
        next.archived_at = change.archived ? now : null;
      }
      await repo.updateCoupon(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, {
        type: change.archived === true ? 'coupon.archived' : 'coupon.updated',
        objectId: next.id,
        data: couponEventData(next),
      });
    });
  }

  return {
    create,
    get: (tenantId: string, couponId: string) => requireCoupon(pool, tenantId, couponId),
    list,
    update,
    archive: (tenantId: string, couponId: string) => setFlag(tenantId, couponId, { archived: true }),
    unarchive: (tenantId: string, couponId: string) => setFlag(tenantId, couponId, { archived: false }),
    disable: (tenantId: string, couponId: string) => setFlag(tenantId, couponId, { disabled: true }),
    enable: (tenantId: string, couponId: string) => setFlag(tenantId, couponId, { disabled: false }),
  };
}

export type CouponsService = ReturnType<typeof createCouponsService>;
