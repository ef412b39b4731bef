// Bill-run throughput and memory: a run over BENCH_SUBSCRIPTIONS (default 10,000) subscriptions
// with usage. Each subscription started 2026-02-01 (Platform 49.00 + 1 seat in advance, API calls
// per unit in arrears); the run is timed as of 2026-03-02, so it creates two invoices per
// subscription (the first, and March's with February's usage), then finalizes them.
// Target (issue 20): 100,000 subscriptions, create then finalize, under 120 s; memory bounded.
// `BENCH_SUBSCRIPTIONS=100000 BENCH_DATABASE_URL=postgres://... npm run bench bill-run`.
//
// Setup is not what is measured: one customer and subscription go through the API, the others
// are SQL copies of them (same plan, same components); usage goes through bulk ingestion and is
// folded into the rollups, as a served process's worker does.
// Printed besides durations: statements per subscription, CPU seconds of this process and of
// the bench database's PostgreSQL backends (load-independent, unlike durations on a shared
// machine), and this process's peak RSS during each phase.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config/index.js';
import { ManualClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import type { Queryable } from '../src/db/pool.js';
import { dueDraftsOfEntity, type DueDraftKey } from '../src/modules/invoices/repository.js';
import { eventsLeftUnfolded } from '../src/modules/usage/repository.js';
import { openBenchDatabase } from './database.js';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);

/** Statements sent by every pg client of this process (the pool's included). */
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** CPU seconds (user + system) of a process, from /proc (Linux); 0 once it has exited. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/**
 * BENCH_STATEMENTS=N: after each phase, the N statements that took PostgreSQL the longest in it
 * (pg_stat_statements, reset at the phase's start). The server must load the module
 * (`shared_preload_libraries=pg_stat_statements`); without it, a line says so.
 */
const TOP_STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 0);

async function statementsOfPhase(admin: pg.Client): Promise<() => Promise<string[]>> {
  if (TOP_STATEMENTS <= 0) return async () => [];
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query('SELECT pg_stat_statements_reset()');
  } catch (error) {
    return async () => [`  (no statement figures: ${(error as Error).message})`];
  }
  return async () => {
    const { rows } = await admin.query<{ calls: string; total_ms: number; mean_ms: number; rows: string; blocks: string; query: string }>(
      `SELECT calls, total_exec_time AS total_ms, mean_exec_time AS mean_ms, rows, shared_blks_hit + shared_blks_read AS blocks, query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT $1`,
      [TOP_STATEMENTS],
    );
    return rows.map((r) => `  ${r.total_ms.toFixed(0).padStart(7)} ms  ${String(r.calls).padStart(6)} calls  ${r.mean_ms.toFixed(2).padStart(8)} ms each  ${String(r.rows).padStart(8)} rows  ${String(r.blocks).padStart(9)} blocks  ${r.query.replace(/\s+/g, ' ').slice(0, 110)}`);
  };
}

/**
 * Samples, while a phase runs: this process's RSS (peak) and the CPU time of the PostgreSQL
 * backends serving the bench database (each backend's growth since first seen, summed).
 */
function sampler(admin: pg.Client, database: string) {
  let peakRss = 0;
  const seen = new Map<number, { first: number; last: number }>();
  let stopped = false;
  const sampleBackends = async () => {
    const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    for (const { pid } of rows) {
      const cpu = cpuSecondsOf(pid);
      const entry = seen.get(pid);
      if (entry) entry.last = Math.max(entry.last, cpu);
      else seen.set(pid, { first: cpu, last: cpu });
    }
  };
  const rssTimer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
  const loop = (async () => {
    while (!stopped) {
      await sampleBackends();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const cpuStart = process.cpuUsage();
  const statementsStart = statements;
  const start = performance.now();
  return async () => {
    const seconds = (performance.now() - start) / 1000;
    stopped = true;
    await loop;
    await sampleBackends();
    clearInterval(rssTimer);
    const cpu = process.cpuUsage(cpuStart);
    let pgCpu = 0;
    for (const { first, last } of seen.values()) pgCpu += last - first;
    return { seconds, statements: statements - statementsStart, nodeCpuS: (cpu.user + cpu.system) / 1e6, pgCpuS: pgCpu, peakRssMb: Math.max(peakRss, process.memoryUsage().rss) / 1048576 };
  };
}

/**
 * `BENCH_EXPLAIN=1`: the plans of the finalization batch selection (the statement
 * `finalizeDueDrafts` sends, run under EXPLAIN (ANALYZE, BUFFERS) in a rolled-back transaction):
 * the first batch, and a keyset batch starting halfway through the drafts.
 */
async function explainFinalizationBatch(pool: pg.Pool, tenantId: string, entityId: string, now: Date): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const explaining: Queryable = { query: <R extends pg.QueryResultRow>(text: string, params?: unknown[]) => client.query<R>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params) };
    // the first batch, and a batch halfway (keyset: after the middle draft)
    const middle = (await client.query<DueDraftKey>(`SELECT invoice_date::text, id FROM invoices WHERE tenant_id = $1 AND status = 'DRAFT' ORDER BY invoice_date, id OFFSET (SELECT count(*) / 2 FROM invoices WHERE tenant_id = $1) LIMIT 1`, [tenantId])).rows[0] ?? null;
    for (const after of [null, middle]) {
      const plan = (await dueDraftsOfEntity(explaining, tenantId, entityId, now, 500, null, after)) as unknown as { 'QUERY PLAN': string }[];
      process.stdout.write(`finalization batch selection${after ? ` after ${after.invoice_date} ${after.id}` : ''}:\n${plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}\n`);
    }
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

export async function run(): Promise<void> {
  const db = await openBenchDatabase('bill_run');
  const { pool } = db;
  const database = new URL(db.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const clock = new ManualClock('2026-02-01T08:00:00.000Z');
    const env = { SECRET_KEY: 'bench-only-secret', ...(process.env.BILLING_RUN_BATCH_SIZE ? { BILLING_RUN_BATCH_SIZE: process.env.BILLING_RUN_BATCH_SIZE } : {}) };
    const config = loadConfig(env);
    const service = await compose({ pool, clock, config: { ...config, logLevel: 'silent', rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 } } });
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
    const template = await call('POST', '/api/v1/customers', { name: 'Customer 0', currency: 'EUR', billing_address: { country: 'FR' } });
    const templateSub = await call('POST', '/api/v1/subscriptions', { customer_id_or_alias: template.id, plan_version_id: versionId, start_date: '2026-02-01', billing_day_anchor: 1 });
    // copies of the template rows, ids `<prefix>_BENCH<n, 21 digits>` (26-character suffixes like generated ids)
    const benchId = (prefix: string, n: string) => `'${prefix}_BENCH' || lpad((${n})::text, 21, '0')`;
    for (let from = 1; from < SUBSCRIPTIONS; from += 20_000) {
      const to = Math.min(SUBSCRIPTIONS - 1, from + 19_999);
      // The template rows are read once (MATERIALIZED), and each copied table is analyzed at once:
      // with the statistics of a nearly empty table, the planner scanned the table for each of the
      // 20,000 copies, and the foreign-key checks of the next table (their plans are cached per
      // connection) scanned the customers for each row: a 100,000 setup spent minutes per chunk.
      const copy = async (table: string, templateWhere: string, overrides: string) => {
        await pool.query(
          `WITH template AS MATERIALIZED (SELECT * FROM ${table} t WHERE t.tenant_id = $1 AND ${templateWhere})
           INSERT INTO ${table} SELECT (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object(${overrides}))).*
           FROM template t, generate_series($2::int, $3::int) g`,
          [tenant.id, from, to, template.id, templateSub.id]);
        await pool.query(`ANALYZE ${table}`);
      };
      await copy('customers', 't.id = $4 AND $5::text IS NOT NULL', `'id', ${benchId('cus', 'g')}, 'name', 'Customer ' || g`);
      await copy('subscriptions', 't.id = $5 AND $4::text IS NOT NULL', `'id', ${benchId('sub', 'g')}, 'customer_id', ${benchId('cus', 'g')}, 'created_at', t.created_at + g * interval '1 millisecond'`);
      await copy('subscription_components', 't.subscription_id = $5 AND $4::text IS NOT NULL', `'id', ${benchId('sub_price', 'g * 10 + t.position')}, 'subscription_id', ${benchId('sub', 'g')}`);
    }
    const customerIds = (await pool.query<{ id: string }>('SELECT id FROM customers WHERE tenant_id = $1 ORDER BY id', [tenant.id])).rows.map((r) => r.id);
    clock.set('2026-02-20T12:00:00.000Z');
    for (let i = 0; i < customerIds.length; i += 2000) {
      const events = customerIds.slice(i, i + 2000).flatMap((customerId, k) =>
        Array.from({ length: 3 }, (_, n) => ({ event_id: `e-${i + k}-${n}`, code: 'bench_call', customer_id: customerId, timestamp: '2026-02-20T10:00:00Z', properties: {} })));
      await call('POST', '/api/v1/events/ingest', { events });
    }
    // The rollup fold, as a served process's worker runs it within a second of ingestion: without
    // it every batch's usage read took the tenant's unfolded events raw, a cost that grew with the
    // run's size (creation's PostgreSQL CPU per subscription 0.65 ms at 10,000, 0.95 at 100,000).
    await service.tasks['usage.rollup']!({ tenant_id: tenant.id });
    const unfolded = await eventsLeftUnfolded(pool, tenant.id);
    // Statistics of the usage tables, as autovacuum takes them within a minute or so of the ingestion.
    // Without them the planner takes the just-filled month partition for a few rows, and the read of
    // events not folded yet (none here) walks the tenant's whole month per batch of customers.
    await pool.query('ANALYZE usage_events, usage_rollups, usage_rollups_daily');
    const setupS = (performance.now() - setupStart) / 1000;
    process.stdout.write(`setup: ${SUBSCRIPTIONS} customers + subscriptions + ${SUBSCRIPTIONS * 3} usage events, ${unfolded ? 'NOT all folded (events left above the rollup watermark)' : 'folded'}, in ${setupS.toFixed(1)} s (load ${load()})\n`);

    clock.set('2026-03-02T12:00:00.000Z'); // past March 1st's grace period: the run also finalizes
    const startLoad = load();
    const createStatements = await statementsOfPhase(admin);
    const creating = sampler(admin, database);
    const created = await service.invoicing.billing.runAll();
    const c = await creating();
    const createdStatements = await createStatements();
    // BENCH_ANALYZE=1: fresh statistics of the drafts before finalizing (autovacuum gives them a while after the run)
    if (process.env.BENCH_ANALYZE) await pool.query('ANALYZE invoices');
    if (process.env.BENCH_EXPLAIN) await explainFinalizationBatch(pool, tenant.id, entity.id, clock.now());
    const finalizeStatements = await statementsOfPhase(admin);
    const finalizing = sampler(admin, database);
    const finalized = await service.invoicing.lifecycle.finalizeDueDrafts(Number.MAX_SAFE_INTEGER);
    const f = await finalizing();
    const finalizedStatements = await finalizeStatements();
    const totalS = c.seconds + f.seconds;
    const per = (n: number) => (n / SUBSCRIPTIONS).toFixed(3);
    const ms = (s: number) => ((s * 1000) / SUBSCRIPTIONS).toFixed(3);
    process.stdout.write([
      `batch size ${config.billingRunBatchSize}; load average at start ${startLoad}, at end ${load()}`,
      `create:   ${created.invoicesCreated} invoices for ${created.subscriptions} subscriptions in ${c.seconds.toFixed(1)} s (${(created.invoicesCreated / c.seconds).toFixed(0)} invoices/s); ${per(c.statements)} statements, ${ms(c.nodeCpuS)} ms node CPU, ${ms(c.pgCpuS)} ms PostgreSQL CPU per subscription; peak RSS ${c.peakRssMb.toFixed(0)} MB`,
      `finalize: ${finalized} invoices in ${f.seconds.toFixed(1)} s (${(finalized / f.seconds).toFixed(0)} invoices/s); ${per(f.statements)} statements, ${ms(f.nodeCpuS)} ms node CPU, ${ms(f.pgCpuS)} ms PostgreSQL CPU per subscription; peak RSS ${f.peakRssMb.toFixed(0)} MB`,
      ...(createdStatements.length ? ['statements of create, by PostgreSQL time:', ...createdStatements, 'statements of finalize, by PostgreSQL time:', ...finalizedStatements] : []),
      `whole run: ${totalS.toFixed(1)} s (target < 120 s at 100,000 subscriptions); CPU ${(c.nodeCpuS + f.nodeCpuS).toFixed(1)} s node + ${(c.pgCpuS + f.pgCpuS).toFixed(1)} s PostgreSQL${created.failures.length ? `; ${created.failures.length} failures, first: ${created.failures[0]!.message}` : ''}`,
    ].join('\n') + '\n');
    await service.app.close();
  } finally {
    await admin.end();
    await db.close();
  }
}
