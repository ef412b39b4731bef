import type { Pool } from '../../db/pool.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { UsageMetric } from '../../domain/usage/index.js';
import { findCustomer } from '../customers/index.js';
import { aggregateUsage } from './aggregate.js';
import type { UsageMetricSource } from './metrics.js';
import { listEvents, type EventListQuery } from './event-list.js';
import { listUnresolvedCustomers } from './unresolved.js';

export interface MetricUsageResult {
  metricId: string;
  metricName: string;
  metricCode: string;
  /** The metric's aggregation over all groups, as a plain decimal string. */
  totalValue: string;
  groups: { dimensions: Record<string, string>; value: string }[];
}

export interface UsageReport {
  periodStart: string;
  periodEnd: string;
  usage: MetricUsageResult[];
}

/** What the subscription usage endpoint needs to know about a subscription. */
export interface SubscriptionUsageScope {
  customerId: string;
  /** Current period, as calendar dates (UTC), half-open. */
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** Metrics the subscription is billed for. */
  metricIds: string[];
}
export type FindSubscriptionScope = (tenantId: string, subscriptionId: string) => Promise<SubscriptionUsageScope | undefined>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(value: string, field: string): Date {
  const at = new Date(`${value}T00:00:00.000Z`);
  if (!DATE.test(value) || Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value) {
    throw badRequest(`${field} must be a date YYYY-MM-DD, got '${value}'`);
  }
  return at;
}

/** The stored references that mean this customer: its id, and its alias for migrated events. */
export async function customerRefsOf(pool: Pool, tenantId: string, idOrAlias: string): Promise<string[] | undefined> {
  const customer = await findCustomer(pool, tenantId, idOrAlias);
  if (!customer) return undefined;
  return customer.alias ? [customer.id, customer.alias] : [customer.id];
}

/** One metric's usage for some customer references over [from, to), in result shape. */
export async function metricUsage(pool: Pool, tenantId: string, metric: UsageMetric, customerRefs: readonly string[] | null, from: Date, to: Date): Promise<MetricUsageResult> {
  const figures = await aggregateUsage(pool, tenantId, { metric, customerRefs, from, to });
  return { metricId: metric.id, metricName: metric.name, metricCode: metric.code, totalValue: figures.totalValue, groups: figures.groups };
}

export function createUsageQueryService(deps: { pool: Pool; metrics: UsageMetricSource; findSubscription?: FindSubscriptionScope }) {
  const { pool, metrics } = deps;

  async function metricsFor(tenantId: string, metricId: string | undefined, restrictTo?: string[]): Promise<UsageMetric[]> {
    if (metricId !== undefined) {
      const metric = await metrics.get(tenantId, metricId);
      if (!metric || (restrictTo && !restrictTo.includes(metric.id))) throw badRequest(`metric_id '${metricId}' is not a metric of this ${restrictTo ? 'subscription' : 'tenant'}`);
      return [metric];
    }
    const all = await metrics.all(tenantId);
    return restrictTo ? all.filter((m) => restrictTo.includes(m.id)) : all.filter((m) => !m.archived);
  }

  async function report(tenantId: string, refs: string[] | null, start: string, end: string, list: UsageMetric[], fields: [string, string]): Promise<UsageReport> {
    const from = parseDate(start, fields[0]);
    const to = parseDate(end, fields[1]);
    if (to <= from) throw badRequest(`${fields[1]} must be after ${fields[0]} (periods are [start_date, end_date))`);
    const usage: MetricUsageResult[] = [];
    for (const metric of list) usage.push(await metricUsage(pool, tenantId, metric, refs, from, to));
    return { periodStart: start, periodEnd: end, usage };
  }

  return {
    async customerUsage(tenantId: string, idOrAlias: string, query: { start_date: string; end_date: string; metric_id?: string }): Promise<UsageReport> {
      const refs = await customerRefsOf(pool, tenantId, idOrAlias);
      if (!refs) throw notFound('customer');
      return report(tenantId, refs, query.start_date, query.end_date, await metricsFor(tenantId, query.metric_id), ['start_date', 'end_date']);
    },

    async subscriptionUsage(tenantId: string, subscriptionId: string, query: { start_date?: string; end_date?: string; metric_id?: string }): Promise<UsageReport> {
      const scope = deps.findSubscription ? await deps.findSubscription(tenantId, subscriptionId) : undefined;
      if (!scope) throw notFound('subscription');
      const customer = await findCustomer(pool, tenantId, scope.customerId);
      const refs = customer?.alias ? [scope.customerId, customer.alias] : [scope.customerId];
      const list = await metricsFor(tenantId, query.metric_id, scope.metricIds);
      return report(tenantId, refs, query.start_date ?? scope.currentPeriodStart, query.end_date ?? scope.currentPeriodEnd, list, ['start_date', 'end_date']);
    },

    async summary(tenantId: string, query: { start_date: string; end_date: string; metric_id?: string }): Promise<UsageReport> {
      return report(tenantId, null, query.start_date, query.end_date, await metricsFor(tenantId, query.metric_id), ['start_date', 'end_date']);
    },

    /** Customer aliases events name but no customer has (GET /api/v1/events/unresolved-customers). */
    /**
     * The tenant's ingested events, newest first, a cursor page (GET /api/v1/events). A customer
     * filter means its id and alias, as the usage queries match, or the reference as given when
     * no customer has it (events waiting for their customer).
     */
    async events(tenantId: string, query: EventListQuery) {
      const refs = query.customer_id === undefined ? null : (await customerRefsOf(pool, tenantId, query.customer_id)) ?? [query.customer_id];
      return listEvents(pool, tenantId, query, refs);
    },

    unresolvedCustomers: (tenantId: string, query: { page?: number; per_page?: number; order_by?: string }) => listUnresolvedCustomers(pool, tenantId, query),
  };
}

export type UsageQueryService = ReturnType<typeof createUsageQueryService>;
