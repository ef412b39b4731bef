import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import { CUSTOMER_NAMES_RELATION, onTestClockSql } from '../customers/index.js';
import type { EntitlementValue as FeatureEntitlementValue } from '../features/index.js';
import { PLAN_DESCRIPTIONS_RELATION, type UsageThreshold } from '../plans/index.js';
import type { BillingTerm, SubscriptionStatus } from '../../domain/index.js';
import type { FeeTerm, SubscriptionFee } from './fees.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';

export interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version_id: string;
  plan_name: string;
  plan_version: number;
  currency: string;
  status: SubscriptionStatus;
  next_transition_on: string | null;
  start_date: string;
  end_date: string | null;
  billing_start_date: string;
  billing_day_anchor: number;
  period: BillingTerm;
  net_terms: number;
  trial_duration_days: number | null;
  trial_is_free: boolean;
  trialing_plan_id: string | null;
  trial_end_date: string | null;
  skip_past_invoices: boolean;
  invoice_memo: string | null;
  purchase_order: string | null;
  auto_advance_invoices: boolean;
  charge_automatically: boolean;
  payment_methods_config: Record<string, unknown> | null;
  mrr_minor: bigint;
  activated_at: Date | null;
  cancel_requested_at: Date | null;
  cancel_effective_date: string | null;
  cancellation_reason: string | null;
  ended_at: Date | null;
  scheduled_plan_change: { plan_version_id: string; effective_date: string; requested_at: string } | null;
  checkout_session_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Set while an invoice of the subscription is overdue (payments' dunning); shown as PAST_DUE. */
  past_due_since: Date | null;
  /** Spend thresholds (progressive billing), null = none (docs/credits-and-alerts.md). */
  usage_thresholds: UsageThreshold[] | null;
  /** Checked by custom-properties' port on every API write (docs/custom-properties.md). */
  custom_properties: CustomPropertyValues;
}

export interface ComponentRow {
  id: string;
  subscription_id: string;
  price_component_id: string | null;
  product_id: string | null;
  name: string;
  fee: SubscriptionFee;
  period: FeeTerm;
  /** The plan component's position: components list and bill in plan order. */
  position: number;
  effective_from: string;
  effective_to: string | null;
  created_at: Date;
}

export interface AddOnRow {
  id: string;
  subscription_id: string;
  add_on_id: string;
  product_id: string | null;
  price_id: string | null;
  name: string;
  fee: SubscriptionFee;
  period: FeeTerm;
  quantity: number;
  effective_from: string;
  effective_to: string | null;
  created_at: Date;
}

export interface CouponRow {
  id: string;
  subscription_id: string;
  coupon_id: string;
  coupon: Record<string, unknown>;
  is_active: boolean;
  applied_count: number;
  applied_amount: string | null;
  last_applied_at: Date | null;
  created_at: Date;
}

/**
 * Subscription columns plus the customer's name and alias (shown on every subscription), and the
 * customer's test clock (the subscription runs on it; absent on a view built before it is read).
 */
export type SubscriptionView = SubscriptionRow & { customer_name: string; customer_alias: string | null; plan_description?: string | null; test_clock_id?: string | null };

const COLUMNS = `s.id, s.customer_id, s.plan_id, s.plan_version_id, s.plan_name, s.plan_version, s.currency, s.status,
  s.next_transition_on, s.start_date, s.end_date, s.billing_start_date, s.billing_day_anchor, s.period,
  s.net_terms, s.trial_duration_days, s.trial_is_free, s.trialing_plan_id, s.trial_end_date, s.skip_past_invoices, s.invoice_memo,
  s.purchase_order, s.auto_advance_invoices, s.charge_automatically, s.payment_methods_config, s.mrr_minor, s.activated_at,
  s.cancel_requested_at, s.cancel_effective_date, s.cancellation_reason, s.ended_at, s.scheduled_plan_change,
  s.checkout_session_id, s.created_at, s.updated_at, s.past_due_since, s.usage_thresholds, s.custom_properties, c.name AS customer_name, c.alias AS customer_alias, pl.description AS plan_description,
  c.test_clock_id`;
const FROM = `subscriptions s JOIN ${CUSTOMER_NAMES_RELATION} c ON c.id = s.customer_id AND c.tenant_id = s.tenant_id
  LEFT JOIN ${PLAN_DESCRIPTIONS_RELATION} pl ON pl.id = s.plan_id AND pl.tenant_id = s.tenant_id`;

const SUB_FIELDS: (keyof SubscriptionRow)[] = [
  'id', 'customer_id', 'plan_id', 'plan_version_id', 'plan_name', 'plan_version', 'currency', 'status', 'next_transition_on',
  'start_date', 'end_date', 'billing_start_date', 'billing_day_anchor', 'period', 'net_terms',
  'trial_duration_days', 'trial_is_free', 'trialing_plan_id', 'trial_end_date', 'skip_past_invoices', 'invoice_memo',
  'purchase_order', 'auto_advance_invoices', 'charge_automatically', 'payment_methods_config', 'mrr_minor', 'activated_at',
  'cancel_requested_at', 'cancel_effective_date', 'cancellation_reason', 'ended_at', 'scheduled_plan_change',
  'checkout_session_id', 'created_at', 'updated_at', 'past_due_since', 'usage_thresholds', 'custom_properties',
];
const JSON_FIELDS = new Set<keyof SubscriptionRow>(['payment_methods_config', 'scheduled_plan_change', 'usage_thresholds', 'custom_properties']);

function values(row: SubscriptionRow): unknown[] {
  return SUB_FIELDS.map((field) => (JSON_FIELDS.has(field) && row[field] !== null ? JSON.stringify(row[field]) : row[field]));
}

export async function insertSubscription(db: Queryable, tenantId: string, row: SubscriptionRow): Promise<void> {
  const placeholders = SUB_FIELDS.map((_, i) => `$${i + 2}`).join(', ');
  await scoped(db, tenantId).query(`INSERT INTO subscriptions (tenant_id, ${SUB_FIELDS.join(', ')}) VALUES ($1, ${placeholders})`, values(row));
}

/** Writes every column of the row (id and created_at never change). */
export async function updateSubscription(db: Queryable, tenantId: string, row: SubscriptionRow): Promise<void> {
  const sets = SUB_FIELDS.map((field, i) => `${field} = $${i + 2}`).join(', ');
  await scoped(db, tenantId).query(`UPDATE subscriptions SET ${sets} WHERE tenant_id = $1 AND id = $2`, values(row));
}

export async function findSubscription(db: Queryable, tenantId: string, id: string, lock = false): Promise<SubscriptionView | undefined> {
  return scoped(db, tenantId).one<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND s.id = $2${lock ? ' FOR UPDATE OF s' : ''}`,
    [id],
  );
}

export async function findByCheckoutSession(db: Queryable, tenantId: string, sessionId: string): Promise<SubscriptionView | undefined> {
  return scoped(db, tenantId).one<SubscriptionView>(`SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND s.checkout_session_id = $2`, [sessionId]);
}

/** The status a subscription shows (shownSubscriptionStatus in SQL): list filters match what the answers say. */
const SHOWN_STATUS_SQL = `(CASE WHEN s.past_due_since IS NOT NULL AND s.status IN ('ACTIVE', 'TRIAL_ACTIVE') THEN 'PAST_DUE' ELSE s.status END)`;

export type SubscriptionOrderColumn = 'customer_name' | 'plan_name' | 'mrr' | 'billing_start_date' | 'end_date' | 'status' | 'created_at';
const ORDER_SQL: Record<SubscriptionOrderColumn, string> = {
  customer_name: 'lower(c.name)',
  plan_name: 'lower(s.plan_name)',
  mrr: 's.mrr_minor',
  billing_start_date: 's.billing_start_date',
  end_date: 's.end_date',
  status: 's.status',
  created_at: 's.created_at',
};

export async function listSubscriptions(
  db: Queryable,
  tenantId: string,
  filter: { customerId?: string; planId?: string; statuses?: string[]; properties?: CustomPropertyValues | null },
  order: OrderBy<SubscriptionOrderColumn>,
  page: PageRequest,
): Promise<{ rows: SubscriptionView[]; total: number }> {
  const where = `s.tenant_id = $1 AND ($2::text IS NULL OR s.customer_id = $2) AND ($3::text IS NULL OR s.plan_id = $3)
    AND ($4::text[] IS NULL OR ${SHOWN_STATUS_SQL} = ANY($4))${filter.properties ? ' AND s.custom_properties @> $5::jsonb' : ''}`;
  const params: unknown[] = [filter.customerId ?? null, filter.planId ?? null, filter.statuses?.length ? filter.statuses : null];
  // `@>` is what the GIN index of migration 0220 serves
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  const limit = params.length + 2;
  const rows = await scoped(db, tenantId).query<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY ${ORDER_SQL[order.column]} ${direction} NULLS LAST, s.id ${direction} LIMIT $${limit} OFFSET $${limit + 1}`,
    [...params, page.perPage, page.page * page.perPage],
  );
  const count = await scoped(db, tenantId).one<{ n: bigint }>(`SELECT count(*) AS n FROM ${FROM} WHERE ${where}`, params);
  return { rows, total: Number(count?.n ?? 0n) };
}

/** Every subscription of the tenant (for invoicing), oldest first. */
/** The subscriptions of the customers on one test clock (null: on none), optionally only in these statuses. */
export async function allSubscriptions(db: Queryable, tenantId: string, testClockId: string | null, statuses?: readonly string[]): Promise<SubscriptionView[]> {
  return scoped(db, tenantId).query<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND ($2::text[] IS NULL OR s.status = ANY($2)) AND c.test_clock_id IS NOT DISTINCT FROM $3::text
     ORDER BY s.created_at, s.id`,
    [statuses?.length ? statuses : null, testClockId],
  );
}

/**
 * One page of `allSubscriptions` (no status filter), in its order: those after `after` (the
 * previous page's last id), at most `limit`. Keyset paging, so a run over many subscriptions
 * holds one page at a time.
 */
export async function subscriptionsPage(db: Queryable, tenantId: string, testClockId: string | null, after: string | null, limit: number): Promise<SubscriptionView[]> {
  // Two statements rather than `($3 IS NULL OR ...)`: under the OR the keyset was no index
  // condition, so every page read the tenant's subscriptions from the first (a bill run's pages
  // cost more the further they were; docs/performance.md, "Bill run").
  const keyset = after === null ? '' : 'AND (s.created_at, s.id) > (SELECT a.created_at, a.id FROM subscriptions a WHERE a.tenant_id = $1 AND a.id = $4)';
  // `IS NULL` or `=`, not `IS NOT DISTINCT FROM $2`: the planner estimated one customer for the
  // latter, joined every subscription of the tenant to its customer and sorted them all for each
  // page (190 ms a page at 30,000 subscriptions, a quadratic bill run); from the customers'
  // statistics it reads the subscriptions in order and stops at the page's end.
  const population = testClockId === null ? 'c.test_clock_id IS NULL AND $2::text IS NULL' : 'c.test_clock_id = $2::text';
  return scoped(db, tenantId).query<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND ${population} ${keyset}
     ORDER BY s.created_at, s.id LIMIT $3`,
    after === null ? [testClockId, limit] : [testClockId, limit, after],
  );
}

/** Several subscriptions by id, oldest first; `lock` holds their rows for the caller's transaction. */
export async function subscriptionsByIds(db: Queryable, tenantId: string, ids: readonly string[], lock = false): Promise<SubscriptionView[]> {
  return scoped(db, tenantId).query<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND s.id = ANY($2::text[]) ORDER BY s.created_at, s.id${lock ? ' FOR UPDATE OF s' : ''}`,
    [ids],
  );
}

/** One customer's subscriptions (optionally only these statuses), oldest first. */
export async function subscriptionsOfCustomer(db: Queryable, tenantId: string, customerId: string, statuses?: readonly string[]): Promise<SubscriptionView[]> {
  return scoped(db, tenantId).query<SubscriptionView>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.tenant_id = $1 AND s.customer_id = $2 AND ($3::text[] IS NULL OR s.status = ANY($3)) ORDER BY s.created_at, s.id`,
    [customerId, statuses?.length ? [...statuses] : null],
  );
}

/** Ids of the tenant's subscriptions whose status must move on or before `today`. */
/** Subscriptions of the customers on one test clock (null: on none) whose status is due to move by `today`. */
export async function dueForTransition(db: Queryable, tenantId: string, today: string, testClockId: string | null): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `SELECT id FROM subscriptions WHERE tenant_id = $1 AND next_transition_on <= $2::date AND ${onTestClockSql('subscriptions', '$3')} ORDER BY id`,
    [today, testClockId],
  );
  return rows.map((r) => r.id);
}

/** The earliest date a status of the subscriptions of one test clock's customers (null: on none) will move, or null. */
export async function nextTransitionDate(db: Queryable, tenantId: string, testClockId: string | null): Promise<string | null> {
  const row = await scoped(db, tenantId).one<{ next_on: string | null }>(
    `SELECT min(next_transition_on)::text AS next_on FROM subscriptions WHERE tenant_id = $1 AND ${onTestClockSql('subscriptions', '$2')}`,
    [testClockId],
  );
  return row?.next_on ?? null;
}

/**
 * Tenants that have a subscription on no test clock whose status is due to move by `today`.
 * Crosses tenants on purpose: the periodic job looks for work everywhere, then moves each
 * tenant's subscriptions through the tenant-scoped statements above.
 */
export async function tenantsWithDueTransitions(db: Queryable, today: string): Promise<string[]> {
  const result = await db.query<{ tenant_id: string }>(
    `SELECT DISTINCT tenant_id FROM subscriptions WHERE next_transition_on <= $1::date AND ${onTestClockSql('subscriptions', 'NULL')} ORDER BY tenant_id`,
    [today],
  );
  return result.rows.map((r) => r.tenant_id);
}

/** Every tenant that has a subscription, by id. Cross-tenant on purpose: the billing scheduler serves them all. */
export async function tenantsWithSubscriptions(db: Queryable): Promise<string[]> {
  const result = await db.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM subscriptions ORDER BY tenant_id`);
  return result.rows.map((r) => r.tenant_id);
}

/**
 * Deletes the subscriptions of these customers with their components, add-ons, coupons and
 * overrides (a test clock's deletion); returns the deleted ids.
 */
export async function deleteSubscriptionsOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(`DELETE FROM subscriptions WHERE tenant_id = $1 AND customer_id = ANY($2::text[]) RETURNING id`, [customerIds]);
  return rows.map((row) => row.id);
}

export async function countForCustomer(db: Queryable, tenantId: string, customerId: string, liveStatuses: readonly string[]): Promise<{ live: number; total: number }> {
  const row = await scoped(db, tenantId).one<{ live: bigint; total: bigint }>(
    `SELECT count(*) FILTER (WHERE status = ANY($3)) AS live, count(*) AS total FROM subscriptions WHERE tenant_id = $1 AND customer_id = $2`,
    [customerId, [...liveStatuses]],
  );
  return { live: Number(row?.live ?? 0n), total: Number(row?.total ?? 0n) };
}

export async function insertComponents(db: Queryable, tenantId: string, rows: ComponentRow[]): Promise<void> {
  for (const r of rows) {
    await scoped(db, tenantId).query(
      `INSERT INTO subscription_components (tenant_id, id, subscription_id, price_component_id, product_id, name, fee, period, position, effective_from, effective_to, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [r.id, r.subscription_id, r.price_component_id, r.product_id, r.name, JSON.stringify(r.fee), r.period, r.position, r.effective_from, r.effective_to, r.created_at],
    );
  }
}

export async function componentsOf(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<ComponentRow[]> {
  return scoped(db, tenantId).query<ComponentRow>(
    `SELECT id, subscription_id, price_component_id, product_id, name, fee, period, position, effective_from, effective_to, created_at
     FROM subscription_components WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY position, effective_from, created_at, id`,
    [subscriptionIds],
  );
}

/**
 * Closes fee rows (plan components or add-ons) still open after `date` (effective_to = date);
 * rows starting on or after `date` are dropped.
 */
async function closeFeeRows(db: Queryable, tenantId: string, table: 'subscription_components' | 'subscription_add_ons', ids: string[], date: string): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM ${table} WHERE tenant_id = $1 AND id = ANY($2) AND effective_from >= $3::date`, [ids, date]);
  await scoped(db, tenantId).query(`UPDATE ${table} SET effective_to = $3::date WHERE tenant_id = $1 AND id = ANY($2) AND (effective_to IS NULL OR effective_to > $3::date)`, [ids, date]);
}

export async function closeComponents(db: Queryable, tenantId: string, ids: string[], date: string): Promise<void> {
  await closeFeeRows(db, tenantId, 'subscription_components', ids, date);
}

export async function insertAddOns(db: Queryable, tenantId: string, rows: AddOnRow[]): Promise<void> {
  for (const r of rows) {
    await scoped(db, tenantId).query(
      `INSERT INTO subscription_add_ons (tenant_id, id, subscription_id, add_on_id, product_id, price_id, name, fee, period, quantity, effective_from, effective_to, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [r.id, r.subscription_id, r.add_on_id, r.product_id, r.price_id, r.name, JSON.stringify(r.fee), r.period, r.quantity, r.effective_from, r.effective_to, r.created_at],
    );
  }
}

export async function addOnsOf(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<AddOnRow[]> {
  return scoped(db, tenantId).query<AddOnRow>(
    `SELECT id, subscription_id, add_on_id, product_id, price_id, name, fee, period, quantity, effective_from, effective_to, created_at
     FROM subscription_add_ons WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY effective_from, created_at, id`,
    [subscriptionIds],
  );
}

export async function closeAddOns(db: Queryable, tenantId: string, ids: string[], date: string): Promise<void> {
  await closeFeeRows(db, tenantId, 'subscription_add_ons', ids, date);
}

export async function insertCoupon(db: Queryable, tenantId: string, row: CouponRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO subscription_coupons (tenant_id, id, subscription_id, coupon_id, coupon, is_active, applied_count, applied_amount, last_applied_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.subscription_id, row.coupon_id, JSON.stringify(row.coupon), row.is_active, row.applied_count, row.applied_amount, row.last_applied_at, row.created_at],
  );
}

export async function couponsOf(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<CouponRow[]> {
  return scoped(db, tenantId).query<CouponRow>(
    `SELECT id, subscription_id, coupon_id, coupon, is_active, applied_count, applied_amount, last_applied_at, created_at
     FROM subscription_coupons WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY created_at, id`,
    [subscriptionIds],
  );
}

/** A subscription's entitlement override of one feature (entitlements module, highest priority). */
export interface OverrideRow {
  id: string;
  subscription_id: string;
  feature_id: string;
  value: FeatureEntitlementValue;
  created_at: Date;
  updated_at: Date;
}

const OVERRIDE_COLUMNS = 'id, subscription_id, feature_id, value, created_at, updated_at';

export async function overridesOf(db: Queryable, tenantId: string, subscriptionIds: string[]): Promise<OverrideRow[]> {
  if (subscriptionIds.length === 0) return [];
  return scoped(db, tenantId).query<OverrideRow>(
    `SELECT ${OVERRIDE_COLUMNS} FROM subscription_entitlement_overrides WHERE tenant_id = $1 AND subscription_id = ANY($2) ORDER BY created_at, feature_id`,
    [subscriptionIds],
  );
}

/** An add-on row of a subscription as far as entitlements need it: which add-on, and when it is in force. */
export interface EntitlementAddOn {
  add_on_id: string;
  effective_from: string;
  effective_to: string | null;
}

/** A subscription with what its entitlements are resolved from: its add-on rows and its entitlement overrides. */
export type EntitlementSourceRow = SubscriptionView & { entitlement_add_ons: EntitlementAddOn[]; entitlement_overrides: { feature_id: string; value: FeatureEntitlementValue }[] };

/**
 * Subscriptions (by ids, or one customer's in some statuses, oldest first) with their add-on rows
 * and entitlement overrides, in ONE statement: a metered entitlement check's latency is its chain
 * of round trips. The rows keep the order of `addOnsOf` and `overridesOf`.
 */
export async function entitlementSourcesOf(
  db: Queryable,
  tenantId: string,
  filter: { ids: readonly string[] } | { customerId: string; statuses?: readonly string[]; orDueBy?: string },
): Promise<EntitlementSourceRow[]> {
  if ('ids' in filter) return scoped(db, tenantId).query<EntitlementSourceRow>(entitlementSourcesSql('s.id = ANY($2::text[])'), [[...filter.ids]]);
  return scoped(db, tenantId).query<EntitlementSourceRow>(entitlementSourcesSql(customerEntitlementSourcesWhere('$2', '$3', '$4')), [
    filter.customerId,
    filter.statuses?.length ? [...filter.statuses] : null,
    // `orDueBy`: also the subscriptions whose status is due to move by that date, whatever it is now
    filter.orDueBy ?? null,
  ]);
}

/**
 * The condition on `s` of one customer's subscriptions (SQL expressions: the customer id, the
 * statuses as a text array or null for all, and a date by which a status move makes a subscription
 * count whatever its status, or null).
 */
export function customerEntitlementSourcesWhere(customerIdSql: string, statusesSql: string, dueBySql: string): string {
  return `s.customer_id = ${customerIdSql} AND (${statusesSql}::text[] IS NULL OR s.status = ANY(${statusesSql}::text[]) OR s.next_transition_on <= ${dueBySql}::date)`;
}

/**
 * The statement of `entitlementSourcesOf` for a condition on `s`, oldest first: for statements of
 * other modules that read these rows with their own in one round trip. Binds the tenant as $1.
 */
export function entitlementSourcesSql(whereSql: string): string {
  return `SELECT ${COLUMNS},
       coalesce((SELECT jsonb_agg(jsonb_build_object('add_on_id', a.add_on_id, 'effective_from', a.effective_from, 'effective_to', a.effective_to) ORDER BY a.effective_from, a.created_at, a.id)
         FROM subscription_add_ons a WHERE a.tenant_id = s.tenant_id AND a.subscription_id = s.id), '[]'::jsonb) AS entitlement_add_ons,
       coalesce((SELECT jsonb_agg(jsonb_build_object('feature_id', o.feature_id, 'value', o.value) ORDER BY o.created_at, o.feature_id)
         FROM subscription_entitlement_overrides o WHERE o.tenant_id = s.tenant_id AND o.subscription_id = s.id), '[]'::jsonb) AS entitlement_overrides
     FROM ${FROM} WHERE s.tenant_id = $1 AND ${whereSql} ORDER BY s.created_at, s.id`;
}

/** Sets the override of one feature (one per subscription and feature); returns the row. */
export async function upsertOverride(db: Queryable, tenantId: string, row: OverrideRow): Promise<OverrideRow> {
  const saved = await scoped(db, tenantId).one<OverrideRow>(
    `INSERT INTO subscription_entitlement_overrides (tenant_id, id, subscription_id, feature_id, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, subscription_id, feature_id) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
     RETURNING ${OVERRIDE_COLUMNS}`,
    [row.id, row.subscription_id, row.feature_id, JSON.stringify(row.value), row.created_at, row.updated_at],
  );
  return saved!;
}

export async function deleteOverride(db: Queryable, tenantId: string, subscriptionId: string, featureId: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `DELETE FROM subscription_entitlement_overrides WHERE tenant_id = $1 AND subscription_id = $2 AND feature_id = $3 RETURNING id`,
    [subscriptionId, featureId],
  );
  return rows.length > 0;
}

/** Subscription entitlement overrides as reference Entitlement rows. */
export async function entitlementRowsOf(db: Queryable, tenantId: string, subscriptionId: string): Promise<{ id: string; feature_id: string; value: FeatureEntitlementValue; created_at: Date; updated_at: Date }[]> {
  return scoped(db, tenantId).query(
    `SELECT id, feature_id, value, created_at, updated_at FROM subscription_entitlement_overrides WHERE tenant_id = $1 AND subscription_id = $2 ORDER BY created_at, feature_id`,
    [subscriptionId],
  );
}
