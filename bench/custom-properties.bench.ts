// Custom property filters (docs/custom-properties.md): the customer list filtered by
// `custom_properties[<key>]=<value>` with BENCH_CUSTOMERS (100,000) customers in the tenant.
// Prints the plan PostgreSQL chooses (EXPLAIN ANALYZE of the list's page and count statements)
// and the time of the HTTP request. Run alone: `npm run bench custom-properties`.
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 100_000);
const TIERS = ['bronze', 'silver', 'gold', 'platinum'];

export async function run(): Promise<void> {
  const db = await openBenchDatabase('cprops');
  try {
    const config = { ...loadConfig({}), logLevel: 'silent', secretKey: 'bench-only-secret-key' };
    const service = await compose({ pool: db.pool, clock: systemClock, config });
    const account = await service.accounts.bootstrap({ email: 'bench@cprops.test', password: 'password-bench', organization: 'Bench' });
    const tenant = account.tenants.find((t) => t.environment === 'production')!;
    const headers = { authorization: `Bearer ${tenant.api_key}` };
    const define = (body: Record<string, unknown>) => service.app.inject({ method: 'POST', url: '/api/v1/custom-properties', headers, payload: { entity_type: 'CUSTOMER', ...body } });
    await define({ key: 'tier', name: 'Tier', type: 'SINGLE_SELECT', options: TIERS });
    await define({ key: 'vip', name: 'VIP', type: 'BOOLEAN' });
    // the tenant's default invoicing entity, created with its first customer
    const first = await service.app.inject({ method: 'POST', url: '/api/v1/customers', headers, payload: { name: 'First', currency: 'EUR' } });
    const entityId = (first.json() as { invoicing_entity_id: string }).invoicing_entity_id;
    const seeded = Date.now();
    await db.pool.query(
      `INSERT INTO customers (id, tenant_id, name, currency, invoicing_entity_id, custom_properties, created_at, updated_at)
       SELECT 'cus_bench_' || g, $1, 'Customer ' || g, 'EUR', $4,
              jsonb_build_object('tier', ($2::text[])[1 + g % 4], 'vip', g % 100 = 0, 'crm_id', 'CRM-' || g), now(), now()
       FROM generate_series(1, $3::int) AS g`,
      [tenant.id, TIERS, CUSTOMERS, entityId],
    );
    await db.pool.query('ANALYZE customers');
    process.stdout.write(`seeded ${CUSTOMERS} customers in ${Date.now() - seeded} ms\n`);

    const cases: [string, Record<string, unknown>][] = [
      ['custom_properties[crm_id]=CRM-4242 (1 match)', { crm_id: 'CRM-4242' }],
      ['custom_properties[vip]=true (1 % match)', { vip: true }],
      ['custom_properties[tier]=gold (25 % match)', { tier: 'gold' }],
    ];
    for (const [label, filter] of cases) {
      const where = `tenant_id = $1 AND (archived_at IS NOT NULL) = false AND custom_properties @> $2::jsonb`;
      const params = [tenant.id, JSON.stringify(filter)];
      const page = await db.pool.query(`EXPLAIN (ANALYZE, FORMAT TEXT) SELECT id FROM customers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 10`, params);
      const count = await db.pool.query(`EXPLAIN (ANALYZE, FORMAT TEXT) SELECT count(*) FROM customers WHERE ${where}`, params);
      const query = Object.entries(filter).map(([key, value]) => `custom_properties[${key}]=${encodeURIComponent(String(value))}`).join('&');
      const started = performance.now();
      const res = await service.app.inject({ method: 'GET', url: `/api/v1/customers?${query}`, headers });
      const ms = performance.now() - started;
      process.stdout.write(`\n-- ${label}: HTTP ${res.statusCode}, ${res.json().pagination_meta.total_items} customers, ${ms.toFixed(1)} ms\n`);
      process.stdout.write(`page:\n${page.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\ncount:\n${count.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`);
    }
    await service.app.close();
  } finally {
    await db.close();
  }
}
