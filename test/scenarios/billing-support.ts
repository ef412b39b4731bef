import { expect } from 'vitest';
import type { Harness } from '../harness/app.js';
import { eventsLeftUnfolded } from '../../src/modules/usage/repository.js';
import { seedPlan } from '../http/subscription-fixtures.js';

/**
 * A backdated subscription (2026-01-01, anchor 1, monthly) to a plan of Platform 49.00 + 1 seat
 * at 10.00 in advance and API calls in arrears (graduated: 0.10 up to 100 calls, then 0.05),
 * for a French customer of a French entity (20 % VAT); optionally with a free trial, and for a
 * customer on a test clock.
 */
export async function backdatedSubscription(
  h: Harness,
  options: { name?: string; alias?: string; startDate?: string; skipPastInvoices?: boolean; couponCodes?: string[]; freeTrialDays?: number; testClockId?: string } = {},
) {
  const key = h.tenant.apiKey;
  const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
  await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { country: 'FR', legal_name: 'Seller SAS' } });
  const plan = await seedPlan(h, h.tenant.id, key, options.freeTrialDays ? { trialDays: options.freeTrialDays, trialIsFree: true } : {});
  const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Usage' } })).json();
  let metricId = (await h.db.pool.query(`SELECT id FROM billable_metrics WHERE tenant_id = $1 AND code = 'api_call' LIMIT 1`, [h.tenant.id]).catch(() => ({ rows: [] as { id: string }[] }))).rows[0]?.id as string | undefined;
  if (!metricId) {
    const metric = await h.request('POST', '/api/v1/metrics', { body: { name: 'API calls', code: 'api_call', aggregation_type: 'COUNT', product_family_id: family.id } });
    expect(metric.statusCode, metric.body).toBe(201);
    metricId = metric.json().id as string;
  }
  const product = await h.request('POST', '/api/v1/products', { body: { name: 'Calls', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metricId, model: 'TIERED' } } });
  expect(product.statusCode, product.body).toBe(201);
  await h.db.pool.query(
    `INSERT INTO price_components (id, tenant_id, plan_version_id, position, name, product_id, fee_type, fee, metric_id) VALUES ($1, $2, $3, 2, 'API calls', $4, 'USAGE', $5, $6)`,
    [`price_usage_${plan.versionId.slice(4)}`, h.tenant.id, plan.versionId, product.json().id, JSON.stringify({
      type: 'USAGE', metric_id: metricId, cadence: 'MONTHLY',
      pricing: { type: 'TIERED', block_size: null, tiers: [{ first_unit: 0, rate: '0.10', flat_fee: null, flat_cap: null }, { first_unit: 100, rate: '0.05', flat_fee: null, flat_cap: null }] },
    }), metricId],
  );
  const customer = await h.request('POST', '/api/v1/customers', {
    body: {
      name: options.name ?? 'Client SARL', currency: 'EUR', billing_address: { line1: '2 rue X', city: 'Lyon', zip_code: '69001', country: 'FR' },
      ...(options.alias ? { alias: options.alias } : {}),
      ...(options.testClockId ? { test_clock_id: options.testClockId } : {}),
    },
  });
  expect(customer.statusCode, customer.body).toBe(201);
  const sub = await h.request('POST', '/api/v1/subscriptions', {
    body: { customer_id_or_alias: customer.json().id, plan_version_id: plan.versionId, start_date: options.startDate ?? '2026-01-01', billing_day_anchor: 1, skip_past_invoices: options.skipPastInvoices ?? false,
      ...(options.couponCodes ? { coupon_codes: options.couponCodes } : {}) },
  });
  expect(sub.statusCode, sub.body).toBe(201);
  return { customerId: customer.json().id as string, subscriptionId: sub.json().id as string, metricId, plan };
}

/** `count` api_call events on `day` (YYYY-MM-DD) for the customer (id or alias); the answers, summed. */
export async function sendCalls(h: Harness, customerId: string, day: string, count: number, prefix: string) {
  const events = Array.from({ length: count }, (_, i) => ({ event_id: `${prefix}-${day}-${i}`, code: 'api_call', customer_id: customerId, timestamp: `${day}T10:00:00Z`, properties: {} }));
  const sum = { ingested: 0, in_finalized_periods: 0, unknown_customer_events: 0 };
  for (let i = 0; i < events.length; i += 500) {
    const res = await h.request('POST', '/api/v1/events/ingest', { body: { events: events.slice(i, i + 500), allow_backfilling: true } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += res.json()[key];
  }
  return sum;
}

/** The subscription's invoices, oldest first, as the API lists them. */
export async function invoicesOf(h: Harness, subscriptionId: string) {
  const res = await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&order_by=invoice_date.asc&per_page=100`);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.json().data as Record<string, any>[];
}

/** [name, start, end, category-free amounts] of an invoice's lines. */
export function lineSummary(invoice: Record<string, any>): string[][] {
  return invoice.line_items.map((l: Record<string, string>) => [l.name, l.start_date, l.end_date, l.amount_subtotal, l.tax_amount]);
}

/**
 * Runs the rollup fold (ingestion wakes it within a second) until every event of the tenant is
 * folded: a transaction open elsewhere on a shared server holds the fold's watermark back for a
 * while. The fold is what flags billed periods that late events fall in.
 */
export async function foldUsage(h: Harness): Promise<void> {
  await expect.poll(async () => {
    await h.service.tasks['usage.rollup']!({ tenant_id: h.tenant.id });
    return eventsLeftUnfolded(h.db.pool, h.tenant.id);
  }, { timeout: 60_000, interval: 200 }).toBe(false);
}
