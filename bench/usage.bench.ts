// Usage metering figures on the workload clients send (issue 20): batches of 1,000 events, 1,000
// customers, a SUM metric on `tokens`, timestamps over one month, 8 concurrent connections, the
// shipped configuration (rate limits on). Run on the embedded PostgreSQL and, when
// BENCH_DATABASE_URL is set, on that server too, each with the COPY ceiling of the same rows in
// the same run. Sizes via env (see docs/performance.md). The figures go to standard error, the
// service's log lines (shipped level) to standard output: `npm run bench usage > service-log.jsonl`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannonModule from 'autocannon';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';
// @ts-expect-error plain JavaScript module, no types
import { eventProperties, eventTimestamp } from './load.mjs';
import { profiled, summariseProfile } from './profile.js';

interface Result { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; loadCores: number }
const autocannon = autocannonModule as unknown as (options: Record<string, unknown>) => Promise<Result>;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BULK_EVENTS = env('BENCH_BULK_EVENTS', 2_000_000);
const RETRY_EVENTS = env('BENCH_RETRY_EVENTS', 200_000);
const BATCH = env('BENCH_BATCH', 1_000);
const CLIENTS = env('BENCH_CLIENTS', 8);
const QUERY_EVENTS = env('BENCH_QUERY_EVENTS', 10_000_000);
const CUSTOMERS = env('BENCH_CUSTOMERS', 1_000);
const DURATION_S = env('BENCH_SECONDS', 10);
const SPAN_MS = 30 * 86_400_000; // timestamps over one month
/** Write CPU profiles of the bulk, re-sent and single phases to this file (and its -resent and -single siblings) and print where the time per event goes. */
const PROFILE = process.env.BENCH_PROFILE;
const MB = 1024 * 1024;
/** Which servers to run on: `embedded`, `url` (BENCH_DATABASE_URL) or both (the default). */
const SERVERS = process.env.BENCH_SERVERS ?? 'embedded,url';

/**
 * Load-independent costs of a phase: CPU of this process (the server), CPU of the PostgreSQL
 * backends serving the bench's database (from /proc, when the server runs on this machine and
 * we may read its processes), WAL bytes written (cluster-wide: exact on a server of its own), and
 * the database's committed and rolled-back transactions (each autocommit statement is one).
 */
interface Costs { serverUs: number; pgUs: number | null; walBytes: number; commits: number; rollbacks: number; inserted: number }
const TICKS_PER_S = 100; // USER_HZ on Linux
function backendCpuUs(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      out.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_S); // utime, stime
    } catch {
      // not on this machine, or gone
    }
  }
  return out;
}
async function costsOf<T>(pool: import('../src/db/pool.js').Pool, work: () => Promise<T>): Promise<{ result: T; costs: Costs }> {
  const snapshot = async () => {
    await pool.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await pool.query<{ lsn: string; commits: string; rollbacks: string; inserted: string; pids: number[] }>(
      `SELECT pg_current_wal_lsn()::text AS lsn, xact_commit::text AS commits, xact_rollback::text AS rollbacks, tup_inserted::text AS inserted,
              (SELECT array_agg(pid) FROM pg_stat_activity WHERE datname = current_database()) AS pids
       FROM pg_stat_database WHERE datname = current_database()`,
    );
    return rows[0]!;
  };
  const before = await snapshot();
  const cpuBefore = backendCpuUs(before.pids);
  const usage = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(usage);
  await new Promise((r) => setTimeout(r, 1100)); // backends flush their statistics at most once a second
  const after = await snapshot();
  const cpuAfter = backendCpuUs(after.pids);
  let pgUs: number | null = cpuAfter.size > 0 ? 0 : null;
  for (const [pid, us] of cpuAfter) pgUs! += us - (cpuBefore.get(pid) ?? 0);
  const lsn = (t: string) => { const [hi, lo] = t.split('/'); return parseInt(hi!, 16) * 2 ** 32 + parseInt(lo!, 16); };
  return {
    result,
    costs: {
      serverUs: used.user + used.system, pgUs, walBytes: lsn(after.lsn) - lsn(before.lsn),
      // the two snapshot statements themselves are one commit each
      commits: Number(after.commits) - Number(before.commits) - 2, rollbacks: Number(after.rollbacks) - Number(before.rollbacks), inserted: Number(after.inserted) - Number(before.inserted),
    },
  };
}
const costLine = (c: Costs, events: number, batches: number) =>
  `server CPU ${(c.serverUs / events).toFixed(2)} µs/event, PostgreSQL CPU ${c.pgUs === null ? 'n/a' : `${(c.pgUs / events).toFixed(2)} µs/event`}, WAL ${(c.walBytes / events).toFixed(0)} B/event, ` +
  `${(c.commits / batches).toFixed(2)} commits + ${(c.rollbacks / batches).toFixed(2)} rollbacks per batch, ${(c.inserted / events).toFixed(2)} rows inserted per event`;

/**
 * Writes the CSV rows to a file first, so that the timed COPY measures psql and PostgreSQL only:
 * generating the rows in this process while timing (as an earlier version did) measured the
 * generator as much as the database, and flattered the ratio to the ceiling about threefold.
 */
function writeCsv(rows: Iterable<string>): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-copy-')), 'rows.csv');
  const fd = openSync(file, 'w');
  let chunk = '';
  for (const row of rows) {
    chunk += row;
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  return file;
}

/** COPY of a CSV file into a table through psql (the ceiling: no service in between). */
function copyIn(url: string, table: string, columns: string, csvFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', [url, '-q', '-c', `\\copy ${table} (${columns}) FROM '${csvFile}' WITH (FORMAT csv)`], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}`))));
  });
}

/** Runs bench/load.mjs with this spec in its own process and returns the figures it prints. */
function load<T>(spec: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=4096', new URL('./load.mjs', import.meta.url).pathname, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** The highest resident set size of this process (the server) while `work` runs, sampled every 100 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
  try {
    const result = await work();
    return { result, peakMb: Math.max(peak, process.memoryUsage.rss()) / MB };
  } finally {
    clearInterval(timer);
  }
}


const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function runOn(label: string, server: string | null): Promise<string[]> {
  const db = await openBenchDatabase('usage', 20, server);
  const { pool, url } = db;
  const lines: string[] = [];
  try {
    // The shipped configuration: only the required secret is set, so the service logs at the
    // shipped level (info: one line per request) to standard output, as `npm start` does.
    const shipped = loadConfig({ SECRET_KEY: 'bench-only-secret' });
    const config = { ...shipped, logLevel: process.env.BENCH_LOG ?? shipped.logLevel };
    const service = await compose({ pool, clock: systemClock, config });
    const boot = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = boot.tenants.find((t) => t.environment === 'sandbox')!;
    const auth = { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' };
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const inject = async (method: 'POST' | 'GET', path: string, body?: unknown) => (await service.app.inject({ method, url: path, headers: auth, payload: body as object })).json();

    const family = await inject('POST', '/api/v1/product_families', { name: 'Bench' });
    const metric = await inject('POST', '/api/v1/metrics', { name: 'Tokens', code: 'bench', aggregation_type: 'SUM', aggregation_key: 'tokens', product_family_id: family.id });
    const customers: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) customers.push((await inject('POST', '/api/v1/customers', { name: `C${i}`, currency: 'EUR', alias: `bench-${i}` })).id);
    const settle = async () => {
      await pool.query('VACUUM (ANALYZE)');
      await pool.query('CHECKPOINT');
    };
    await settle();
    global.gc?.();
    const idleMb = process.memoryUsage.rss() / MB;

    // 1. Bulk ingestion: CLIENTS connections posting BATCH-event batches, from another process.
    const nowMs = Date.now();
    const spec = { mode: 'bulk', url: `${address}/api/v1/events/ingest`, headers: auth, customers, batch: BATCH, clients: CLIENTS, nowMs, spanMs: SPAN_MS, property: 'tokens', backfill: true };
    const bulkRun = await peakRss(() => profiled(PROFILE, () => costsOf(pool, () => load<{ events: number; seconds: number; loadCores: number }>({ ...spec, total: BULK_EVENTS }))));
    const bulk = bulkRun.result.result.result;
    const bulkCosts = bulkRun.result.result.costs;
    const bulkRate = bulk.events / bulk.seconds;

    // 2. Client retries: the first RETRY_EVENTS events' batches sent again (all already stored).
    await settle();
    const retryRun = await profiled(PROFILE, () => costsOf(pool, () => load<{ events: number; seconds: number }>({ ...spec, total: Math.min(RETRY_EVENTS, BULK_EVENTS) })));
    const { result: retry, costs: retryCosts } = retryRun.result;
    const retryRate = retry.events / retry.seconds;

    // 3. Ceiling: the same rows by a raw COPY into a plain table with a primary key on the id.
    await pool.query(`CREATE TABLE bench_copy (id text PRIMARY KEY, tenant text, customer text, code text, ts timestamptz, properties jsonb)`);
    await settle();
    const csvFile = writeCsv((function* () {
      for (let n = 0; n < bulk.events; n++) {
        const i = n % BATCH;
        yield `bulk-${Math.floor(n / BATCH)}-${i},${tenant.id},${customers[n % customers.length]},bench,${eventTimestamp(nowMs, n, SPAN_MS)},"${JSON.stringify(eventProperties(i, 'tokens')).replaceAll('"', '""')}"\n`;
      }
    })());
    const copyStart = performance.now();
    const { costs: copyCosts } = await costsOf(pool, () => copyIn(url, 'bench_copy', 'id, tenant, customer, code, ts, properties', csvFile));
    const copyRate = bulk.events / ((performance.now() - copyStart) / 1000);
    await pool.query('DROP TABLE bench_copy');
    rmSync(path.dirname(csvFile), { recursive: true, force: true });

    // 4. Single events at 50 connections (unique idempotency key per request), from another process.
    await settle();
    const singleRun = await profiled(PROFILE, () => costsOf(pool, () => load<Result>({ mode: 'single', url: `${address}/api/v1/events`, connections: 50, durationS: DURATION_S, headers: auth, customers })));
    const { result: single, costs: singleCosts } = singleRun.result;
    // 4b. The machine's ceiling for single requests, as COPY is for bulk ingestion: a bare
    // node:http server in this process that reads each body and answers 202, under the same load.
    const bare = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareCpu = process.cpuUsage();
    const bareSingle = await load<Result>({ mode: 'single', url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/api/v1/events`, connections: 50, durationS: DURATION_S, headers: auth, customers });
    const bareUsed = process.cpuUsage(bareCpu);
    await new Promise((resolve) => bare.close(resolve));

    // 5. A tenant with QUERY_EVENTS (BENCH_QUERY_EVENTS=0 skips this phase) events over the last 3 months; rollups folded, then queries.
    const queryPhase = async () => {
    const seedStart = performance.now();
    const tenantKey = (await pool.query<{ key: number }>('SELECT key FROM tenants WHERE id = $1', [tenant.id])).rows[0]!.key;
    const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1));
    const from = new Date(monthStart.getTime() - 31 * 86_400_000);
    for (let m = -2; m <= 1; m++) await pool.query('SELECT usage_events_ensure_partition($1)', [new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + m, 1))]);
    // Bulk-load practice: drop the events' btree, insert, rebuild it. The dedup ledger is not
    // seeded: queries never read it.
    const seeder = await pool.connect();
    try {
      await seeder.query(`SET maintenance_work_mem = '256MB'`);
      await seeder.query('DROP INDEX usage_events_customer_code_ts_idx');
      await seeder.query(
        `INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
         SELECT $1, 'seed-' || g, 'bench', ($2::text[])[1 + g % $3], $4::timestamptz + (g % 7776000) * interval '1 second',
                jsonb_build_object('tokens', (g % 1000)::text), now()
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
    const period = `start_date=${monthStart.toISOString().slice(0, 10)}&end_date=${new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)}`;
    const query = await autocannon({ url: `${address}/api/v1/usage/customer/${customers[7]}?${period}&metric_id=${metric.id}`, connections: 4, duration: DURATION_S, headers: auth });
    const totalEvents = Number((await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM usage_events')).rows[0]!.n);
    return [
      `seed ${fmt(QUERY_EVENTS)} events ${seedS.toFixed(1)} s; rollup fold ${rollS.toFixed(1)} s`,
      `usage of one customer-month (${fmt(totalEvents)} events in tenant): p50 ${query.latency.p50} ms, p99 ${query.latency.p99} ms, ${fmt(query.requests.average)} req/s (4 connections, ${query.non2xx} non-2xx)`,
    ];
    };
    const queryLines = QUERY_EVENTS > 0 ? await queryPhase() : [];

    const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    lines.push(
      `-- ${label}: PostgreSQL ${version}; ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (at the end); shipped configuration`,
      `bulk ingestion          ${fmt(bulkRate)} events/s  (${fmt(bulk.events)} events, batches of ${BATCH}, ${CLIENTS} connections, ${fmt(CUSTOMERS)} customers; the load generator used ${bulk.loadCores.toFixed(2)} cores)`,
      `  ${costLine(bulkCosts, bulk.events, bulk.events / BATCH)}`,
      `raw COPY ceiling        ${fmt(copyRate)} rows/s    -> ingestion = ${(bulkRate / copyRate).toFixed(2)} of COPY`,
      `  PostgreSQL CPU ${copyCosts.pgUs === null ? 'n/a' : `${(copyCosts.pgUs / bulk.events).toFixed(2)} µs/row (psql's backend not counted)`}, WAL ${(copyCosts.walBytes / bulk.events).toFixed(0)} B/row`,
      `re-sent stored batches  ${fmt(retryRate)} events/s  (${fmt(retry.events)} events) -> ${(retryRate / bulkRate).toFixed(2)} of fresh batches`,
      `  ${costLine(retryCosts, retry.events, retry.events / BATCH)}`,
      `single POST /events     ${fmt(single.requests.average)} req/s, p50 ${single.latency.p50} ms, p99 ${single.latency.p99} ms (50 connections, ${fmt(single.non2xx)} non-2xx, ${single.errors} errors)`,
      `  per request: ${costLine(singleCosts, single.requests.average * DURATION_S, single.requests.average * DURATION_S).replace(/per batch/, 'per request')}`,
      `bare node:http ceiling  ${fmt(bareSingle.requests.average)} req/s, p50 ${bareSingle.latency.p50} ms, p99 ${bareSingle.latency.p99} ms (same load; server CPU ${((bareUsed.user + bareUsed.system) / (bareSingle.requests.average * DURATION_S)).toFixed(2)} µs/request; the load generator used ${bareSingle.loadCores.toFixed(2)} cores, ${single.loadCores.toFixed(2)} against the service) -> single events = ${(single.requests.average / bareSingle.requests.average).toFixed(2)} of it`,
      ...queryLines,
      `server RSS              idle ${idleMb.toFixed(0)} MB, peak during bulk ingestion ${bulkRun.peakMb.toFixed(0)} MB`,
    );
    if (bulkRun.result.profile) {
      writeFileSync(PROFILE!, JSON.stringify(bulkRun.result.profile));
      lines.push(`profile of the bulk phase written to ${PROFILE}; server CPU per event:`, ...summariseProfile(bulkRun.result.profile, bulk.events));
    }
    if (retryRun.profile) {
      const retryProfile = PROFILE!.replace(/(\.json)?$/, '-resent.json');
      writeFileSync(retryProfile, JSON.stringify(retryRun.profile));
      lines.push(`profile of the re-sent phase written to ${retryProfile}; server CPU per event:`, ...summariseProfile(retryRun.profile, retry.events));
    }
    if (singleRun.profile) {
      const singleProfile = PROFILE!.replace(/(\.json)?$/, '-single.json');
      writeFileSync(singleProfile, JSON.stringify(singleRun.profile));
      lines.push(`profile of the single-event phase written to ${singleProfile}; server CPU per request:`, ...summariseProfile(singleRun.profile, single.requests.average * DURATION_S));
    }
    await service.app.close();
  } finally {
    await db.close();
  }
  return lines;
}

export async function run(): Promise<void> {
  const servers: [string, string | null][] = SERVERS.includes('embedded') ? [['embedded', null]] : [];
  if (process.env.BENCH_DATABASE_URL && SERVERS.includes('url')) servers.push(['BENCH_DATABASE_URL', process.env.BENCH_DATABASE_URL]);
  // Figures on standard error: standard output carries the service's JSON log lines (send them to a file).
  for (const [label, server] of servers) process.stderr.write(`${(await runOn(label, server)).join('\n')}\n`);
}
