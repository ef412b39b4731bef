import type { UsageThreshold } from './thresholds.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';
import type { EntitlementRow, EntitlementValue } from './entitlements.js';
import type { PlanFee } from './fees.js';
import type { CustomPropertyValues } from '../custom-properties/index.js';

export type PlanType = 'STANDARD' | 'FREE' | 'CUSTOM';
export type PlanStatus = 'DRAFT' | 'ACTIVE' | 'INACTIVE' | 'ARCHIVED';

export interface PlanRow {
  id: string;
  product_family_id: string;
  name: string;
  description: string | null;
  plan_type: PlanType;
  status: PlanStatus;
  self_service_rank: number | null;
  active_version_id: string | null;
  draft_version_id: string | null;
  custom_properties: CustomPropertyValues;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

export interface MinimumCommitment {
  amount: string;
  scope: Record<string, unknown>;
}

export interface VersionRow {
  id: string;
  plan_id: string;
  version: number;
  is_draft: boolean;
  currency: string;
  net_terms: number;
  billing_cycles: number | null;
  period_start_day: number | null;
  tax_inclusive: boolean;
  trial_duration_days: number | null;
  trial_is_free: boolean;
  trialing_plan_id: string | null;
  minimum_commitment: MinimumCommitment | null;
  usage_thresholds: UsageThreshold[];
  created_at: Date;
  published_at: Date | null;
}

export interface ComponentRow {
  id: string;
  plan_version_id: string;
  position: number;
  name: string;
  product_id: string;
  fee: PlanFee;
}

export interface PlanAddOnRow {
  plan_version_id: string;
  add_on_id: string;
  price_id: string | null;
  max_instances: number | null;
  self_serviceable: boolean | null;
}

/**
 * Plans as other modules' statements may join them (subscriptions show the plan's description):
 * a read-only relation with the columns this module publishes.
 */
export const PLAN_DESCRIPTIONS_RELATION = '(SELECT tenant_id, id, description FROM plans)';

const PLAN_COLUMNS =
  'id, product_family_id, name, description, plan_type, status, self_service_rank, active_version_id, draft_version_id, custom_properties, created_at, updated_at, archived_at';
const VERSION_COLUMNS =
  'id, plan_id, version, is_draft, currency, net_terms, billing_cycles, period_start_day, tax_inclusive, trial_duration_days, trial_is_free, trialing_plan_id, minimum_commitment, usage_thresholds, created_at, published_at';

export async function insertPlan(db: Queryable, tenantId: string, row: PlanRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO plans (tenant_id, ${PLAN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [row.id, row.product_family_id, row.name, row.description, row.plan_type, row.status, row.self_service_rank,
      row.active_version_id, row.draft_version_id, JSON.stringify(row.custom_properties), row.created_at, row.updated_at, row.archived_at],
  );
}

export async function updatePlan(db: Queryable, tenantId: string, row: PlanRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE plans SET name = $3, description = $4, plan_type = $5, status = $6, self_service_rank = $7, active_version_id = $8,
       draft_version_id = $9, updated_at = $10, archived_at = $11, custom_properties = $12
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.name, row.description, row.plan_type, row.status, row.self_service_rank, row.active_version_id, row.draft_version_id, row.updated_at, row.archived_at,
      JSON.stringify(row.custom_properties)],
  );
}

export async function findPlan(db: Queryable, tenantId: string, planId: string, lock = false): Promise<PlanRow | undefined> {
  return scoped(db, tenantId).one<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM plans WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [planId]);
}

/** Whether the tenant has this plan (any status): coupons restricted to plans check it. */
export async function planExists(db: Queryable, tenantId: string, planId: string): Promise<boolean> {
  return (await findPlan(db, tenantId, planId)) !== undefined;
}

export interface PlanFilter {
  productFamilyId?: string;
  search?: string;
  statuses?: PlanStatus[];
  planTypes?: PlanType[];
  /** What `custom_properties` must contain (the custom-properties port's `filter`), or null. */
  properties?: CustomPropertyValues | null;
}

export async function listPlans(
  db: Queryable,
  tenantId: string,
  filter: PlanFilter,
  order: OrderBy<'name' | 'status' | 'plan_type' | 'created_at'>,
  page: PageRequest,
): Promise<{ rows: PlanRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR product_family_id = $2) AND ($3::text IS NULL OR name ILIKE '%' || $3 || '%')
    AND ($4::text[] IS NULL OR status = ANY($4)) AND ($5::text[] IS NULL OR plan_type = ANY($5))${filter.properties ? ' AND custom_properties @> $6::jsonb' : ''}`;
  const params: unknown[] = [filter.productFamilyId ?? null, filter.search ?? null, filter.statuses?.length ? filter.statuses : null, filter.planTypes?.length ? filter.planTypes : null];
  if (filter.properties) params.push(JSON.stringify(filter.properties));
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<PlanRow>({ columns: PLAN_COLUMNS, from: 'plans', where, orderBy: `${order.column} ${direction}, id ${direction}` }, params, page);
}

export async function insertVersion(db: Queryable, tenantId: string, row: VersionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO plan_versions (tenant_id, ${VERSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [row.id, row.plan_id, row.version, row.is_draft, row.currency, row.net_terms, row.billing_cycles, row.period_start_day, row.tax_inclusive,
      row.trial_duration_days, row.trial_is_free, row.trialing_plan_id, row.minimum_commitment === null ? null : JSON.stringify(row.minimum_commitment),
      JSON.stringify(row.usage_thresholds), row.created_at, row.published_at],
  );
}

/** Rewrites a version's settings (only drafts are changed in place). */
export async function updateVersion(db: Queryable, tenantId: string, row: VersionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE plan_versions SET is_draft = $3, currency = $4, net_terms = $5, billing_cycles = $6, period_start_day = $7, tax_inclusive = $8,
       trial_duration_days = $9, trial_is_free = $10, trialing_plan_id = $11, minimum_commitment = $12, published_at = $13,
       usage_thresholds = $14
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.is_draft, row.currency, row.net_terms, row.billing_cycles, row.period_start_day, row.tax_inclusive, row.trial_duration_days,
      row.trial_is_free, row.trialing_plan_id, row.minimum_commitment === null ? null : JSON.stringify(row.minimum_commitment), row.published_at,
      JSON.stringify(row.usage_thresholds)],
  );
}

export async function deleteVersion(db: Queryable, tenantId: string, versionId: string): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM plan_versions WHERE tenant_id = $1 AND id = $2`, [versionId]);
}

export async function findVersion(db: Queryable, tenantId: string, versionId: string): Promise<VersionRow | undefined> {
  return scoped(db, tenantId).one<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM plan_versions WHERE tenant_id = $1 AND id = $2`, [versionId]);
}

export async function findVersionByNumber(db: Queryable, tenantId: string, planId: string, version: number): Promise<VersionRow | undefined> {
  return scoped(db, tenantId).one<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM plan_versions WHERE tenant_id = $1 AND plan_id = $2 AND version = $3`, [planId, version]);
}

export async function findVersions(db: Queryable, tenantId: string, versionIds: string[]): Promise<VersionRow[]> {
  if (versionIds.length === 0) return [];
  return scoped(db, tenantId).query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM plan_versions WHERE tenant_id = $1 AND id = ANY($2)`, [versionIds]);
}

export async function maxVersionNumber(db: Queryable, tenantId: string, planId: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ n: number | null }>(`SELECT max(version) AS n FROM plan_versions WHERE tenant_id = $1 AND plan_id = $2`, [planId]);
  return row?.n ?? 0;
}

export async function listVersions(db: Queryable, tenantId: string, planId: string, page: PageRequest): Promise<{ rows: VersionRow[]; total: number }> {
  return scoped(db, tenantId).page<VersionRow>(
    { columns: VERSION_COLUMNS, from: 'plan_versions', where: 'tenant_id = $1 AND plan_id = $2', orderBy: 'version DESC' },
    [planId],
    page,
  );
}

export async function insertComponents(db: Queryable, tenantId: string, rows: ComponentRow[]): Promise<void> {
  for (const row of rows) {
    const metricId = row.fee.type === 'USAGE' || row.fee.type === 'CAPACITY' ? row.fee.metric_id : null;
    await scoped(db, tenantId).query(
      `INSERT INTO price_components (tenant_id, id, plan_version_id, position, name, product_id, fee_type, fee, metric_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, row.plan_version_id, row.position, row.name, row.product_id, row.fee.type, JSON.stringify(row.fee), metricId],
    );
  }
}

export async function deleteComponents(db: Queryable, tenantId: string, versionId: string): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM price_components WHERE tenant_id = $1 AND plan_version_id = $2`, [versionId]);
}

export async function componentsOf(db: Queryable, tenantId: string, versionIds: string[]): Promise<ComponentRow[]> {
  if (versionIds.length === 0) return [];
  return scoped(db, tenantId).query<ComponentRow>(
    `SELECT id, plan_version_id, position, name, product_id, fee FROM price_components
     WHERE tenant_id = $1 AND plan_version_id = ANY($2) ORDER BY plan_version_id, position`,
    [versionIds],
  );
}

export async function insertPlanAddOns(db: Queryable, tenantId: string, rows: PlanAddOnRow[]): Promise<void> {
  for (const row of rows) {
    await scoped(db, tenantId).query(
      `INSERT INTO plan_version_add_ons (tenant_id, plan_version_id, add_on_id, price_id, max_instances, self_serviceable) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.plan_version_id, row.add_on_id, row.price_id, row.max_instances, row.self_serviceable],
    );
  }
}

export async function deletePlanAddOns(db: Queryable, tenantId: string, versionId: string): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM plan_version_add_ons WHERE tenant_id = $1 AND plan_version_id = $2`, [versionId]);
}

export async function planAddOnsOf(db: Queryable, tenantId: string, versionIds: string[]): Promise<PlanAddOnRow[]> {
  if (versionIds.length === 0) return [];
  return scoped(db, tenantId).query<PlanAddOnRow>(
    `SELECT plan_version_id, add_on_id, price_id, max_instances, self_serviceable FROM plan_version_add_ons
     WHERE tenant_id = $1 AND plan_version_id = ANY($2) ORDER BY plan_version_id, add_on_id`,
    [versionIds],
  );
}

// Entitlements of plan versions and add-ons share one table; `owner` says which column holds the owner.
export type EntitlementOwner = { planVersionId: string } | { addOnId: string };

function ownerColumn(owner: EntitlementOwner): [string, string] {
  return 'planVersionId' in owner ? ['plan_version_id', owner.planVersionId] : ['add_on_id', owner.addOnId];
}

export async function insertEntitlements(
  db: Queryable,
  tenantId: string,
  owner: EntitlementOwner,
  rows: { id: string; feature_id: string; value: EntitlementValue; created_at: Date; updated_at: Date }[],
): Promise<void> {
  const [column, ownerId] = ownerColumn(owner);
  for (const [position, row] of rows.entries()) {
    await scoped(db, tenantId).query(
      `INSERT INTO catalog_entitlements (tenant_id, id, feature_id, ${column}, value, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [row.id, row.feature_id, ownerId, JSON.stringify(row.value), position, row.created_at, row.updated_at],
    );
  }
}

export async function deleteEntitlements(db: Queryable, tenantId: string, owner: EntitlementOwner): Promise<void> {
  const [column, ownerId] = ownerColumn(owner);
  await scoped(db, tenantId).query(`DELETE FROM catalog_entitlements WHERE tenant_id = $1 AND ${column} = $2`, [ownerId]);
}

export async function entitlementsOf(db: Queryable, tenantId: string, owner: 'plan_version_id' | 'add_on_id', ownerIds: string[]): Promise<(EntitlementRow & { owner_id: string })[]> {
  const rows = await entitlementsOfOwners(db, tenantId, owner === 'plan_version_id' ? { planVersionIds: ownerIds, addOnIds: [] } : { planVersionIds: [], addOnIds: ownerIds });
  return rows.map(({ plan_version_id, add_on_id, ...row }) => ({ ...row, owner_id: (owner === 'plan_version_id' ? plan_version_id : add_on_id)! }));
}

/**
 * Entitlements of some plan versions and some add-ons in ONE statement (a metered entitlement
 * check needs both, and its latency is its chain of round trips); each row names its owner.
 */
export async function entitlementsOfOwners(
  db: Queryable,
  tenantId: string,
  owners: { planVersionIds: readonly string[]; addOnIds: readonly string[] },
): Promise<(EntitlementRow & { plan_version_id: string | null; add_on_id: string | null })[]> {
  if (owners.planVersionIds.length === 0 && owners.addOnIds.length === 0) return [];
  return scoped(db, tenantId).query<EntitlementRow & { plan_version_id: string | null; add_on_id: string | null }>(
    entitlementsOfOwnersSql('id, feature_id, value, created_at, updated_at, plan_version_id, add_on_id', { planVersionIds: '$2::text[]', addOnIds: '$3::text[]' }),
    [[...owners.planVersionIds], [...owners.addOnIds]],
  );
}

/**
 * The statement reading the entitlements of some plan versions and add-ons (SQL arrays of their
 * ids), in the order `entitlementsOfOwners` gives, optionally of one feature only: for statements
 * of other modules that read them with their own rows in one round trip. Binds the tenant as $1.
 */
export function entitlementsOfOwnersSql(columns: string, owners: { planVersionIds: string; addOnIds: string }, featureIdSql?: string): string {
  return `SELECT ${columns} FROM catalog_entitlements
     WHERE tenant_id = $1 AND (plan_version_id = ANY(${owners.planVersionIds}) OR add_on_id = ANY(${owners.addOnIds}))${featureIdSql ? ` AND feature_id = ${featureIdSql}` : ''}
     ORDER BY position, created_at, id`;
}
