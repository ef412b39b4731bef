// The value an alert watches, measured now. Usage comes from the usage module's one aggregation
// path (customersMetricUsage: rollups plus the raw tail), all alerts of one metric and period in
// one read; spend and the projected credit balance come from ports the composition root wires
// (invoices and credits come later in the module order).
import { performance } from 'node:perf_hooks';
import type { Pool, Queryable } from '../../db/pool.js';
import { today, type Clock } from '../../kernel/clock.js';
import { Dec } from '../../kernel/money.js';
import { findCustomers } from '../customers/index.js';
import { currentPeriodOf, loadSubscriptionRecords, type SubscriptionRecord } from '../subscriptions/index.js';
import { customersMetricUsage, type BulkUsageCustomer } from '../usage/index.js';
import type { AlertRow } from './repository.js';
import type { Measured } from './transitions.js';

/** Usage charges of a subscription's current period so far, a decimal string in its currency; undefined when it has none. */
export type AccruedSpend = (tenantId: string, subscriptionId: string) => Promise<string | undefined>;
/** A customer's projected credit balance at `at` (ledger balance less accrued usage charges); undefined when unknown. */
export type ProjectedCreditBalance = (db: Queryable, tenantId: string, customerId: string, at: Date) => Promise<string | undefined>;

export interface MeasurePorts {
  accruedSpend?: AccruedSpend;
  projectedCreditBalance?: ProjectedCreditBalance;
}

const SERVING = ['TRIAL_ACTIVE', 'ACTIVE'];
/**
 * How long a scope (period, subscriptions, customer references) is reused before it is read
 * again: a cancellation or an alias change shows within this. Each scope gets a random share of
 * it on top, so scopes read together (1,000 alerts created at once) do not expire together.
 */
const SCOPE_TTL_MS = 60_000;
/** Scopes read at once, and at most per round: a round never waits for thousands of reads (the rest are read by the next rounds). */
const SCOPE_READS_IN_PARALLEL = 8;
const SCOPE_READS_PER_ROUND = 200;

/** Where an alert's value comes from: the period and the subscriptions it covers, the customer's stored references. */
interface Scope {
  periodStart: Date;
  periodEnd: Date;
  subscriptionIds: string[];
  refs: string[];
}

const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);

/**
 * `defer`: alerts a round could not measure because their scope was not read yet (more than
 * SCOPE_READS_PER_ROUND to read); they are evaluated again in a later round.
 */
export function createMeasurer(deps: { pool: Pool; clock: Clock; ports: MeasurePorts; defer?: (tenantId: string, alertIds: string[]) => void }) {
  const { pool, clock, ports } = deps;
  /** Per alert id; scope null = no serving subscription (no period, no value). */
  const scopes = new Map<string, { scope: Scope | null; expiresAt: number }>();

  /** A scope that may be used now: read, and its period not over by the business clock. */
  const usable = (entry: { scope: Scope | null } | undefined) => entry !== undefined && (entry.scope === null || clock.now() < entry.scope.periodEnd);

  /**
   * Reads the current period of an alert: its subscription's, or for a customer alert the
   * oldest of the customer's serving subscriptions (the window metered entitlements use).
   */
  async function readScope(tenantId: string, alert: AlertRow): Promise<void> {
    const records: SubscriptionRecord[] = alert.subscription_id
      ? await loadSubscriptionRecords(pool, tenantId, { ids: [alert.subscription_id] })
      : await loadSubscriptionRecords(pool, tenantId, { customerId: alert.customer_id, statuses: SERVING });
    const serving = records.filter((r) => SERVING.includes(r.subscription.status));
    const first = serving[0];
    const period = first ? currentPeriodOf(first.subscription, today(clock)) : undefined;
    const expiresAt = performance.now() + SCOPE_TTL_MS * (1 + Math.random());
    if (!first || !period?.end) {
      scopes.set(alert.id, { scope: null, expiresAt });
      return;
    }
    const [customer] = await findCustomers(pool, tenantId, [alert.customer_id]);
    const refs = customer?.alias ? [alert.customer_id, customer.alias] : [alert.customer_id];
    scopes.set(alert.id, { scope: { periodStart: midnight(period.start), periodEnd: midnight(period.end), subscriptionIds: serving.map((r) => r.subscription.id), refs }, expiresAt });
  }

  /** Reads the scopes that must be read (none yet, or the period ended) first, then those merely old, at most SCOPE_READS_PER_ROUND. */
  async function refreshScopes(tenantId: string, alerts: readonly AlertRow[]): Promise<void> {
    const now = performance.now();
    const must = alerts.filter((a) => !usable(scopes.get(a.id)));
    const old = alerts.filter((a) => usable(scopes.get(a.id)) && scopes.get(a.id)!.expiresAt <= now);
    const queue = [...must, ...old].slice(0, SCOPE_READS_PER_ROUND);
    await Promise.all(Array.from({ length: SCOPE_READS_IN_PARALLEL }, async () => {
      for (let alert = queue.shift(); alert; alert = queue.shift()) await readScope(tenantId, alert);
    }));
  }

  /** Values of many alerts of one tenant; an alert left out is not evaluated now (its port is missing). */
  async function measure(tenantId: string, alerts: readonly AlertRow[]): Promise<Map<string, Measured>> {
    const out = new Map<string, Measured>();
    const none = (scope: Scope | null): Measured => ({ value: null, periodStart: scope?.periodStart ?? null, periodEnd: scope?.periodEnd ?? null });
    await refreshScopes(tenantId, alerts.filter((a) => a.kind !== 'CREDIT_BALANCE'));
    const deferred: string[] = [];
    // usage alerts grouped by metric and period: one aggregation each, every customer an answer key
    const groups = new Map<string, { metricId: string; scope: Scope; alerts: AlertRow[] }>();
    for (const alert of alerts) {
      if (alert.kind === 'CREDIT_BALANCE') {
        if (!ports.projectedCreditBalance) continue;
        const value = await ports.projectedCreditBalance(pool, tenantId, alert.customer_id, clock.now());
        out.set(alert.id, { value: value ?? null, periodStart: null, periodEnd: null });
        continue;
      }
      const entry = scopes.get(alert.id);
      if (!usable(entry)) {
        deferred.push(alert.id);
        continue;
      }
      const scope = entry!.scope;
      if (scope === null) {
        out.set(alert.id, none(scope));
        continue;
      }
      if (alert.kind === 'SPEND') {
        if (!ports.accruedSpend) continue;
        let total = new Dec(0);
        let known = false;
        for (const subscriptionId of scope.subscriptionIds.slice(0, alert.subscription_id ? 1 : undefined)) {
          const amount = await ports.accruedSpend(tenantId, subscriptionId);
          if (amount === undefined) continue;
          known = true;
          total = total.plus(new Dec(amount));
        }
        out.set(alert.id, { value: known ? total.toFixed() : null, periodStart: scope.periodStart, periodEnd: scope.periodEnd });
        continue;
      }
      const key = `${alert.metric_id}|${scope.periodStart.getTime()}|${scope.periodEnd.getTime()}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { metricId: alert.metric_id!, scope, alerts: [] }));
      group.alerts.push(alert);
    }
    for (const group of groups.values()) {
      const customers = new Map<string, BulkUsageCustomer>();
      for (const alert of group.alerts) customers.set(alert.customer_id, { key: alert.customer_id, refs: scopes.get(alert.id)?.scope?.refs ?? [alert.customer_id] });
      const usage = await customersMetricUsage(pool, tenantId, { customers: [...customers.values()], metricId: group.metricId, periodStart: group.scope.periodStart, periodEnd: group.scope.periodEnd });
      for (const alert of group.alerts) {
        const value = usage?.byCustomer.get(alert.customer_id)?.totalValue ?? null;
        out.set(alert.id, { value, periodStart: group.scope.periodStart, periodEnd: group.scope.periodEnd });
      }
    }
    if (deferred.length > 0) deps.defer?.(tenantId, deferred);
    return out;
  }

  return { measure, forget: (alertId: string) => scopes.delete(alertId) };
}

export type Measurer = ReturnType<typeof createMeasurer>;
