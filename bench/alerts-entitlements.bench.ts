// Usage alerts and metered entitlements (issue 17; docs/credits-and-alerts.md):
//   1. bulk HTTP ingestion with no alert and with BENCH_ALERTS (1,000) active alerts, one per
//      customer, none crossing (every batch touches them all, so every round evaluates them):
//      BENCH_ALERT_RUNS (6) runs alternating A B B A A B, so drift in the machine's load falls on
//      both sides; medians compared;
//   2. alert latency: from the 2xx of the event that crosses a threshold to its alert.triggered
//      in the outbox, while BENCH_ALERT_RATE (10,000) events/s are ingested;
//   3. the entitlement check (GET /api/v1/customers/{id}/entitlements/{feature}) with
//      BENCH_CHECK_EVENTS (10,000,000) events in the tenant, rollups folded, beside the plain
//      usage query of the same customer and window (the aggregation the check reads through),
//      at 1 then 4 connections, BENCH_CHECK_RUNS (1) rounds, each load after BENCH_WARMUP_SECONDS
//      (15) s of it not counted.
// BENCH_PHASES (default "ingest,latency,check") picks phases. Each figure is printed with the
// load average at its end: the machine may be shared.
// The check phase is served with the shipped configuration and loaded from another process.
// Run alone: `npm run bench alerts`. Benchmarks print figures and never fail on them.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { startWorker } from '../src/jobs/runtime.js';
import { ROLLUP_TABLES } from '../src/modules/usage/repository.js';
import { openBenchDatabase } from './database.js';
import { profiled, summariseProfile } from './profile.js';

interface Result { requests: { average: number }; latency: { p50: number; p99: number; p90: number }; non2xx: number; errors: number; loadCores: number }

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ALERTS = env('BENCH_ALERTS', 1_000);
const BULK_EVENTS = env('BENCH_ALERT_BULK_EVENTS', 100_000);
const BATCH = env('BENCH_BATCH', 1_000);
const RATE = env('BENCH_ALERT_RATE', 10_000);
const PROBES = env('BENCH_ALERT_PROBES', 20);
const CHECK_EVENTS = env('BENCH_CHECK_EVENTS', 10_000_000);
const DURATION_S = env('BENCH_SECONDS', 10);
const WARMUP_S = env('BENCH_WARMUP_SECONDS', 15);
const RUNS = env('BENCH_ALERT_RUNS', 6);
const CHECK_RUNS = env('BENCH_CHECK_RUNS', 1);
/** Write a CPU profile of the check phase (1 connection) to this file, and print where its time goes. */
const PROFILE = process.env.BENCH_PROFILE;
const PHASES = new Set((process.env.BENCH_PHASES ?? 'ingest,latency,check').split(',').map((p) => p.trim()));

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
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const load1 = () => loadavg()[0]!.toFixed(1);

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
      // the rollups too: after the check's seed, the fold writes millions of them at once, and
      // autovacuum would visit them during the first round of measurements
      await pool.query(`VACUUM (ANALYZE) usage_events, usage_event_ids, ${ROLLUP_TABLES.join(', ')}`);
      await pool.query('CHECKPOINT');
    };

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const lines = [`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start; setup of ${fmt(customers.length)} subscribed customers ${setupS.toFixed(1)} s`];

    // 1. Ingestion without alerts and with ALERTS alerts (none crossing), alternating A B B A A B...
    if (PHASES.has('ingest')) {
      const rates: { without: number[]; with: number[] } = { without: [], with: [] };
      const runs: string[] = [];
      const bulkRun = async (prefix: string) => {
        await settle();
        // BULK_EVENTS events as fast as 4 clients can post them
        const result = await load<{ events: number; seconds: number; loadCores: number }>({ mode: 'bulk', url: `${address}/api/v1/events/ingest`, headers: auth, customers: loaded, total: BULK_EVENTS, batch: BATCH, clients: 4, nowMs: Date.now(), code: metric.code, prefix });
        await service.alerts.idle();
        return result.events / result.seconds;
      };
      const alertIds: string[] = [];
      const setAlerts = async (on: boolean) => {
        if (on && alertIds.length === 0) {
          for (let i = 0; i < loaded.length; i += 20) {
            alertIds.push(...(await Promise.all(loaded.slice(i, i + 20).map(async (customer) => (await call('POST', '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer, metric_id: metric.id, thresholds: ['1000000000'] })).id as string))));
          }
        }
        if (!on) for (const id of alertIds.splice(0)) await service.app.inject({ method: 'DELETE', url: `/api/v1/alerts/${id}`, headers: auth });
        await service.alerts.idle();
      };
      for (let run = 0; run < RUNS; run++) {
        const withAlerts = [false, true, true, false][run % 4]!;
        await setAlerts(withAlerts);
        const rate = await bulkRun(`run${run}`);
        (withAlerts ? rates.with : rates.without).push(rate);
        runs.push(`${withAlerts ? 'B' : 'A'} ${fmt(rate)} (load ${load1()})`);
      }
      await setAlerts(false);
      lines.push(
        `ingestion runs, A = no alert, B = ${fmt(ALERTS)} alerts (${fmt(BULK_EVENTS)} events per run, batches of ${BATCH}, 4 clients), events/s: ${runs.join(', ')}`,
        `ingestion medians: no alert ${fmt(median(rates.without))} events/s, ${fmt(ALERTS)} alerts ${fmt(median(rates.with))} events/s -> ${((median(rates.with) / median(rates.without)) * 100).toFixed(0)}% of no alert`,
      );
    }

    // 2. Latency at RATE events/s (ALERTS alerts active, none crossing): a probe customer's first event crosses its alert's threshold of 1.
    if (PHASES.has('latency')) {
      for (let i = 0; i < loaded.length; i += 20) {
        await Promise.all(loaded.slice(i, i + 20).map((customer) => call('POST', '/api/v1/alerts', { kind: 'USAGE_UNITS', customer_id: customer, metric_id: metric.id, thresholds: ['1000000000'] })));
      }
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
      lines.push(`alert latency at ${fmt(paced.events / paced.seconds)} events/s (target ${fmt(RATE)}), ${fmt(ALERTS)} alerts touched by every batch: event 2xx -> alert.triggered in the outbox, ${latencies.length} probes: p50 ${quantile(latencies, 0.5)} ms, p90 ${quantile(latencies, 0.9)} ms, max ${latencies.at(-1)} ms (load ${load1()})`);
    }

    // 3. The entitlement check with CHECK_EVENTS events in the tenant (seeded over this month and the last two, then folded).
    if (!PHASES.has('check') || CHECK_EVENTS === 0) {
      process.stdout.write([...lines, ''].join('\n'));
      await worker.stop();
      await service.app.close();
      return;
    }
    await settle();
    const seedStart = performance.now();
    const tenantKey = (await pool.query<{ key: number }>('SELECT key FROM tenants WHERE id = $1', [tenant.id])).rows[0]!.key;
    const from = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 2, 1));
    for (let m = -2; m <= 1; m++) await pool.query('SELECT usage_events_ensure_partition($1)', [new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1))]);
    const spanS = Math.max(1, Math.floor((start.getTime() - from.getTime()) / 1000) - 60);
    // Spread evenly over the span, so this month holds about a third of them whatever their number
    // (event g at g seconds, wrapped, left this month empty below ~7.6 million events).
    // Bulk-load practice: drop the events' two indexes, insert, rebuild them. The partitions are
    // made UNLOGGED first (no WAL for 10 million rows): how rows are logged changes no read.
    const seeder = await pool.connect();
    try {
      await seeder.query(`SET maintenance_work_mem = '256MB'`);
      const partitions = (await seeder.query<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_events'::regclass`)).rows;
      for (const { name } of partitions) await seeder.query(`ALTER TABLE ${name} SET UNLOGGED`);
      await seeder.query('DROP INDEX usage_events_customer_code_ts_idx');
      await seeder.query('DROP INDEX usage_events_tenant_xid_idx');
      await seeder.query(
        `INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
         SELECT $1, 'seed-' || g, $6, ($2::text[])[1 + g % $3], $4::timestamptz + (g::int8 * $7 / $5) * interval '1 second', '{}'::jsonb, now()
         FROM generate_series(1, $5::int) g`,
        [tenantKey, loaded, loaded.length, from, CHECK_EVENTS, metric.code, spanS],
      );
      await seeder.query('CREATE INDEX usage_events_customer_code_ts_idx ON usage_events (tenant_key, customer_ref, code, ts)');
      await seeder.query('CREATE INDEX usage_events_tenant_xid_idx ON usage_events (tenant_key, xid)');
      await seeder.query('ANALYZE usage_events');
    } finally {
      seeder.release();
    }
    const seedS = (performance.now() - seedStart) / 1000;
    const foldStart = performance.now();
    await service.tasks['usage.rollup']!({ tenant_id: tenant.id });
    const foldS = (performance.now() - foldStart) / 1000;
    // autovacuum would otherwise visit the ten million new rows (and their rollups) during the measurement
    await settle();
    // How much a read must still take raw: events above the rollup watermark.
    const tail = await pool.query<{ tail: string }>(
      `SELECT (SELECT count(*) FROM usage_events e WHERE e.tenant_key = $3 AND e.xid >= s.watermark)::text AS tail FROM usage_rollup_state s WHERE s.tenant_id = $1 AND s.metric_id = $2`,
      [tenant.id, metric.id, tenantKey],
    );
    const checked = loaded[7]!;
    const answer = await call('GET', `/api/v1/customers/${checked}/entitlements/${feature.code}`);
    const window = `start_date=${answer.period_start.slice(0, 10)}&end_date=${answer.reset_at.slice(0, 10)}`;
    const usageAnswer = await call('GET', `/api/v1/usage/customer/${checked}?${window}&metric_id=${metric.id}`);
    const checkUrl = `${address}/api/v1/customers/${checked}/entitlements/${feature.code}`;
    const usageUrl = `${address}/api/v1/usage/customer/${checked}?${window}&metric_id=${metric.id}`;
    lines.push(
      `seed ${fmt(CHECK_EVENTS)} events ${seedS.toFixed(1)} s; rollup fold ${foldS.toFixed(1)} s; events above the rollup watermark: ${tail.rows[0] ? fmt(Number(tail.rows[0].tail)) : 'no rollups'}`,
      `checked customer: used ${answer.used} of ${answer.limit} in ${window}; the usage query of that window says ${JSON.stringify(usageAnswer.usage?.[0]?.total_value ?? usageAnswer.usage)}`,
    );
    // Load-independent cost of one check and one usage query: round trips to PostgreSQL (every
    // query and every connection taken from the pool) and the process's CPU time, over 50 calls.
    // every statement a check sends (text -> its last parameters), explained below
    let checkStatements: Map<string, unknown[]> | undefined;
    let counting = false;
    let trips = 0;
    const wrapped = new WeakSet<object>();
    const countQueries = (target: { query: unknown }) => {
      if (wrapped.has(target)) return;
      wrapped.add(target);
      const original = (target.query as (...a: unknown[]) => unknown).bind(target);
      target.query = (...args: unknown[]) => {
        if (counting) {
          trips += 1;
          // a named statement comes as {name, text, values}
          const named = typeof args[0] === 'string' ? undefined : (args[0] as { text: string; values: unknown[] });
          checkStatements?.set(named?.text ?? (args[0] as string), named?.values ?? (args[1] as unknown[]));
        }
        return original(...args);
      };
    };
    // pool.query takes a client through pool.connect(callback) too: every statement is a client's.
    // The check's reads go through the connections that plan them once (service.plannedOnce).
    for (const counted of [pool, service.plannedOnce.pool]) {
      const originalConnect = (counted.connect as (...a: unknown[]) => unknown).bind(counted);
      (counted as { connect: unknown }).connect = (callback?: (err: Error | undefined, client?: { query: unknown }, done?: unknown) => void) => {
        if (callback) {
          return originalConnect((err: Error | undefined, client?: { query: unknown }, done?: unknown) => {
            if (client) countQueries(client);
            callback(err, client, done);
          });
        }
        return (originalConnect() as Promise<{ query: unknown }>).then((client) => (countQueries(client), client));
      };
    }
    const counted = async (url: string) => {
      const calls = 50;
      trips = 0;
      counting = true;
      const cpu = process.cpuUsage();
      try {
        for (let i = 0; i < calls; i++) await call('GET', url.slice(address.length));
      } finally {
        counting = false;
      }
      const used = process.cpuUsage(cpu);
      return `${(trips / calls).toFixed(1)} statements, ${((used.user + used.system) / 1000 / calls).toFixed(2)} ms of server-process CPU per call`;
    };
    checkStatements = new Map();
    const checkCost = await counted(checkUrl);
    const explained = checkStatements;
    checkStatements = undefined;
    lines.push(`entitlement check: ${checkCost}; usage query: ${await counted(usageUrl)} (load ${load1()})`);
    // Each statement of a check as its connections run it: prepared, planned once for all values
    // (the second EXECUTE reuses the plan), with the check's last parameters as literals.
    const explainer = await pool.connect();
    try {
      await explainer.query('SET plan_cache_mode = force_generic_plan');
      const literal = (v: unknown): string =>
        v === null || v === undefined ? 'NULL'
        : Array.isArray(v) ? explainer.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/(["\\])/g, '\\$1')}"`).join(',')}}`)
        : explainer.escapeLiteral(v instanceof Date ? v.toISOString() : String(v));
      for (const [text, params] of explained) {
        type Explained = { 'Planning Time': number; 'Execution Time': number; Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } };
        await explainer.query(`PREPARE bench_check AS ${text}`);
        const execute = `EXECUTE bench_check(${params.map(literal).join(', ')})`;
        await explainer.query(execute);
        const plan = (await explainer.query<{ 'QUERY PLAN': [Explained] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${execute}`)).rows[0]!['QUERY PLAN'][0];
        lines.push(`  check statement ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 60))}...: planning ${plan['Planning Time'].toFixed(2)} ms, execution ${plan['Execution Time'].toFixed(2)} ms, ${plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks']} buffers (${plan.Plan['Shared Read Blocks']} read)`);
        if (text.includes('WITH state AS')) {
          const shown = (await explainer.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${execute}`)).rows.map((r) => r['QUERY PLAN']);
          lines.push(...shown.map((l) => `    ${l}`));
        }
        await explainer.query('DEALLOCATE bench_check');
      }
    } finally {
      explainer.release(true);
    }
    // The check and the plain usage query of the same customer and window, one after the other, at
    // 1 then 4 connections: served by a process with the shipped configuration (read rate limit,
    // access log), the load generator in a process of its own, so that it does not share the
    // served process's one thread.
    const shipped = await compose({ pool, clock: systemClock, config: loadConfig({ SECRET_KEY: 'bench-only-secret' }) });
    try {
      const shippedAddress = await shipped.app.listen({ port: 0, host: '127.0.0.1' });
      // BENCH_CHECK_RUNS rounds of both, for the spread from run to run on a shared machine
      for (let round = 1; round <= CHECK_RUNS; round++) for (const connections of [1, 4]) {
        for (const [name, url] of [['entitlement check', checkUrl], ['usage query     ', usageUrl]] as const) {
          // BENCH_PROFILE: a CPU profile of the served process during the check at 1 connection
          const profile = name.startsWith('entitlement') && connections === 1 && round === 1 ? PROFILE : undefined;
          const spec = { mode: 'get', url: url.replace(address, shippedAddress), headers: auth, connections };
          // WARMUP_S of the same load first, not counted: the steady state is measured. A served
          // process's first seconds are slower (p99 8-9 ms against 4-6 in later rounds with 2 s
          // of warm-up; docs/credits-and-alerts.md): JIT tiers, the route's schemas compiled at its
          // first request, new PostgreSQL connections with cold caches.
          await load<Result>({ ...spec, durationS: WARMUP_S });
          const { result, profile: taken } = await profiled(profile, () => load<Result>({ ...spec, durationS: DURATION_S }));
          if (taken) {
            writeFileSync(profile!, JSON.stringify(taken));
            lines.push(`profile of the check at 1 connection written to ${profile}; server CPU per check:`, ...summariseProfile(taken, result.requests.average * DURATION_S, 25, 'check'));
          }
          const prefix = `${CHECK_RUNS > 1 ? `round ${round}: ` : ''}${name} (${fmt(CHECK_EVENTS)} events in tenant), ${connections} connection${connections > 1 ? 's' : ''}`;
          const figures = (r: Result) => `p50 ${r.latency.p50} ms, p90 ${r.latency.p90} ms, p99 ${r.latency.p99} ms, ${fmt(r.requests.average)} req/s (${r.non2xx} non-2xx; the load generator used ${r.loadCores.toFixed(2)} cores) (load ${load1()})`;
          lines.push(`${prefix}: ${figures(result)}`);
        }
      }
    } finally {
      await shipped.app.close();
    }
    process.stdout.write([...lines, ''].join('\n'));
    await worker.stop();
    await service.app.close();
  } finally {
    await db.close();
  }
}
