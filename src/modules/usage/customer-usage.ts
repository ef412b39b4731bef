import type { Pool, Queryable } from '../../db/pool.js';
import { summarize } from '../../domain/usage/index.js';
import { loadMetricDefinition, type MetricDefinition } from '../metrics/index.js';
import { aggregateByKey, embeddedAggregateByKey, type KeyedUsage } from './aggregate.js';
import { toUsageMetric } from './metrics.js';
import { customerRefsOf, type MetricUsageResult } from './query-service.js';

export interface BulkUsageCustomer {
  /** Key of the answer (the customer id). */
  key: string;
  /** Stored references meaning this customer: its id and its alias. */
  refs: readonly string[];
}

export interface CustomersUsage {
  /** Per customer key; a customer with no event gets the metric's empty figures. */
  byCustomer: Map<string, MetricUsageResult>;
  /** The snapshot the figures were read in (`aggregateByKey`). */
  snapshot: string;
}

/**
 * Usage of `metricId` over [periodStart, periodEnd) for many customers at once (the billing run),
 * values before unit conversion. Undefined when the metric is not the tenant's. The usage API's
 * own aggregation (`aggregateByKey`), each customer one answer key. Reads in its own snapshot:
 * pass the pool, not a transaction.
 */
export async function customersMetricUsage(
  pool: Pool,
  tenantId: string,
  query: { customers: readonly BulkUsageCustomer[]; metricId: string; periodStart: Date; periodEnd: Date },
): Promise<CustomersUsage | undefined> {
  const def = await loadMetricDefinition(pool, tenantId, query.metricId);
  return def ? definedMetricUsage(pool, tenantId, def, query) : undefined;
}

/** `customersMetricUsage` with the metric's definition already read (by a statement of the caller's). */
export async function definedMetricUsage(pool: Queryable, tenantId: string, def: MetricDefinition, query: CustomersQuery): Promise<CustomersUsage> {
  const read = customersRead(def, query);
  return read.usageOf(await aggregateByKey(pool, tenantId, read.window, read.keyOf));
}

/**
 * `definedMetricUsage` as a part of a caller's statement, to save its round trip: `text`, a
 * `jsonb` expression whose parameters are `params` from `$firstParam` (`$1` the tenant), and the
 * usage its value gives.
 */
export function embeddedMetricUsage(def: MetricDefinition, query: CustomersQuery, firstParam: number): { text: string; params: unknown[]; usageOf: (json: unknown) => CustomersUsage } {
  const read = customersRead(def, query);
  const embedded = embeddedAggregateByKey(read.window, read.keyOf, firstParam);
  return { text: embedded.text, params: embedded.params, usageOf: (json) => read.usageOf(embedded.usageOf(json)) };
}

type CustomersQuery = { customers: readonly BulkUsageCustomer[]; periodStart: Date; periodEnd: Date };

function customersRead(def: MetricDefinition, query: CustomersQuery) {
  const metric = toUsageMetric(def);
  const keyByRef = new Map<string, string>();
  for (const customer of query.customers) for (const ref of customer.refs) keyByRef.set(ref, customer.key);
  return {
    window: { metric, customerRefs: [...keyByRef.keys()], from: query.periodStart, to: query.periodEnd },
    keyOf: (ref: string) => keyByRef.get(ref),
    usageOf({ groups, snapshot }: KeyedUsage): CustomersUsage {
      const byCustomer = new Map<string, MetricUsageResult>();
      for (const customer of query.customers) {
        const figures = summarize(metric.aggregation, groups.get(customer.key) ?? new Map());
        byCustomer.set(customer.key, { metricId: metric.id, metricName: metric.name, metricCode: metric.code, totalValue: figures.totalValue, groups: figures.groups });
      }
      return { byCustomer, snapshot };
    },
  };
}

/**
 * Usage of one customer (id or alias) for one metric over the half-open period
 * [periodStart, periodEnd), grouped by the metric's group-by dimensions, values as plain decimal
 * strings and before unit conversion: a batch of one of `customersMetricUsage`, so invoicing,
 * metered entitlements and the usage API show the same figures. Undefined when the customer or
 * the metric is not the tenant's.
 */
export async function customerMetricUsage(
  pool: Pool,
  tenantId: string,
  query: { customerId: string; metricId: string; periodStart: Date; periodEnd: Date },
): Promise<MetricUsageResult | undefined> {
  const refs = await customerRefsOf(pool, tenantId, query.customerId);
  if (!refs) return undefined;
  const usage = await customersMetricUsage(pool, tenantId, { customers: [{ key: refs[0]!, refs }], metricId: query.metricId, periodStart: query.periodStart, periodEnd: query.periodEnd });
  return usage?.byCustomer.get(refs[0]!);
}
