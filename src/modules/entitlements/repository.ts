// SQL of the entitlements module's own table (customer-level overrides), and the one statement of
// an entitlement check, composed of the statements its owner modules export.
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { customerOfRefSql } from '../customers/index.js';
import { activeFeatureOfRefSql, featureRefOfJson, type EntitlementValue, type FeatureRef } from '../features/index.js';
import { metricDefinitionOfJson, metricOfIdSql, type MetricDefinition } from '../metrics/index.js';
import { entitlementsOfOwnersSql } from '../plans/index.js';
import type { EmbeddedRead } from './usage-hints.js';
import { customerEntitlementSourcesWhere, entitlementSourcesSql, type EntitlementSourceRow } from '../subscriptions/index.js';

export interface CustomerOverrideRow {
  id: string;
  customer_id: string;
  feature_id: string;
  value: EntitlementValue;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, customer_id, feature_id, value, created_at, updated_at';

export async function customerOverridesOf(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<CustomerOverrideRow[]> {
  if (customerIds.length === 0) return [];
  return scoped(db, tenantId).query<CustomerOverrideRow>(`SELECT ${COLUMNS} FROM customer_entitlement_overrides WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}

export async function upsertCustomerOverride(db: Queryable, tenantId: string, row: CustomerOverrideRow): Promise<CustomerOverrideRow> {
  const saved = await scoped(db, tenantId).one<CustomerOverrideRow>(
    `INSERT INTO customer_entitlement_overrides (tenant_id, id, customer_id, feature_id, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, customer_id, feature_id) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
     RETURNING ${COLUMNS}`,
    [row.id, row.customer_id, row.feature_id, JSON.stringify(row.value), row.created_at, row.updated_at],
  );
  return saved!;
}

export async function deleteCustomerOverride(db: Queryable, tenantId: string, customerId: string, featureId: string): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(`DELETE FROM customer_entitlement_overrides WHERE tenant_id = $1 AND customer_id = $2 AND feature_id = $3 RETURNING id`, [customerId, featureId]);
  return rows.length > 0;
}

/** What one check resolves from, read in one statement (`checkSourcesOf`). */
export interface CheckSources {
  customer: { id: string; alias: string | null; test_clock_id: string | null } | undefined;
  feature: FeatureRef | undefined;
  /** The definition of the feature's metric; undefined for a boolean feature. */
  metric: MetricDefinition | undefined;
  /** The subscriptions in the statuses asked for, or due to move by the date asked for, oldest first. */
  subscriptions: EntitlementSourceRow[];
  /** The feature's values of those subscriptions' plan versions and add-ons. */
  catalogValues: { plan_version_id: string | null; add_on_id: string | null; feature_id: string; value: EntitlementValue }[];
  /** The customer's own override of the feature. */
  ownValue: EntitlementValue | undefined;
  /** The value of the usage read embedded in the statement; undefined without one. */
  usage: unknown;
}

type CheckRow = Partial<EntitlementSourceRow> & {
  check_customer: CheckSources['customer'] | null;
  check_feature: Record<string, unknown> | null;
  check_metric: Record<string, unknown> | null;
  check_own_value: EntitlementValue | null;
  check_catalog_values: CheckSources['catalogValues'];
  check_usage?: unknown;
};

/**
 * Everything an entitlement check resolves from, in ONE statement: the customer a reference
 * names, the active feature another names with its metric's definition, the customer's
 * subscriptions with their add-on rows and overrides, the feature's values of their plan versions
 * and add-ons, and the customer's own override. Each part is its owner module's statement; a
 * check's latency and cost are its round trips (docs/credits-and-alerts.md, "Benchmark").
 * A trial's trialing plan is not read here (the check reads that plan's version when it applies).
 * `usage`, a usage read to make in the same statement (usage-hints.ts), saves the check a second
 * round trip.
 */
export async function checkSourcesOf(
  db: Queryable,
  tenantId: string,
  query: { customerRef: string; featureRef: string; statuses: readonly string[]; dueBy: string },
  usage?: EmbeddedRead,
): Promise<CheckSources> {
  const params: unknown[] = [query.customerRef, query.featureRef, [...query.statuses], query.dueBy];
  const embedded = usage?.(params.length + 2);
  const addOnIds = `ARRAY(SELECT a.add_on_id FROM src, jsonb_to_recordset(src.entitlement_add_ons) AS a(add_on_id text))`;
  const rows = await scoped(db, tenantId).query<CheckRow>(
    `WITH customer AS (${customerOfRefSql('$2', 'id, alias, test_clock_id')}),
     feature AS (${activeFeatureOfRefSql('$3')}),
     src AS (${entitlementSourcesSql(customerEntitlementSourcesWhere('(SELECT id FROM customer)', '$4', '$5'))})
     SELECT src.*,
       (SELECT to_jsonb(customer) FROM customer) AS check_customer,
       (SELECT to_jsonb(feature) FROM feature) AS check_feature,
       (SELECT to_jsonb(m) FROM (${metricOfIdSql('(SELECT metric_id FROM feature)')}) m) AS check_metric,
       (SELECT o.value FROM customer_entitlement_overrides o WHERE o.tenant_id = $1 AND o.customer_id = (SELECT id FROM customer) AND o.feature_id = (SELECT id FROM feature)) AS check_own_value,
       (SELECT coalesce(jsonb_agg(to_jsonb(e)), '[]'::jsonb) FROM (${entitlementsOfOwnersSql('plan_version_id, add_on_id, feature_id, value', { planVersionIds: 'ARRAY(SELECT plan_version_id FROM src)', addOnIds }, '(SELECT id FROM feature)')}) e) AS check_catalog_values
       ${embedded ? `, ${embedded.text} AS check_usage` : ''}
     FROM (SELECT 1) AS one LEFT JOIN src ON true
     ORDER BY src.created_at, src.id`,
    [...params, ...(embedded?.params ?? [])],
  );
  const first = rows[0]!;
  const subscriptions = rows
    .filter((row) => row.id !== null)
    .map(({ check_customer: _c, check_feature: _f, check_metric: _m, check_own_value: _o, check_catalog_values: _v, check_usage: _u, ...source }) => source as EntitlementSourceRow);
  return {
    customer: first.check_customer ?? undefined,
    feature: first.check_feature ? featureRefOfJson(first.check_feature) : undefined,
    metric: first.check_metric ? metricDefinitionOfJson(first.check_metric) : undefined,
    subscriptions,
    catalogValues: first.check_catalog_values,
    ownValue: first.check_own_value ?? undefined,
    usage: first.check_usage,
  };
}
