// Subscriptions whose invoices are due now, for the bill-run tests with real processes (which bill at
// the system clock): each began on the 1st of last month, so last month's invoice (Platform 49.00 and
// one seat in advance) and this month's (the same, plus last month's API calls in arrears) are due.
import { expect } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { Harness } from '../harness/app.js';
import { seedPlan } from '../http/subscription-fixtures.js';

/** The harness's config for seeding thousands of objects quickly: no rate limit in the test process. */
export const SEEDING_CONFIG: Partial<Config> = { rateLimit: { ...loadConfig({}).rateLimit, readPerSecond: 0, writePerSecond: 0, ingestPerSecond: 0 } };

/** API calls each customer made last month. */
export const CALLS_PER_CUSTOMER = 3;

export interface DueSubscriptions {
  entityId: string;
  customers: string[];
  subscriptions: string[];
  /** The two invoice dates due (YYYY-MM-DD): the 1st of last month and of this month. */
  invoiceDates: [string, string];
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** `count` customers with one due subscription each; the entity has no grace period, so a run also finalizes. */
export async function seedDueSubscriptions(h: Harness, count: number): Promise<DueSubscriptions> {
  const now = new Date();
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  h.clock.set(new Date(lastMonth.getTime() + 8 * 3_600_000).toISOString());

  const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
  const patched = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { country: 'FR', legal_name: 'Seller SAS', grace_period_hours: 0 } });
  expect(patched.statusCode, patched.body).toBe(200);
  const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
  const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Usage' } })).json();
  const metric = (await h.request('POST', '/api/v1/metrics', { body: { name: 'API calls', code: 'api_call', aggregation_type: 'COUNT', product_family_id: family.id } })).json();
  const product = (await h.request('POST', '/api/v1/products', { body: { name: 'Calls', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } } })).json();
  await h.db.pool.query(
    `INSERT INTO price_components (id, tenant_id, plan_version_id, position, name, product_id, fee_type, fee, metric_id) VALUES ($1, $2, $3, 2, 'API calls', $4, 'USAGE', $5, $6)`,
    [`price_due_${plan.versionId.slice(4)}`, h.tenant.id, plan.versionId, product.id, JSON.stringify({ type: 'USAGE', metric_id: metric.id, cadence: 'MONTHLY', pricing: { type: 'PER_UNIT', rate: '0.002' } }), metric.id],
  );

  const customers: string[] = [];
  const subscriptions: string[] = [];
  const createOne = async (i: number) => {
    const customer = await h.request('POST', '/api/v1/customers', { body: { name: `Customer ${i}`, currency: 'EUR', billing_address: { country: 'FR' } } });
    expect(customer.statusCode, customer.body).toBe(201);
    const sub = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.json().id, plan_version_id: plan.versionId, start_date: isoDay(lastMonth), billing_day_anchor: 1 } });
    expect(sub.statusCode, sub.body).toBe(201);
    customers.push(customer.json().id);
    subscriptions.push(sub.json().id);
  };
  for (let i = 0; i < count; i += 4) await Promise.all([0, 1, 2, 3].filter((k) => i + k < count).map((k) => createOne(i + k)));

  h.clock.set(new Date(lastMonth.getTime() + 10 * 86_400_000).toISOString());
  const at = new Date(lastMonth.getTime() + 9 * 86_400_000).toISOString();
  for (let i = 0; i < customers.length; i += 250) {
    const events = customers.slice(i, i + 250).flatMap((customerId, k) =>
      Array.from({ length: CALLS_PER_CUSTOMER }, (_, n) => ({ event_id: `due-${i + k}-${n}`, code: 'api_call', customer_id: customerId, timestamp: at, properties: {} })));
    const res = await h.request('POST', '/api/v1/events/ingest', { body: { events, allow_backfilling: true } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  }
  return { entityId: entity.id, customers, subscriptions, invoiceDates: [isoDay(lastMonth), isoDay(thisMonth)] };
}

/** What the bill run must leave, whatever crashed or ran twice: one invoice per period, gapless numbers, one PDF and one of each event per invoice. */
export async function expectBilledOnce(h: Harness, due: DueSubscriptions): Promise<void> {
  const expected = due.subscriptions.length * 2;
  const count = async (sql: string, params: unknown[] = [h.tenant.id]) => Number((await h.db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);

  const perSubscription = await h.db.pool.query<{ subscription_id: string; dates: string[] }>(
    `SELECT subscription_id, array_agg(invoice_date::text ORDER BY invoice_date) AS dates FROM invoices WHERE tenant_id = $1 GROUP BY subscription_id`, [h.tenant.id]);
  expect(perSubscription.rows.map((r) => r.subscription_id).sort()).toEqual([...due.subscriptions].sort());
  expect(perSubscription.rows.filter((r) => r.dates.join() !== due.invoiceDates.join())).toEqual([]);
  expect(await count('SELECT count(*) AS n FROM invoices WHERE tenant_id = $1')).toBe(expected);

  // Gapless numbers: the entity's sequence is 1..N, and its counter has taken no number more.
  const numbers = await h.db.pool.query<{ invoice_number: string }>(`SELECT invoice_number FROM invoices WHERE tenant_id = $1 AND invoicing_entity_id = $2 ORDER BY invoice_number`, [h.tenant.id, due.entityId]);
  expect(numbers.rows.map((r) => r.invoice_number)).toEqual(Array.from({ length: expected }, (_, i) => `INV-${String(i + 1).padStart(4, '0')}`));
  expect(await count(`SELECT next_invoice_number AS n FROM invoicing_entities WHERE tenant_id = $1 AND id = $2`, [h.tenant.id, due.entityId])).toBe(expected + 1);

  // Usage counted once: each of this month's invoices bills last month's calls, exactly those.
  const usage = await h.db.pool.query<{ quantity: string; n: string }>(
    `SELECT l.quantity::text AS quantity, count(*) AS n FROM invoice_lines l JOIN invoices i ON i.tenant_id = l.tenant_id AND i.id = l.invoice_id
      WHERE l.tenant_id = $1 AND l.category = 'USAGE' GROUP BY 1`, [h.tenant.id]);
  expect(usage.rows.map((r) => [Number(r.quantity), Number(r.n)])).toEqual([[CALLS_PER_CUSTOMER, due.subscriptions.length]]);

  // Every event once per invoice, and one stored PDF per invoice.
  for (const type of ['invoice.created', 'invoice.finalized', 'invoice.accounting_pdf_generated']) {
    const events = await h.db.pool.query<{ object_id: string; n: string }>(`SELECT object_id, count(*) AS n FROM outbox_events WHERE tenant_id = $1 AND event_type = $2 GROUP BY object_id`, [h.tenant.id, type]);
    expect({ type, invoices: events.rowCount, repeated: events.rows.filter((r) => Number(r.n) !== 1).length }).toEqual({ type, invoices: expected, repeated: 0 });
  }
  expect(await count(`SELECT count(*) AS n FROM documents WHERE tenant_id = $1 AND kind = 'INVOICE_PDF'`)).toBe(expected);
}

/** Invoices of the tenant that are finalized and have their stored PDF. */
export async function finishedInvoices(h: Harness): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM invoices WHERE tenant_id = $1 AND status = 'FINALIZED' AND pdf_document_id IS NOT NULL`, [h.tenant.id]);
  return Number(rows[0]!.n);
}
