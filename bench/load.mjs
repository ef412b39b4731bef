// Load generators for usage.bench.ts. They run as their own process so the load and the server
// under test do not share one event loop (the figures would measure both).
// Input: a JSON spec in argv[2]; output: one JSON line with the figures.
//   {mode: 'bulk', url, headers, customers, total, batch, clients, nowMs, code?, prefix?, spanMs?, property?, backfill?}:
//     posts batches of `batch` events, `clients` at a time; the bodies are built before the clock
//     starts. Event n happened a little before nowMs, within `spanMs` (default an hour), as
//     `eventTimestamp` gives. `property` names the one numeric property events carry (default the
//     `bytes` + `region` pair); `backfill` sets allow_backfilling (needed past 24 hours). The same
//     spec sends the same bodies, so a second run re-sends stored batches, as a retrying client does.
//   {mode: 'single', url, headers, customers, connections, durationS}: autocannon, one event per
//     request with a unique idempotency key.
//   {mode: 'get', url, headers, connections, durationS}: autocannon, GET of one URL (latency
//   percentiles to 0.01 ms).
//   {mode: 'paced', url, headers, customers, code, rate, batch, durationS, prefix}: posts batches
//     of `batch` events (now-stamped) at `rate` events/s for `durationS`, as many in flight as
//     needed; prints the rate achieved.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
/* global fetch, setTimeout */
import autocannon from 'autocannon';


const HOUR_MS = 3_600_000;

/**
 * The timestamp of bulk event n (the COPY ceiling writes the same ones): spread over `spanMs`
 * before nowMs, a prime step apart so that consecutive events are not in time order.
 */
export const eventTimestamp = (nowMs, n, spanMs = HOUR_MS) => new Date(nowMs - 1 - ((n * 7919) % spanMs)).toISOString();

/** The properties of bulk event i of its batch (the COPY ceiling writes the same ones). */
export const eventProperties = (i, property) => (property ? { [property]: String(i % 1000) } : { bytes: String(i % 1000), region: i % 2 ? 'eu' : 'us' });

async function bulk({ url, headers, customers, total, batch, clients, nowMs, code = 'bench', prefix = 'bulk', spanMs = HOUR_MS, property, backfill = false }) {
  const bodies = [];
  for (let b = 0; b * batch < total; b++) {
    const events = Array.from({ length: batch }, (_, i) => ({
      event_id: `${prefix}-${b}-${i}`,
      code,
      customer_id: customers[(b * batch + i) % customers.length],
      timestamp: eventTimestamp(nowMs, b * batch + i, spanMs),
      properties: eventProperties(i, property),
    }));
    bodies.push(Buffer.from(JSON.stringify(backfill ? { events, allow_backfilling: true } : { events })));
  }
  let next = 0;
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < bodies.length) {
        const b = next++;
        const res = await fetch(url, { method: 'POST', headers, body: bodies[b] });
        if (res.status !== 200) throw new Error(`bulk batch ${b}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { events: bodies.length * batch, seconds, loadCores: (cpu.user + cpu.system) / 1e6 / seconds };
}

async function single({ url, headers, customers, connections, durationS }) {
  let counter = 0;
  const cpu = process.cpuUsage();
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ idempotency_key: `single-${++counter}`, code: 'bench', customer_id: customers[counter % customers.length], properties: { bytes: '1', region: 'eu' } }),
        }),
      },
    ],
  });
  const used = process.cpuUsage(cpu);
  return { requests: { average: result.requests.average }, latency: { p50: result.latency.p50, p99: result.latency.p99 }, non2xx: result.non2xx, errors: result.errors, loadCores: (used.user + used.system) / 1e6 / durationS };
}

/** Percentiles (to 0.01 ms) of response times in milliseconds. */
function percentiles(times) {
  times.sort((a, b) => a - b);
  const at = (q) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN) * 100) / 100;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

async function get({ url, headers, connections, durationS }) {
  // autocannon's histogram keeps whole milliseconds; its 'response' events carry the exact time,
  // so the percentiles of 2xx answers are computed from those.
  const times = [];
  const cpu = process.cpuUsage();
  const run = autocannon({ url, connections, duration: durationS, headers });
  run.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) times.push(ms);
  });
  const result = await run;
  const used = process.cpuUsage(cpu);
  return { requests: { average: result.requests.average }, latency: percentiles(times), non2xx: result.non2xx, errors: result.errors, loadCores: (used.user + used.system) / 1e6 / durationS };
}

async function paced({ url, headers, customers, code, rate, batch, durationS, prefix }) {
  const every = (batch / rate) * 1000;
  const start = performance.now();
  const inFlight = new Set();
  let sent = 0;
  for (let b = 0; performance.now() - start < durationS * 1000; b++) {
    const due = start + b * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const timestamp = new Date().toISOString();
    const events = Array.from({ length: batch }, (_, i) => ({ event_id: `${prefix}-${b}-${i}`, code, customer_id: customers[(b * batch + i) % customers.length], timestamp, properties: {} }));
    const request = fetch(url, { method: 'POST', headers, body: JSON.stringify({ events }) }).then(async (res) => {
      if (res.status !== 200) throw new Error(`paced batch ${b}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      sent += batch;
    });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  return { events: sent, seconds: (performance.now() - start) / 1000 };
}

// Run as a program (not imported by usage.bench.ts for `eventTimestamp`).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const spec = JSON.parse(process.argv[2]);
  const modes = { bulk, paced, single, get };
  const result = await modes[spec.mode](spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
