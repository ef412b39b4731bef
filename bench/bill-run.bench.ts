// Bill-run throughput: invoices per second for a run over BENCH_SUBSCRIPTIONS (default 10,000)
// subscriptions with usage. Each subscription started 2026-02-01 (Platform 49.00 + 1 seat in
// advance, API calls per unit in arrears); the run is timed as of 2026-03-01, so it creates two
// invoices per subscription (the first, and March's with February's usage), then finalizes them.
// Target (issue 6): the whole run under 30 s on this machine. Run alone: `npm run bench bill-run`.
import { loadConfig } from '../src/config/index.js';
import { ManualClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);

export async function run(): Promise<void> {
  const db = await openBenchDatabase('bill_run');
  const { pool } = db;
  try {
    const clock = new ManualClock('2026-02-01T08:00:00.000Z');
    const service = await compose({ pool, clock, config: { ...loadConfig({ SECRET_KEY: 'bench-only-secret' }), logLevel: 'silent', rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 } } });
    const account = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = account.tenants.find((t) => t.environment === 'sandbox')!;
    const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
      const res = await service.app.inject({ method, url, headers: { authorization: `Bearer ${tenant.api_key}` }, ...(body ? { payload: body as object } : {}) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    };
    const entity = (await call('GET', '/api/v1/invoicing-entities')).data[0];
    await call('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { country: 'FR' });
    const family = await call('POST', '/api/v1/product_families', { name: 'Bench' });
    const metric = await call('POST', '/api/v1/metrics', { name: 'Calls', code: 'bench_call', aggregation_type: 'COUNT', product_family_id: family.id });
    const product = async (fee_structure: Record<string, unknown>) => (await call('POST', '/api/v1/products', { name: 'P', product_family_id: family.id, fee_structure })).id as string;
    const [rateProduct, slotProduct, usageProduct] = [await product({ type: 'RATE' }), await product({ type: 'SLOT', slot_unit_name: 'seat' }), await product({ type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' })];
    const planId = 'plan_BENCH0000000000000000000001';
    const versionId = 'plv_BENCH00000000000000000000001';
    const at = new Date('2026-01-01T00:00:00Z');
    const client = await pool.connect();
    await client.query('BEGIN'); // the plan and its active version reference each other (deferred FK)
    await client.query(`INSERT INTO plans (id, tenant_id, product_family_id, name, plan_type, status, active_version_id, created_at, updated_at) VALUES ($1, $2, $3, 'Bench', 'STANDARD', 'ACTIVE', $4, $5, $5)`, [planId, tenant.id, family.id, versionId, at]);
    await client.query(`INSERT INTO plan_versions (id, tenant_id, plan_id, version, is_draft, currency, net_terms, created_at, published_at) VALUES ($1, $2, $3, 1, false, 'EUR', 30, $4, $4)`, [versionId, tenant.id, planId, at]);
    await client.query('COMMIT');
    client.release();
    const component = (position: number, name: string, productId: string, feeType: string, fee: unknown, metricId: string | null) =>
      pool.query(`INSERT INTO price_components (id, tenant_id, plan_version_id, position, name, product_id, fee_type, fee, metric_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [`price_BENCH${position}`, tenant.id, versionId, position, name, productId, feeType, JSON.stringify(fee), metricId]);
    await component(0, 'Platform', rateProduct, 'RATE', { type: 'RATE', rates: [{ term: 'MONTHLY', price: '49.00' }] }, null);
    await component(1, 'Seats', slotProduct, 'SLOT', { type: 'SLOT', rates: [{ term: 'MONTHLY', price: '10.00' }], slot_unit_name: 'seat', minimum_count: 1, quota: 50, upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' }, null);
    await component(2, 'API calls', usageProduct, 'USAGE', { type: 'USAGE', metric_id: metric.id, cadence: 'MONTHLY', pricing: { type: 'PER_UNIT', rate: '0.002' } }, metric.id);

    const setupStart = performance.now();
    const customers: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i += 1) {
      const customer = await call('POST', '/api/v1/customers', { name: `Customer ${i}`, currency: 'EUR', billing_address: { country: 'FR' } });
      customers.push(customer.id);
      await call('POST', '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_version_id: versionId, start_date: '2026-02-01', billing_day_anchor: 1 });
    }
    clock.set('2026-02-20T12:00:00.000Z');
    for (let i = 0; i < customers.length; i += 1000) {
      const events = customers.slice(i, i + 1000).flatMap((customerId, k) =>
        Array.from({ length: 3 }, (_, n) => ({ event_id: `e-${i + k}-${n}`, code: 'bench_call', customer_id: customerId, timestamp: '2026-02-20T10:00:00Z', properties: {} })));
      await call('POST', '/api/v1/events/ingest', { events });
    }
    const setupS = (performance.now() - setupStart) / 1000;

    clock.set('2026-03-02T12:00:00.000Z'); // past March 1st's grace period: the run also finalizes
    const start = performance.now();
    const created = await service.invoicing.billing.runAll();
    const createdS = (performance.now() - start) / 1000;
    const finalized = await service.invoicing.lifecycle.finalizeDueDrafts(Number.MAX_SAFE_INTEGER);
    const totalS = (performance.now() - start) / 1000;
    process.stdout.write([
      `setup: ${SUBSCRIPTIONS} customers + subscriptions + usage in ${setupS.toFixed(1)} s`,
      `bill run: ${created.invoicesCreated} invoices created for ${created.subscriptions} subscriptions in ${createdS.toFixed(2)} s (${(created.invoicesCreated / createdS).toFixed(0)} invoices/s)`,
      `finalize: ${finalized} invoices finalized; whole run ${totalS.toFixed(2)} s (${((created.invoicesCreated + finalized) / totalS).toFixed(0)} invoice operations/s; target < 30 s)`,
    ].join('\n') + '\n');
    await service.app.close();
  } finally {
    await db.close();
  }
}
