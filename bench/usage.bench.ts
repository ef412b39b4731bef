// Usage metering figures: bulk HTTP ingestion vs a raw COPY ceiling, single-event POSTs, usage
// query latency with a large tenant, and ingest-to-visible delay. Sizes via env (see docs/usage.md).
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import autocannonModule from 'autocannon';

interface Result { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
const autocannon = autocannonModule as unknown as (options: Record<string, unknown>) => Promise<Result>;
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';
// @ts-expect-error plain JavaScript module, no types
import { eventTimestamp } from './load.mjs';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BULK_EVENTS = env('BENCH_BULK_EVENTS', 500_000);
const BATCH = env('BENCH_BATCH', 5_000);
const QUERY_EVENTS = env('BENCH_QUERY_EVENTS', 10_000_000);
const CUSTOMERS = env('BENCH_CUSTOMERS', 200);
const DURATION_S = env('BENCH_SECONDS', 10);
// The server's log level during the run (requests are not logged at 'warn').
const LOG_LEVEL = process.env.BENCH_LOG ?? 'warn';

function copyIn(url: string, table: string, columns: string, rows: Iterable<string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', [url, '-q', '-c', `\\copy ${table} (${columns}) FROM STDIN WITH (FORMAT csv)`], { stdio: ['pipe', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}`))));
    let chunk = '';
    for (const row of rows) {
      chunk += row;
      if (chunk.length > 1 << 20) {
        child.stdin.write(chunk);
        chunk = '';
      }
    }
    child.stdin.end(chunk);
  });
}

/** Runs bench/load.mjs with this spec in its own process and returns the figures it prints. */
function load<T>(spec: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [new URL('./load.mjs', import.meta.url).pathname, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`load generator exited ${code}`))));
  });
}

export async function run(): Promise<void> {
  const db = await openBenchDatabase('usage');
  const { pool, url } = db;
  try {
    const config = { ...loadConfig({ SECRET_KEY: 'bench-only-secret' }), logLevel: LOG_LEVEL, rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 }, bodyLimitBytes: 50 * 1024 * 1024 };
    const service = await compose({ pool, clock: systemClock, config });
    const boot = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = boot.tenants.find((t) => t.environment === 'sandbox')!;
    const auth = { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' };
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const inject = async (method: 'POST' | 'GET', url: string, body?: unknown) => (await service.app.inject({ method, url, headers: auth, payload: body as object })).json();

    const family = await inject('POST', '/api/v1/product_families', { name: 'Bench' });
    const metric = await inject('POST', '/api/v1/metrics', { name: 'Bytes', code: 'bench', aggregation_type: 'SUM', aggregation_key: 'bytes', usage_group_key: 'region', product_family_id: family.id });
    const customers: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) customers.push((await inject('POST', '/api/v1/customers', { name: `C${i}`, currency: 'EUR', alias: `bench-${i}` })).id);

    // 1. Bulk ingestion through HTTP (4 concurrent clients posting BATCH-event batches), from another process.
    const nowMs = Date.now();
    const bulk = await load<{ events: number; seconds: number; loadCores: number }>({ mode: 'bulk', url: `${address}/api/v1/events/ingest`, headers: auth, customers, total: BULK_EVENTS, batch: BATCH, clients: 4, nowMs });
    const bulkRate = bulk.events / bulk.seconds;

    // Each later phase starts from a settled database: the previous phase's rows vacuumed and
    // checkpointed, so autovacuum and the checkpointer do not run during its measurement.
    const settle = async () => {
      await pool.query('VACUUM (ANALYZE) usage_events, usage_event_ids');
      await pool.query('CHECKPOINT');
    };

    // 2. Ceiling: the same number of rows by a raw COPY into the events table.
    const tenantKey = (await pool.query<{ key: number }>('SELECT key FROM tenants WHERE id = $1', [tenant.id])).rows[0]!.key;
    await settle();
    const copyStart = performance.now();
    await copyIn(url, 'usage_events', 'tenant_key, event_id, code, customer_ref, ts, properties, ingested_at', (function* () {
      const ingestedAt = new Date(nowMs).toISOString();
      for (let i = 0; i < bulk.events; i++) yield `${tenantKey},copy-${i},bench,${customers[i % customers.length]},${eventTimestamp(nowMs, i)},"{""bytes"": ""${i % 1000}"", ""region"": ""eu""}",${ingestedAt}\n`;
    })());
    const copyRate = bulk.events / ((performance.now() - copyStart) / 1000);

    await settle();
    // 3. Single events at 50 connections (unique idempotency key per request), from another process.
    const single = await load<Result>({ mode: 'single', url: `${address}/api/v1/events`, connections: 50, durationS: DURATION_S, headers: auth, customers });

    // 4. A tenant with QUERY_EVENTS events over the last 3 months; rollups folded, then queries.
    const seedStart = performance.now();
    const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1));
    const from = new Date(monthStart.getTime() - 31 * 86_400_000);
    for (let m = -2; m <= 1; m++) await pool.query('SELECT usage_events_ensure_partition($1)', [new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + m, 1))]);
    // Bulk-load practice: drop the events' btree, insert, rebuild it (about half the time of
    // maintaining it row by row). The dedup ledger is not seeded: queries never read it.
    const seeder = await pool.connect();
    try {
      await seeder.query(`SET maintenance_work_mem = '256MB'`);
      await seeder.query('DROP INDEX usage_events_customer_code_ts_idx');
      await seeder.query(
        `INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
         SELECT $1, 'seed-' || g, 'bench', ($2::text[])[1 + g % $3], $4::timestamptz + (g % 7776000) * interval '1 second',
                jsonb_build_object('bytes', (g % 1000)::text, 'region', CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END), now()
         FROM generate_series(1, $5::int) g`,
        [tenantKey, customers, customers.length, from, QUERY_EVENTS],
      );
      await seeder.query('CREATE INDEX usage_events_customer_code_ts_idx ON usage_events (tenant_key, customer_ref, code, ts)');
      await seeder.query('ANALYZE usage_events');
    } finally {
      seeder.release();
    }
    const seedS = (performance.now() - seedStart) / 1000;
    const rollStart = performance.now();
    await service.tasks['usage.rollup']!({ tenant_id: tenant.id });
    const rollS = (performance.now() - rollStart) / 1000;
    // How much the query must still read raw: events above the rollup watermark (a transaction
    // open anywhere on a shared server during the fold holds the watermark back).
    const tail = await pool.query<{ tail: string; watermark: string }>(
      `SELECT (SELECT count(*) FROM usage_events e WHERE e.tenant_key = $3 AND e.xid >= s.watermark)::text AS tail, s.watermark::text AS watermark
       FROM usage_rollup_state s WHERE s.tenant_id = $1 AND s.metric_id = $2`,
      [tenant.id, metric.id, tenantKey],
    );
    const period = `start_date=${monthStart.toISOString().slice(0, 10)}&end_date=${new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)}`;
    const query = await autocannon({ url: `${address}/api/v1/usage/customer/${customers[7]}?${period}&metric_id=${metric.id}`, connections: 4, duration: DURATION_S, headers: auth });

    // 5. Ingest-to-visible delay: one event, then poll today's usage.
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const probe = customers[3]!;
    const usageNow = async () => (await inject('GET', `/api/v1/usage/customer/${probe}?start_date=${today}&end_date=${tomorrow}&metric_id=${metric.id}`)).usage[0].total_value as string;
    const beforeValue = await usageNow();
    const visStart = performance.now();
    await fetch(`${address}/api/v1/events`, { method: 'POST', headers: auth, body: JSON.stringify({ idempotency_key: 'visible-probe', code: 'bench', customer_id: probe, properties: { bytes: '12345', region: 'eu' } }) });
    while ((await usageNow()) === beforeValue) await new Promise((r) => setTimeout(r, 5));
    const visibleMs = performance.now() - visStart;

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    process.stdout.write([
      `machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (at the end); server log level ${LOG_LEVEL}`,
      `bulk HTTP ingestion     ${fmt(bulkRate)} events/s  (${fmt(bulk.events)} events, batches of ${BATCH}, 4 clients; the load generator used ${bulk.loadCores.toFixed(2)} cores)`,
      `raw COPY ceiling        ${fmt(copyRate)} rows/s   -> HTTP ingestion = ${((bulkRate / copyRate) * 100).toFixed(0)}% of COPY`,
      `single POST /events     ${fmt(single.requests.average)} req/s, p50 ${single.latency.p50} ms, p99 ${single.latency.p99} ms (50 connections, ${single.non2xx} non-2xx, ${single.errors} errors)`,
      `seed ${fmt(QUERY_EVENTS)} events     ${seedS.toFixed(1)} s; rollup fold ${rollS.toFixed(1)} s (analyzes the rollups after a large fold); events above the rollup watermark: ${tail.rows[0] ? fmt(Number(tail.rows[0].tail)) : 'no rollups'}`,
      `usage query (1 cust-month, ${fmt(QUERY_EVENTS)} events in tenant)  p50 ${query.latency.p50} ms, p99 ${query.latency.p99} ms, ${fmt(query.requests.average)} req/s (4 connections, ${query.non2xx} non-2xx)`,
      `ingest -> visible in usage  ${visibleMs.toFixed(1)} ms`,
      '',
    ].join('\n'));
    await service.app.close();
  } finally {
    await db.close();
  }
}
