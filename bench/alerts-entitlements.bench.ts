// Usage alerts and metered entitlements (issue 17; docs/credits-and-alerts.md):
//   1. bulk HTTP ingestion with no alert, then with BENCH_ALERTS (1,000) active alerts, one per
//      customer, none crossing (every batch touches them all, so every round evaluates them);
//   2. alert latency: from the 2xx of the event that crosses a threshold to its alert.triggered
//      in the outbox, while BENCH_ALERT_RATE (10,000) events/s are ingested;
//   3. the entitlement check (GET /api/v1/customers/{id}/entitlements/{feature}) with
//      BENCH_CHECK_EVENTS (10,000,000) events in the tenant, rollups folded.
// Run alone: `npm run bench alerts`. Benchmarks print figures and never fail on them.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import autocannonModule from 'autocannon';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { startWorker } from '../src/jobs/runtime.js';
import { openBenchDatabase } from './database.js';

interface Result { requests: { average: number }; latency: { p50: number; p99: number; p90: number }; non2xx: number; errors: number }
const autocannon = autocannonModule as unknown as (options: Record<string, unknown>) => Promise<Result>;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ALERTS = env('BENCH_ALERTS', 1_000);
const BULK_EVENTS = env('BENCH_ALERT_BULK_EVENTS', 100_000);
const BATCH = env('BENCH_BATCH', 1_000);
const RATE = env('BENCH_ALERT_RATE', 10_000);
const PROBES = env('BENCH_ALERT_PROBES', 20);
const CHECK_EVENTS = env('BENCH_CHECK_EVENTS', 10_000_000);
const DURATION_S = env('BENCH_SECONDS', 10);

function load<T>(spec: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [new URL('./load.mjs', import.meta.url).pathname, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`load generator exited ${code}`))));
  });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export async function run(): Promise<void> {
  const db = await openBenchDatabase('alerts');
  const { pool } = db;
  try {
    const config = { ...loadConfig({ SECRET_KEY: 'bench-only-secret' }), logLevel: 'warn', rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 }, bodyLimitBytes: 50 * 1024 * 1024 };
    const service = await compose({ pool, clock: systemClock, config });
    // the job worker, as `serve` runs it: rollups are folded about every second while events arrive (alerts read them)
    const worker = await startWorker(pool, service.tasks, { concurrency: 2, heartbeatMs: config.workerHeartbeatMs });
    const boot = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = boot.tenants.find((t) => t.environment === 'sandbox')!;
    const auth = { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' };
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const call = async (method: 'POST' | 'GET' | 'PATCH', url: string, body?: unknown) => {
      const res = await service.app.inject({ method, url, headers: auth, ...(body ? { payload: body as object } : {}) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    };

    const family = await call('POST', '/api/v1/product_families', { name: 'Bench' });
    const metric = await call('POST', '/api/v1/metrics', { name: 'Calls', code: 'bench_calls', aggregation_type: 'COUNT', product_family_id: family.id });
    const feature = await call('POST', '/api/v1/features', { code: 'api-calls', name: 'API calls', feature_type: { type: 'METERED', metric_id: metric.id } });
    const product = await call('POST', '/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const plan = await call('POST', '/api/v1/plans', {
      name: 'Pro', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
      components: [{ name: 'Platform', product_id: product.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } }],
      entitlements: [{ feature_id: feature.id, value: { limit: '100000', reset_period: { type: 'BILLING_CYCLE' } } }],
    });
    const start = new Date();
    const startDate = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
    const setupStart = performance.now();
    const customers: string[] = [];
    for (let i = 0; i < ALERTS + PROBES; i += 20) {
      const made = await Promise.all(Array.from({ length: Math.min(20, ALERTS + PROBES - i) }, async (_, j) => {
        const customer = await call('POST', '/api/v1/customers', { name: `C${i + j}`, currency: 'EUR', alias: `bench-${i + j}` });
        await call('POST', '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: startDate });
        return customer.id as string;
      }));
      customers.push(...made);
    }
    const loaded = customers.slice(0, ALERTS);
    const probes = customers.slice(ALERTS);
    const setupS = (performance.now() - setupStart) / 1000;
    const settle = async () => {
      await service.alerts.idle();
      await pool.query('VACUUM (ANALYZE) usage_events, usage_event_ids');
      await pool.query('CHECKPOINT');
    };

    // 1. Ingestion without alerts, then with ALERTS alerts (none crossing); each run twice, alternating, to see the noise.
    const rates: { without: number[]; with: number[] } = { without: [], with: [] };
    const bulkRun = async (prefix: string) => {
      await settle();
      // BULK_EVENTS events as fast as 4 clients can post them
      const result = await load<{ events: number; seconds: number; loadCores: number }>({ mode: 'bulk', url: `${address}/api/v1/events/ingest`, headers: auth, customers: loaded, total: BULK_EVENTS, batch: BATCH, clients: 4, nowMs: Date.now(), code: metric.code, prefix });
      await service.alerts.idle();
      return result.events / result.seconds;
    };
    rates.without.push(await bulkRun('a'));
    const alertIds: string[] = [];
    const createAlerts = async () => {
      for (let i = 0; i < loaded.length; i += 20) {
        alertIds.push(...(await Promise.all(loaded.slice(i, i + 20).map(async (customer) => (await call('POST', '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer, metric_id: metric.id, thresholds: ['1000000000'] })).id as string))));
      }
      await service.alerts.idle();
    };
    await createAlerts();
    rates.with.push(await bulkRun('b'));
    for (const id of alertIds.splice(0)) await service.app.inject({ method: 'DELETE', url: `/api/v1/alerts/${id}`, headers: auth });
    rates.without.push(await bulkRun('c'));
    await createAlerts();
    rates.with.push(await bulkRun('d'));

    // 2. Latency at RATE events/s (ALERTS alerts active): a probe customer's first event crosses its alert's threshold of 1.
    for (const probe of probes) await call('POST', '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: probe, metric_id: metric.id, thresholds: ['1'] });
    await settle();
    const background = load<{ events: number; seconds: number }>({ mode: 'paced', url: `${address}/api/v1/events/ingest`, headers: auth, customers: loaded, code: metric.code, rate: RATE, batch: 500, durationS: PROBES * 0.5 + 3, prefix: 'paced' });
    await new Promise((r) => setTimeout(r, 1_500));
    const latencies: number[] = [];
    for (const [i, probe] of probes.entries()) {
      const res = await fetch(`${address}/api/v1/events`, { method: 'POST', headers: auth, body: JSON.stringify({ event_id: `probe-${i}`, code: metric.code, customer_id: probe, timestamp: new Date().toISOString(), properties: {} }) });
      const answeredAt = Date.now();
      if (res.status !== 201) throw new Error(`probe ${i}: ${res.status}`);
      for (;;) {
        const found = await pool.query<{ created_at: Date }>(`SELECT created_at FROM outbox_events WHERE event_type = 'alert.triggered' AND payload->>'customer_id' = $1`, [probe]);
        if (found.rows[0]) {
          latencies.push(found.rows[0].created_at.getTime() - answeredAt);
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const paced = await background;
    latencies.sort((a, b) => a - b);

    // 3. The entitlement check with CHECK_EVENTS events in the tenant (seeded over this month and the last two, then folded); BENCH_CHECK_EVENTS=0 skips it.
    await settle();
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const alertLines = [
      `machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; setup of ${fmt(customers.length)} subscribed customers ${setupS.toFixed(1)} s`,
      `ingestion, no alert          ${rates.without.map(fmt).join(', ')} events/s  (${fmt(BULK_EVENTS)} events per run, batches of ${BATCH}, 4 clients)`,
      `ingestion, ${fmt(ALERTS)} alerts     ${rates.with.map(fmt).join(', ')} events/s  -> ${((avg(rates.with) / avg(rates.without)) * 100).toFixed(0)}% of no alert`,
      `alert latency at ${fmt(paced.events / paced.seconds)} events/s (target ${fmt(RATE)}): event 2xx -> alert.triggered in the outbox, ${latencies.length} probes: p50 ${quantile(latencies, 0.5)} ms, p90 ${quantile(latencies, 0.9)} ms, max ${latencies.at(-1)} ms`,
    ];
    if (CHECK_EVENTS === 0) {
      process.stdout.write([...alertLines, ''].join('\n'));
      await worker.stop();
      await service.app.close();
      return;
    }
    const seedStart = performance.now();
    const tenantKey = (await pool.query<{ key: number }>('SELECT key FROM tenants WHERE id = $1', [tenant.id])).rows[0]!.key;
    const from = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 2, 1));
    for (let m = -2; m <= 1; m++) await pool.query('SELECT usage_events_ensure_partition($1)', [new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1))]);
    const spanS = Math.max(1, Math.floor((start.getTime() - from.getTime()) / 1000) - 60);
    const seeder = await pool.connect();
    try {
      await seeder.query(`SET maintenance_work_mem = '256MB'`);
      await seeder.query('DROP INDEX usage_events_customer_code_ts_idx');
      await seeder.query(
        `INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
         SELECT $1, 'seed-' || g, $6, ($2::text[])[1 + g % $3], $4::timestamptz + (g % $7) * interval '1 second', '{}'::jsonb, now()
         FROM generate_series(1, $5::int) g`,
        [tenantKey, loaded, loaded.length, from, CHECK_EVENTS, metric.code, spanS],
      );
      await seeder.query('CREATE INDEX usage_events_customer_code_ts_idx ON usage_events (tenant_key, customer_ref, code, ts)');
      await seeder.query('ANALYZE usage_events');
    } finally {
      seeder.release();
    }
    const seedS = (performance.now() - seedStart) / 1000;
    const foldStart = performance.now();
    await service.tasks['usage.rollup']!({ tenant_id: tenant.id });
    const foldS = (performance.now() - foldStart) / 1000;
    const checked = loaded[7]!;
    const answer = await call('GET', `/api/v1/customers/${checked}/entitlements/${feature.code}`);
    const check = await autocannon({ url: `${address}/api/v1/customers/${checked}/entitlements/${feature.code}`, connections: 4, duration: DURATION_S, headers: auth });
    const checkOne = await autocannon({ url: `${address}/api/v1/customers/${checked}/entitlements/${feature.code}`, connections: 1, duration: DURATION_S, headers: auth });

    process.stdout.write([
      ...alertLines,
      `seed ${fmt(CHECK_EVENTS)} events ${seedS.toFixed(1)} s; rollup fold ${foldS.toFixed(1)} s; checked customer used ${answer.used} of ${answer.limit} this period`,
      `entitlement check, ${fmt(CHECK_EVENTS)} events in tenant: 4 connections p50 ${check.latency.p50} ms, p99 ${check.latency.p99} ms, ${fmt(check.requests.average)} req/s (${check.non2xx} non-2xx); 1 connection p50 ${checkOne.latency.p50} ms, p99 ${checkOne.latency.p99} ms`,
      '',
    ].join('\n'));
    await worker.stop();
    await service.app.close();
  } finally {
    await db.close();
  }
}
