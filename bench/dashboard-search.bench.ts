// The dashboard's customer search (issue 18; docs/dashboard.md, "Customer search"):
// GET /api/v1/customers?search=… over HTTP on loopback with BENCH_SEARCH_CUSTOMERS (100,000)
// customers in the tenant, one request at a time (as a person typing), BENCH_SEARCH_PROBES (300)
// requests per kind of term: part of a name, part of an alias, part of a billing e-mail, and a
// term that matches nothing. Prints p50 and p99 in ms. Run alone: `npm run bench dashboard-search`.
import { createHash } from 'node:crypto';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CUSTOMERS = env('BENCH_SEARCH_CUSTOMERS', 100_000);
const PROBES = env('BENCH_SEARCH_PROBES', 300);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export async function run(): Promise<void> {
  const db = await openBenchDatabase('dashboard_search');
  try {
    const config = { ...loadConfig({ SECRET_KEY: 'bench-only-secret' }), logLevel: 'warn', rateLimit: { ingestPerSecond: 0, readPerSecond: 0, writePerSecond: 0, signinPerMinute: 0, oauthTokenPerSecond: 0, syncIntervalMs: 100 } };
    const service = await compose({ pool: db.pool, clock: systemClock, config });
    const boot = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = boot.tenants.find((t) => t.environment === 'sandbox')!;
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const headers = { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' };
    try {
      const created = await fetch(`${address}/api/v1/customers`, { method: 'POST', headers, body: JSON.stringify({ name: 'Template', currency: 'EUR', alias: 'template' }) });
      const template = (await created.json()) as { id: string };
      // Copies of the API-made row with their own id, name, alias and e-mail: every column as the API writes it.
      const setup = performance.now();
      await db.pool.query(
        `INSERT INTO customers
         SELECT (jsonb_populate_record(c, jsonb_build_object(
           'id', 'cus_bench' || lpad(g::text, 7, '0'),
           'name', 'Company ' || md5(g::text) || ' ' || g,
           'alias', 'acct-' || g,
           'billing_email', 'billing' || g || '@' || substr(md5(g::text), 1, 8) || '.test',
           'created_at', now() - make_interval(secs => g)))).*
         FROM customers c, generate_series(1, $2::int) g WHERE c.id = $1`,
        [template.id, CUSTOMERS],
      );
      await db.pool.query('ANALYZE customers');
      process.stdout.write(`${CUSTOMERS} customers inserted and analyzed in ${((performance.now() - setup) / 1000).toFixed(1)} s\n`);

      const kinds: Record<string, (i: number) => string> = {
        'part of a name': (i) => `company ${md5Prefix(i)}`,
        'part of an alias': (i) => `acct-${(i * 7919) % CUSTOMERS}`,
        'part of an e-mail': (i) => `billing${(i * 104729) % CUSTOMERS}@`,
        'no match': (i) => `zzq${i}x`,
      };
      for (const [kind, term] of Object.entries(kinds)) {
        const times: number[] = [];
        for (let i = 1; i <= PROBES; i++) {
          const t0 = performance.now();
          const res = await fetch(`${address}/api/v1/customers?search=${encodeURIComponent(term(i))}&per_page=20`, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`search answered ${res.status}`);
          times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        process.stdout.write(`search by ${kind.padEnd(18)} p50 ${quantile(times, 0.5).toFixed(1)} ms  p99 ${quantile(times, 0.99).toFixed(1)} ms  (${PROBES} requests, ${CUSTOMERS} customers)\n`);
      }
    } finally {
      await service.app.close();
    }
  } finally {
    await db.close();
  }
}

/** The first 6 hex digits of md5(i), as the names above carry (a term in the middle of a name). */
function md5Prefix(i: number): string {
  return createHash('md5').update(String(i)).digest('hex').slice(0, 6);
}
