// The inputs of a subscription invoice that live in other modules, loaded for many subscriptions
// at once: plan terms, customers (tax), invoicing entities, and usage for the engine's queries.
import { Decimal } from 'decimal.js';
import { Dec } from '../../../kernel/money.js';
import type { Pool, Queryable } from '../../../db/pool.js';
import type { ComponentUsage, InvoicingEntityTax, TaxCustomer, UsageQuery } from '../../../domain/index.js';
import { findCustomers, type CustomerRow } from '../../customers/index.js';
import { loadMetricDefinition, type MetricDefinition, type UnitConversion } from '../../metrics/index.js';
import { loadPlanVersionSnapshot } from '../../plans/index.js';
import { customersMetricUsage } from '../../usage/index.js';
import type { InvoicingEntityRow } from '../entities.js';
import type { PlanTerms } from './mapping.js';

/**
 * Standard VAT rates (fractions) by seller/destination country. Rates change by law, so they are
 * data: this is the table as of 2026-01; an entity in a country not listed charges no tax.
 */
export const STANDARD_VAT_RATES: Readonly<Record<string, string>> = {
  AT: '0.2', BE: '0.21', BG: '0.2', CY: '0.19', CZ: '0.21', DE: '0.19', DK: '0.25', EE: '0.24', ES: '0.21', FI: '0.255',
  FR: '0.2', GR: '0.24', HR: '0.25', HU: '0.27', IE: '0.23', IT: '0.22', LT: '0.21', LU: '0.17', LV: '0.21', MT: '0.18',
  NL: '0.21', PL: '0.23', PT: '0.23', RO: '0.21', SE: '0.25', SI: '0.22', SK: '0.23', GB: '0.2', CH: '0.081', NO: '0.25',
};

export function entityTaxOf(entity: InvoicingEntityRow): InvoicingEntityTax {
  return { country: entity.country, standardRates: STANDARD_VAT_RATES };
}

/** The customer's tax facts as the engine's `resolveTax` reads them (custom taxes add up). */
export function customerTaxOf(customer: CustomerRow): TaxCustomer {
  return {
    country: customer.billing_address?.country ?? null,
    vatNumber: customer.vat_number,
    taxExempt: customer.is_tax_exempt,
    reverseCharge: customer.reverse_charge,
    customTaxRate: customer.custom_taxes.length > 0 ? customer.custom_taxes.reduce((sum, tax) => sum.plus(tax.rate), new Dec(0)) : null,
  };
}

export async function planTermsOf(db: Queryable, tenantId: string, planVersionId: string): Promise<PlanTerms> {
  const version = await loadPlanVersionSnapshot(db, tenantId, planVersionId);
  return { taxInclusive: version?.tax_inclusive ?? false, minimumCommitment: version?.minimum_commitment?.amount ?? null };
}

/** Rows loaded with at most `concurrency` reads in flight (each on its own pool connection). */
export async function loadMany<K, V>(keys: readonly K[], load: (key: K) => Promise<V>, concurrency = 6): Promise<Map<K, V>> {
  const out = new Map<K, V>();
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      out.set(key, await load(key));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
  return out;
}

export async function loadCustomers(db: Queryable, tenantId: string, ids: readonly string[]): Promise<Map<string, CustomerRow>> {
  return new Map((await findCustomers(db, tenantId, [...new Set(ids)])).map((row) => [row.id, row]));
}

const ROUNDING: Record<Exclude<UnitConversion['rounding'], 'NONE'>, { step: string; mode: Decimal.Rounding }> = {
  UP: { step: '1', mode: Decimal.ROUND_CEIL },
  DOWN: { step: '1', mode: Decimal.ROUND_FLOOR },
  NEAREST: { step: '1', mode: Decimal.ROUND_HALF_UP },
  NEAREST_HALF: { step: '0.5', mode: Decimal.ROUND_HALF_UP },
  NEAREST_DECILE: { step: '0.1', mode: Decimal.ROUND_HALF_UP },
};

/**
 * A metric's unit conversion on an aggregated quantity: divide by `factor`, then round to the
 * whole unit (UP, DOWN, NEAREST), to a half or a tenth of a unit; NONE keeps the exact quotient.
 * The usage module reports raw values; invoicing bills converted ones.
 */
export function convertUsage(value: string, conversion: UnitConversion | null): string {
  if (conversion === null || conversion.factor === 1 && conversion.rounding === 'NONE') return value;
  const quotient = new Dec(value).div(conversion.factor);
  if (conversion.rounding === 'NONE') return quotient.toString();
  const { step, mode } = ROUNDING[conversion.rounding];
  return quotient.div(step).toDecimalPlaces(0, mode).times(step).toString();
}

/** One request of the run: a subscription's engine usage query, for its customer. */
export interface UsageRequest {
  customer: CustomerRow;
  query: UsageQuery;
}

/** The usage of one request, and the snapshot it was read in (recorded when the invoice is finalized). */
export interface FetchedUsage {
  usage: ComponentUsage;
  snapshot: string;
  /** The code of the metric's events. */
  metricCode: string;
}

/**
 * Answers every usage query of a batch with one aggregation per (metric, window), all customers
 * together, through the usage module's own aggregation; unit conversion applied. Matrix queries
 * get their groups projected on the matrix's dimensions. Result key: `requestKey(request)`.
 */
export async function fetchUsage(pool: Pool, tenantId: string, requests: readonly UsageRequest[]): Promise<Map<string, FetchedUsage>> {
  const byWindow = new Map<string, UsageRequest[]>();
  for (const request of requests) {
    const key = `${request.query.metricId}|${request.query.periodStart}|${request.query.periodEnd}`;
    const list = byWindow.get(key) ?? byWindow.set(key, []).get(key)!;
    list.push(request);
  }
  const definitions = new Map<string, Promise<MetricDefinition | undefined>>();
  const answers = new Map<string, FetchedUsage>();
  await loadMany([...byWindow.values()], async (list) => {
    const { metricId, periodStart, periodEnd } = list[0]!.query;
    if (!definitions.has(metricId)) definitions.set(metricId, loadMetricDefinition(pool, tenantId, metricId));
    const definition = await definitions.get(metricId)!;
    const customers = [...new Map(list.map((r) => [r.customer.id, { key: r.customer.id, refs: r.customer.alias ? [r.customer.id, r.customer.alias] : [r.customer.id] }])).values()];
    const usage = await customersMetricUsage(pool, tenantId, {
      customers, metricId, periodStart: new Date(`${periodStart}T00:00:00.000Z`), periodEnd: new Date(`${periodEnd}T00:00:00.000Z`),
    });
    if (!usage || !definition) throw new Error(`billable metric ${metricId} of a usage fee is not the tenant's`);
    for (const request of list) {
      const figures = usage.byCustomer.get(request.customer.id);
      answers.set(requestKey(request), {
        usage: componentUsageOf(request.query, figures ?? { totalValue: '0', groups: [] }, definition.unit_conversion ?? null),
        snapshot: usage.snapshot,
        metricCode: definition.code,
      });
    }
  }, 4);
  return answers;
}

export function requestKey(request: UsageRequest): string {
  const q = request.query;
  return `${request.customer.id}|${q.componentId}|${q.periodStart}|${q.periodEnd}`;
}

/** The engine's usage of one query from the usage module's figures. */
export function componentUsageOf(query: UsageQuery, figures: { totalValue: string; groups: { dimensions: Record<string, string>; value: string }[] }, conversion: UnitConversion | null): ComponentUsage {
  if (query.groupBy.length === 0) return convertUsage(figures.totalValue, conversion);
  // Usage groups carry every group-by key of the metric; sum them per matrix dimensions.
  const sums = new Map<string, { dimensions: Record<string, string>; quantity: Decimal }>();
  for (const group of figures.groups) {
    const dimensions = Object.fromEntries(query.groupBy.map((key) => [key, group.dimensions[key] ?? '']));
    const key = JSON.stringify(query.groupBy.map((k) => dimensions[k]));
    const entry = sums.get(key) ?? sums.set(key, { dimensions, quantity: new Dec(0) }).get(key)!;
    entry.quantity = entry.quantity.plus(group.value);
  }
  return [...sums.values()].map((entry) => ({ dimensions: entry.dimensions, quantity: convertUsage(entry.quantity.toString(), conversion) }));
}
