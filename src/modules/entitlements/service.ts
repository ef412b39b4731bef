// Effective entitlements of a subscription or a customer (priority in resolve.ts), and the
// subscription overrides that sit on top. Consumption of metered entitlements comes from a
// function the composition root wires to the usage module (which comes later in module order).
import { today, type Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { isInForce } from '../../domain/index.js';
import { findCustomer } from '../customers/index.js';
import { findFeature, parseEntitlementValue } from '../features/index.js';
import {
  currentPeriodOf,
  deleteEntitlementOverride,
  entitlementOverridesOf,
  loadSubscriptionRecord,
  loadSubscriptionRecords,
  upsertEntitlementOverride,
  type CatalogFeature,
  type EntitlementOverrideRow,
  type SubscriptionCatalog,
  type SubscriptionRecord,
} from '../subscriptions/index.js';
import { mergeSameLevel, remainingOf, resolveLevels, usageWindow, type EntitlementValue, type ResetPeriod } from './resolve.js';

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

export interface EntitlementsDeps {
  pool: Pool;
  clock: Clock;
  catalog: SubscriptionCatalog;
  /** Moves subscription statuses with the clock before reading (subscriptions service). */
  advanceDue: (tenantId: string) => Promise<unknown>;
  consumed?: ConsumedUsage;
}

export function createEntitlementsService(deps: EntitlementsDeps) {
  const { pool, clock, catalog } = deps;

  /** The plan version whose entitlements apply: the trialing plan's during a trial that names one. */
  async function entitlementVersionId(db: Queryable, tenantId: string, record: SubscriptionRecord): Promise<string> {
    const sub = record.subscription;
    if (sub.status === 'TRIAL_ACTIVE' && sub.trialing_plan_id) {
      const trialing = await catalog.findPlanVersion(db, tenantId, { planId: sub.trialing_plan_id });
      if (trialing) return trialing.versionId;
    }
    return sub.plan_version_id;
  }

  /** Levels (low -> high) of several subscriptions, each level merged across them. */
  async function levelsOf(db: Queryable, tenantId: string, records: SubscriptionRecord[], features: CatalogFeature[]) {
    const todayDate = today(clock);
    const versionIds = await Promise.all(records.map((s) => entitlementVersionId(db, tenantId, s)));
    const addOnIds = records.flatMap((s) => s.addOns.filter((a) => isInForce(a.effective_from, a.effective_to, todayDate)).map((a) => a.add_on_id));
    const [planValues, addOnValues, overrides] = await Promise.all([
      catalog.entitlementsOf(db, tenantId, 'plan_version', [...new Set(versionIds)]),
      catalog.entitlementsOf(db, tenantId, 'add_on', [...new Set(addOnIds)]),
      entitlementOverridesOf(db, tenantId, records.map((s) => s.subscription.id)),
    ]);
    const defaults = new Map(features.filter((f) => f.defaultValue).map((f) => [f.id, f.defaultValue as EntitlementValue]));
    const plan = mergeSameLevel(versionIds.map((id) => (planValues.get(id) ?? new Map()) as Map<string, EntitlementValue>));
    const addOns = mergeSameLevel(addOnIds.map((id) => (addOnValues.get(id) ?? new Map()) as Map<string, EntitlementValue>));
    const overridden = mergeSameLevel(records.map((s) => new Map(overrides.filter((o) => o.subscription_id === s.subscription.id).map((o) => [o.feature_id, o.value]))));
    return resolveLevels([defaults, plan, addOns, overridden]);
  }

  async function present(tenantId: string, customerId: string, resolved: Map<string, EntitlementValue>, features: CatalogFeature[], window: SubscriptionRecord): Promise<EffectiveEntitlement[]> {
    const now = clock.now();
    const sub = window.subscription;
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
    const record = await loadSubscriptionRecord(pool, tenantId, subscriptionId);
    if (!record) throw notFound('subscription');
    const features = await catalog.features(pool, tenantId);
    return present(tenantId, record.subscription.customer_id, await levelsOf(pool, tenantId, [record], features), features, record);
  }

  /**
   * A customer's entitlements: those of its subscriptions that serve today (TRIAL_ACTIVE,
   * ACTIVE), merged; none without one. Metered usage windows follow the oldest of them.
   */
  async function forCustomer(tenantId: string, idOrAlias: string): Promise<EffectiveEntitlement[]> {
    const customer = await findCustomer(pool, tenantId, idOrAlias);
    if (!customer) throw notFound('customer');
    await deps.advanceDue(tenantId);
    const records = await loadSubscriptionRecords(pool, tenantId, { customerId: customer.id, statuses: SERVING });
    if (records.length === 0) return [];
    const features = await catalog.features(pool, tenantId);
    return present(tenantId, customer.id, await levelsOf(pool, tenantId, records, features), features, records[0]!);
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

  return { forSubscription, forCustomer, setOverride, removeOverride, overridesOf: (db: Queryable, tenantId: string, ids: string[]) => entitlementOverridesOf(db, tenantId, ids) };
}

export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
