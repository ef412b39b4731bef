// Effective entitlements of a subscription or a customer (priority in resolve.ts), the
// subscription and customer overrides that sit on top, and the check of one feature. The
// entitlement lists read consumption through a function the composition root wires to the usage
// module; the check reads it through the usage module's bulk aggregation (the path invoicing
// bills through) with the customer's references already known, read in advance (usage-hints.ts).
import { today, type Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { PlannedOncePool, Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { isInForce } from '../../domain/index.js';
import { findCustomer } from '../customers/index.js';
import { findFeature, parseEntitlementValue, type OveragePolicy } from '../features/index.js';
import { checkSourcesOf, customerOverridesOf, deleteCustomerOverride, upsertCustomerOverride, type CheckSources, type CustomerOverrideRow } from './repository.js';
import { Dec, parseDecimal } from '../../kernel/money.js';
import {
  catalogFeatureOf,
  catalogValuesOf,
  currentPeriodOf,
  deleteEntitlementOverride,
  entitlementOverridesOf,
  entitlementSourcesOf,
  loadSubscriptionRecord,
  upsertEntitlementOverride,
  type CatalogFeature,
  type CatalogValues,
  type EntitlementOverrideRow,
  type EntitlementSourceRow,
  type SubscriptionCatalog,
  type SubscriptionRecord,
} from '../subscriptions/index.js';
import { mergeSameLevel, remainingOf, resolveLevels, usageWindow, type EntitlementValue, type ResetPeriod } from './resolve.js';
import { createUsageHints } from './usage-hints.js';

/** Usage of one customer for one metric in [from, to), as a decimal string; undefined when unknown. */
export type ConsumedUsage = (tenantId: string, query: { customerId: string; metricId: string; from: Date; to: Date }) => Promise<string | undefined>;

export interface EffectiveEntitlement {
  feature: { id: string; code: string; name: string; product: { id: string; name: string } | null };
  value:
    | { type: 'BOOLEAN'; enabled: boolean }
    | {
        type: 'METERED';
        spec: { enabled: boolean; limit: string | null; metric_id: string; reset_period: ResetPeriod };
        usage: { consumed: string | null; remaining: string | null; reset_at: string | null };
      };
}

const SERVING = ['TRIAL_ACTIVE', 'ACTIVE'] as const;

/** What `levelMapsOf` need not read again: the customer's own overrides, and some owners' catalog values. */
interface KnownValues {
  own: Map<string, EntitlementValue>;
  catalog: { planVersionIds: ReadonlySet<string>; addOnIds: ReadonlySet<string>; values: CatalogValues };
}

/** Where an effective value came from, lowest priority first. */
export const ENTITLEMENT_SOURCES = ['FEATURE_DEFAULT', 'PLAN_VERSION', 'ADD_ON', 'SUBSCRIPTION_OVERRIDE', 'CUSTOMER_OVERRIDE'] as const;
export type EntitlementSource = (typeof ENTITLEMENT_SOURCES)[number];

/** Why a check answered as it did. */
export type CheckReason = 'NOT_ENTITLED' | 'DISABLED' | 'WITHIN_LIMIT' | 'UNLIMITED' | 'LIMIT_REACHED' | 'OVERAGE_ALLOWED';

/** The answer of GET /api/v1/customers/{id_or_alias}/entitlements/{feature_code}. */
export interface EntitlementCheck {
  customer_id: string;
  feature: { id: string; code: string; name: string };
  type: 'BOOLEAN' | 'METERED';
  /** May the customer use the feature (one more unit of a metered one) now. */
  allowed: boolean;
  reason: CheckReason;
  source: EntitlementSource | null;
  enabled: boolean;
  metric_id: string | null;
  used: string | null;
  limit: string | null;
  remaining: string | null;
  /** Usage over the limit (billed under ALLOW_AND_BILL); "0" when within it, null when unlimited or not metered. */
  overage: string | null;
  overage_policy: OveragePolicy | null;
  period_start: string | null;
  reset_at: string | null;
}

export interface EntitlementsDeps {
  pool: Pool;
  clock: Clock;
  catalog: SubscriptionCatalog;
  /** Moves subscription statuses with the clock before reading (subscriptions service). */
  advanceDue: (tenantId: string) => Promise<unknown>;
  consumed?: ConsumedUsage;
  /** Connections that plan the check's two reads once (db/pool.ts `createPlannedOncePool`). */
  plannedOnce: PlannedOncePool;
}

export function createEntitlementsService(deps: EntitlementsDeps) {
  const { pool, clock, catalog, plannedOnce } = deps;
  const usageHints = createUsageHints(plannedOnce);

  /** The plan version whose entitlements apply: the trialing plan's during a trial that names one. */
  async function entitlementVersionId(db: Queryable, tenantId: string, sub: EntitlementSourceRow): Promise<string> {
    if (sub.status === 'TRIAL_ACTIVE' && sub.trialing_plan_id) {
      const trialing = await catalog.findPlanVersion(db, tenantId, { planId: sub.trialing_plan_id });
      if (trialing) return trialing.versionId;
    }
    return sub.plan_version_id;
  }

  /**
   * Levels (low -> high, ENTITLEMENT_SOURCES) of several subscriptions of one customer, each level
   * merged across them, the customer's own overrides on top. The subscriptions come with their
   * add-on rows and overrides (`entitlementSourcesOf`); the plan versions' and add-ons' values are
   * then one statement, beside the customer's overrides, unless `known` already holds them (a
   * check's one statement; a trial's trialing plan version is not among them and is read here).
   */
  async function levelMapsOf(db: Queryable, tenantId: string, customerId: string, subs: EntitlementSourceRow[], features: CatalogFeature[], known?: KnownValues): Promise<Map<string, EntitlementValue>[]> {
    const todayDate = today(clock);
    const versionIds = await Promise.all(subs.map((s) => entitlementVersionId(db, tenantId, s)));
    const addOnIds = subs.flatMap((s) => s.entitlement_add_ons.filter((a) => isInForce(a.effective_from, a.effective_to, todayDate)).map((a) => a.add_on_id));
    const owners = { planVersionIds: [...new Set(versionIds)], addOnIds: [...new Set(addOnIds)] };
    const knownOwners = known && owners.planVersionIds.every((id) => known.catalog.planVersionIds.has(id)) && owners.addOnIds.every((id) => known.catalog.addOnIds.has(id));
    const [catalogValues, ownOverrides] = await Promise.all([
      knownOwners ? known.catalog.values : catalog.entitlementsOf(db, tenantId, owners),
      known ? known.own : customerOverridesOf(db, tenantId, [customerId]).then((rows) => new Map(rows.map((o) => [o.feature_id, o.value]))),
    ]);
    const defaults = new Map(features.filter((f) => f.defaultValue).map((f) => [f.id, f.defaultValue as EntitlementValue]));
    const plan = mergeSameLevel(versionIds.map((id) => (catalogValues.planVersions.get(id) ?? new Map()) as Map<string, EntitlementValue>));
    const addOns = mergeSameLevel(addOnIds.map((id) => (catalogValues.addOns.get(id) ?? new Map()) as Map<string, EntitlementValue>));
    const overridden = mergeSameLevel(subs.map((s) => new Map(s.entitlement_overrides.map((o) => [o.feature_id, o.value as EntitlementValue]))));
    return [defaults, plan, addOns, overridden, ownOverrides];
  }

  /** The values a check's one statement read (`checkSourcesOf`), in the shapes `levelMapsOf` uses. */
  function knownValuesOf(sources: CheckSources, feature: CatalogFeature): KnownValues {
    return {
      own: new Map(sources.ownValue ? [[feature.id, sources.ownValue]] : []),
      catalog: {
        planVersionIds: new Set(sources.subscriptions.map((s) => s.plan_version_id)),
        addOnIds: new Set(sources.subscriptions.flatMap((s) => s.entitlement_add_ons.map((a) => a.add_on_id))),
        values: catalogValuesOf(sources.catalogValues),
      },
    };
  }

  async function levelsOf(db: Queryable, tenantId: string, customerId: string, subs: EntitlementSourceRow[], features: CatalogFeature[]) {
    return resolveLevels(await levelMapsOf(db, tenantId, customerId, subs, features));
  }

  async function present(tenantId: string, customerId: string, resolved: Map<string, EntitlementValue>, features: CatalogFeature[], sub: EntitlementSourceRow): Promise<EffectiveEntitlement[]> {
    const now = clock.now();
    const period = currentPeriodOf(sub, today(clock));
    const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);
    const out: EffectiveEntitlement[] = [];
    // Only active features are shown; the list follows the feature code order.
    for (const feature of features) {
      const value = resolved.get(feature.id);
      if (!value) continue;
      const ref = { id: feature.id, code: feature.code, name: feature.name, product: feature.product };
      if (value.type === 'BOOLEAN' || feature.metricId === null) {
        out.push({ feature: ref, value: { type: 'BOOLEAN', enabled: value.enabled } });
        continue;
      }
      const win = usageWindow(value.reset_period, { periodStart: midnight(period.start), periodEnd: period.end ? midnight(period.end) : null, subscriptionStart: midnight(sub.start_date) }, now);
      const consumed = deps.consumed ? ((await deps.consumed(tenantId, { customerId, metricId: feature.metricId, from: win.from, to: now })) ?? null) : null;
      out.push({
        feature: ref,
        value: {
          type: 'METERED',
          spec: { enabled: value.enabled, limit: value.limit, metric_id: feature.metricId, reset_period: value.reset_period },
          usage: { consumed, remaining: remainingOf(value.limit, consumed), reset_at: win.resetAt ? win.resetAt.toISOString() : null },
        },
      });
    }
    return out;
  }

  async function forSubscription(tenantId: string, subscriptionId: string): Promise<EffectiveEntitlement[]> {
    await deps.advanceDue(tenantId);
    const [sub] = await entitlementSourcesOf(pool, tenantId, { ids: [subscriptionId] });
    if (!sub) throw notFound('subscription');
    const features = await catalog.features(pool, tenantId);
    return present(tenantId, sub.customer_id, await levelsOf(pool, tenantId, sub.customer_id, [sub], features), features, sub);
  }

  /**
   * A customer's entitlements: those of its subscriptions that serve today (TRIAL_ACTIVE,
   * ACTIVE), merged; none without one. Metered usage windows follow the oldest of them.
   */
  async function forCustomer(tenantId: string, idOrAlias: string): Promise<EffectiveEntitlement[]> {
    const customer = await findCustomer(pool, tenantId, idOrAlias);
    if (!customer) throw notFound('customer');
    await deps.advanceDue(tenantId);
    const subs = await entitlementSourcesOf(pool, tenantId, { customerId: customer.id, statuses: SERVING });
    if (subs.length === 0) return [];
    const features = await catalog.features(pool, tenantId);
    return present(tenantId, customer.id, await levelsOf(pool, tenantId, customer.id, subs, features), features, subs[0]!);
  }

  /**
   * Whether the customer may use one feature now (one more unit of a metered one), with its
   * usage against the limit. Resolved as the customer's entitlement list resolves it; metered
   * usage is read through the usage module's aggregation over the window [start, reset_at)
   * (the billing period for BILLING_CYCLE: the window its invoice bills), from the hourly
   * rollups plus the events written since, so its cost does not grow with the events stored.
   * Its latency and its cost are its round trips (each costs more CPU than the rest of a check),
   * so a check is one statement: the one that reads everything the value is resolved from
   * (`checkSourcesOf`), with the usage read of the window and metric definition this customer and
   * feature were last checked with (usage-hints.ts), used when they are still the resolved ones.
   * Statuses move with the clock: the statement also returns the customer's subscriptions whose
   * status is due to move today, and only when there is one are the due moves made before it is
   * read again. The tenant's other due moves are the periodic job's (they do
   * not change this answer).
   */
  async function check(tenantId: string, idOrAlias: string, featureIdOrCode: string): Promise<EntitlementCheck> {
    const early = usageHints.start(tenantId, `${idOrAlias}\u0000${featureIdOrCode}`);
    const todayDate = today(clock);
    const query = { customerRef: idOrAlias, featureRef: featureIdOrCode, statuses: SERVING, dueBy: todayDate };
    const read = () => checkSourcesOf(plannedOnce, tenantId, query, early.embed);
    let sources = await read();
    if (!sources.customer) throw notFound('customer');
    // this service moves the statuses of customers on no test clock (a test clock moves its own)
    if (sources.customer.test_clock_id === null && sources.subscriptions.some((r) => r.next_transition_on !== null && r.next_transition_on <= todayDate)) {
      await deps.advanceDue(tenantId);
      sources = await read();
    }
    const customer = sources.customer!;
    if (!sources.feature) throw notFound('feature');
    const feature = catalogFeatureOf(sources.feature);
    const subs = sources.subscriptions.filter((r) => (SERVING as readonly string[]).includes(r.status));
    const ref = { id: feature.id, code: feature.code, name: feature.name };
    const type = feature.metricId === null ? 'BOOLEAN' as const : 'METERED' as const;
    const base = { customer_id: customer.id, feature: ref, type, metric_id: feature.metricId, used: null, limit: null, remaining: null, overage: null, overage_policy: null, period_start: null, reset_at: null };
    const levels = subs.length > 0 ? await levelMapsOf(pool, tenantId, customer.id, subs, [feature], knownValuesOf(sources, feature)) : [];
    let at = levels.length - 1;
    while (at >= 0 && !levels[at]!.has(feature.id)) at -= 1;
    const value = at >= 0 ? levels[at]!.get(feature.id)! : undefined;
    if (!value) return { ...base, allowed: false, reason: 'NOT_ENTITLED', source: null, enabled: false };
    const source = ENTITLEMENT_SOURCES[at]!;
    if (value.type === 'BOOLEAN' || feature.metricId === null) return { ...base, allowed: value.enabled, reason: value.enabled ? 'WITHIN_LIMIT' : 'DISABLED', source, enabled: value.enabled };
    const sub = subs[0]!;
    const period = currentPeriodOf(sub, todayDate);
    const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);
    const now = clock.now();
    const win = usageWindow(value.reset_period, { periodStart: midnight(period.start), periodEnd: period.end ? midnight(period.end) : null, subscriptionStart: midnight(sub.start_date) }, now);
    const refs = customer.alias ? [customer.id, customer.alias] : [customer.id];
    const used = sources.metric ? await early.settle({ customerId: customer.id, refs, metric: sources.metric, from: win.from, to: win.resetAt ?? now }, { remember: win.resetAt !== null }, sources.usage) : null;
    const policy: OveragePolicy = value.overage_policy ?? 'BLOCK';
    const metered = { ...base, source, enabled: value.enabled, used, limit: value.limit, remaining: remainingOf(value.limit, used), overage_policy: policy, period_start: win.from.toISOString(), reset_at: win.resetAt ? win.resetAt.toISOString() : null };
    if (!value.enabled) return { ...metered, allowed: false, reason: 'DISABLED' };
    if (value.limit === null) return { ...metered, allowed: true, reason: 'UNLIMITED' };
    const over = parseDecimal(used ?? '0').minus(parseDecimal(value.limit));
    const overage = (over.isNegative() ? new Dec(0) : over).toFixed();
    if (over.isNegative()) return { ...metered, overage, allowed: true, reason: 'WITHIN_LIMIT' };
    return policy === 'BLOCK' ? { ...metered, overage, allowed: false, reason: 'LIMIT_REACHED' } : { ...metered, overage, allowed: true, reason: 'OVERAGE_ALLOWED' };
  }

  /** Sets a customer's own value for a feature: the highest priority, above its subscriptions' overrides. */
  async function setCustomerOverride(tenantId: string, idOrAlias: string, featureIdOrCode: string, rawValue: unknown): Promise<CustomerOverrideRow> {
    return withTx(pool, async (tx) => {
      const customer = await findCustomer(tx, tenantId, idOrAlias, { lock: true });
      if (!customer) throw notFound('customer');
      const feature = await findFeature(tx, tenantId, featureIdOrCode);
      if (!feature) throw notFound('feature');
      if (feature.status === 'ARCHIVED') throw badRequest(`feature '${featureIdOrCode}' is archived and cannot be granted`);
      const value = parseEntitlementValue(feature.feature_type.type, rawValue, 'value');
      const now = clock.now();
      const row = await upsertCustomerOverride(tx, tenantId, { id: newId('entitlement', now.getTime()), customer_id: customer.id, feature_id: feature.id, value, created_at: now, updated_at: now });
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.entitlements_updated', objectId: customer.id, data: { customer_id: customer.id, feature_id: feature.id, value } });
      return row;
    });
  }

  async function removeCustomerOverride(tenantId: string, idOrAlias: string, featureIdOrCode: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const customer = await findCustomer(tx, tenantId, idOrAlias, { lock: true });
      if (!customer) throw notFound('customer');
      const feature = await findFeature(tx, tenantId, featureIdOrCode);
      if (!feature || !(await deleteCustomerOverride(tx, tenantId, customer.id, feature.id))) throw notFound('entitlement override');
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'customer.entitlements_updated', objectId: customer.id, data: { customer_id: customer.id, feature_id: feature.id, value: null } });
    });
  }

  async function requireSubscription(db: Queryable, tenantId: string, subscriptionId: string): Promise<SubscriptionRecord> {
    const record = await loadSubscriptionRecord(db, tenantId, subscriptionId, { lock: true });
    if (!record) throw notFound('subscription');
    return record;
  }

  /** Sets a subscription's own value for a feature (highest priority). */
  async function setOverride(tenantId: string, subscriptionId: string, featureIdOrCode: string, rawValue: unknown): Promise<EntitlementOverrideRow> {
    return withTx(pool, async (tx) => {
      const record = await requireSubscription(tx, tenantId, subscriptionId);
      const feature = await findFeature(tx, tenantId, featureIdOrCode);
      if (!feature) throw notFound('feature');
      if (feature.status === 'ARCHIVED') throw badRequest(`feature '${featureIdOrCode}' is archived and cannot be granted`);
      const value = parseEntitlementValue(feature.feature_type.type, rawValue, 'value');
      const now = clock.now();
      const row = await upsertEntitlementOverride(tx, tenantId, { id: newId('entitlement', now.getTime()), subscription_id: record.subscription.id, feature_id: feature.id, value, created_at: now, updated_at: now });
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.entitlements_updated', objectId: subscriptionId, data: { subscription_id: subscriptionId, feature_id: feature.id, value } });
      return row;
    });
  }

  async function removeOverride(tenantId: string, subscriptionId: string, featureIdOrCode: string): Promise<void> {
    await withTx(pool, async (tx) => {
      await requireSubscription(tx, tenantId, subscriptionId);
      const feature = await findFeature(tx, tenantId, featureIdOrCode);
      if (!feature || !(await deleteEntitlementOverride(tx, tenantId, subscriptionId, feature.id))) throw notFound('entitlement override');
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.entitlements_updated', objectId: subscriptionId, data: { subscription_id: subscriptionId, feature_id: feature.id, value: null } });
    });
  }

  return { forSubscription, forCustomer, check, setCustomerOverride, removeCustomerOverride, setOverride, removeOverride, overridesOf: (db: Queryable, tenantId: string, ids: string[]) => entitlementOverridesOf(db, tenantId, ids) };
}

export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
