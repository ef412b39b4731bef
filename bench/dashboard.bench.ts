// The dashboard's speed and size (issue 18; docs/dashboard.md, "Speed and size"):
// - size: every JavaScript file of dashboard/dist, gzipped as the service sends it;
// - first load of Home: the real service (shipped defaults) on loopback, a merchant signed in, a
//   tenant with twelve months of finalized invoices; Debian's Chromium opens `/` in a fresh browser
//   context each run (empty cache) and the clock stops when both charts and the recent-invoices
//   table are drawn. Prints min, median and p90 of BENCH_DASHBOARD_LOADS (15) runs and the
//   JavaScript bytes the browser received (gzipped, as sent).
// Run alone: `npm run bench dashboard.bench` (`npm run bench dashboard` also runs the customer search bench).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContextOptions } from 'playwright-core';
import { loadConfig } from '../src/config/index.js';
import { assembleInvoice } from '../src/domain/index.js';
import { systemClock } from '../src/kernel/clock.js';
import { Dec } from '../src/kernel/money.js';
import { compose } from '../src/main.js';
import { openBenchDatabase } from './database.js';

const LOADS = Number(process.env.BENCH_DASHBOARD_LOADS ?? 15);
const CHROMIUM = '/usr/bin/chromium';
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const assets = path.join(root, 'dashboard', 'dist', 'assets');

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The scripts index.html loads before any screen (its entry and the chunks it preloads). */
function entryScripts(): string[] {
  const html = readFileSync(path.join(root, 'dashboard', 'dist', 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
}

function printSizes(): void {
  const gz = (name: string) => statSync(path.join(assets, `${name}.gz`)).size;
  const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const total = scripts.reduce((sum, f) => sum + gz(f), 0);
  const raw = scripts.reduce((sum, f) => sum + statSync(path.join(assets, f)).size, 0);
  const entry = entryScripts().reduce((sum, f) => sum + gz(f), 0);
  const largest = scripts.sort((a, b) => gz(b) - gz(a)).slice(0, 5).map((f) => `${f} ${kb(gz(f))}`);
  process.stdout.write(`JavaScript, all ${scripts.length} files: ${kb(total)} gzipped (${kb(raw)} minified)\n`);
  process.stdout.write(`JavaScript before any screen (index.html's entry and preloads): ${kb(entry)} gzipped\n`);
  process.stdout.write(`largest: ${largest.join(', ')}\n`);
}

export async function run(): Promise<void> {
  // The dashboard as `npm start` serves it: built when missing or older than its sources.
  const build = spawnSync(process.execPath, [path.join(root, 'dashboard', 'build.mjs'), '--if-missing'], { stdio: 'inherit' });
  if (build.status !== 0 || !existsSync(assets)) throw new Error('dashboard: the build failed; see above');
  printSizes();
  if (!existsSync(CHROMIUM)) {
    process.stdout.write(`first load of Home: skipped, ${CHROMIUM} is missing\n`);
    return;
  }

  const db = await openBenchDatabase('dashboard');
  try {
    const config = { ...loadConfig({ SECRET_KEY: 'bench-only-secret' }), logLevel: 'warn' };
    const service = await compose({ pool: db.pool, clock: systemClock, config });
    const boot = await service.accounts.bootstrap({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' });
    const tenant = boot.tenants.find((t) => t.environment === 'sandbox')!; // the dashboard opens on sandbox
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      await seedInvoices(service, tenant, address);
      const signedIn = await signIn(browser, address);

      const times: number[] = [];
      let scriptBytes = 0;
      let scriptFiles = 0;
      for (let i = 0; i < LOADS; i++) {
        const context = await browser.newContext({ storageState: signedIn, viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const scripts: Promise<number>[] = [];
        page.on('requestfinished', (request) => {
          if (request.resourceType() === 'script') scripts.push(request.sizes().then((s) => s.responseBodySize));
        });
        const t0 = performance.now();
        await page.goto(`${address}/`);
        // Drawn: both charts (components/Chart.tsx marks a chart data-drawn once uPlot has drawn
        // its canvas) and a row of the recent invoices.
        await page.locator('figure [data-drawn]').nth(1).waitFor();
        await page.getByRole('cell', { name: 'Bench customer' }).first().waitFor();
        times.push(performance.now() - t0);
        const sizes = await Promise.all(scripts);
        scriptBytes = sizes.reduce((a, b) => a + b, 0);
        scriptFiles = sizes.length;
        await context.close();
      }
      times.sort((a, b) => a - b);
      const load = loadavg().map((l) => l.toFixed(2)).join(' ');
      process.stdout.write(
        `first load of Home, cold cache: min ${times[0]!.toFixed(0)} ms  median ${quantile(times, 0.5).toFixed(0)} ms  p90 ${quantile(times, 0.9).toFixed(0)} ms  (${LOADS} loads; load average ${load})\n`,
      );
      process.stdout.write(`JavaScript received by that first load: ${kb(scriptBytes)} in ${scriptFiles} files (gzipped, as sent)\n`);
    } finally {
      await browser.close();
      await service.app.close();
    }
  } finally {
    await db.close();
  }
}

type Service = Awaited<ReturnType<typeof compose>>;

/** Twelve months of finalized invoices for a few customers, so Home draws both charts and the table. */
async function seedInvoices(service: Service, tenant: { id: string; api_key: string }, address: string): Promise<void> {
  const headers = { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' };
  const now = new Date();
  for (let c = 1; c <= 3; c++) {
    const created = await fetch(`${address}/api/v1/customers`, { method: 'POST', headers, body: JSON.stringify({ name: `Bench customer ${c}`, currency: 'EUR' }) });
    const customer = (await created.json()) as { id: string };
    for (let m = 11; m >= 0; m--) {
      const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - m, 1));
      const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
      const day = (d: Date) => d.toISOString().slice(0, 10);
      const computed = assembleInvoice({
        currency: 'EUR',
        taxInclusive: false,
        lines: [
          { name: 'Platform fee', category: 'RECURRING', amount: new Dec(100 * c), quantity: new Dec('1'), unitPrice: new Dec(100 * c), periodStart: day(first), periodEnd: day(last) },
          { name: 'API calls', category: 'USAGE', amount: new Dec(7 * (12 - m)), quantity: new Dec(700 * (12 - m)), periodStart: day(first), periodEnd: day(last) },
        ],
        tax: { treatment: 'STANDARD', rate: new Dec('0.2'), country: 'FR' },
      });
      const draft = await service.invoicing.invoices.createDraft(tenant.id, {
        customerId: customer.id,
        invoiceType: 'RECURRING',
        invoiceDate: day(first),
        autoAdvance: false,
        subscriptionId: null,
        periodStart: null,
        periodEnd: null,
        purchaseOrder: null,
        memo: null,
        autoCharge: null,
        computed,
        lineDetails: [undefined, undefined],
      });
      const finalized = await fetch(`${address}/api/v1/invoices/${draft.invoice.id}/finalize`, { method: 'POST', headers });
      if (finalized.status !== 200) throw new Error(`finalize answered ${finalized.status}: ${await finalized.text()}`);
    }
  }
}

/** Signs in through the sign-in page once; each run's fresh context starts from its cookies. */
async function signIn(browser: import('playwright-core').Browser, address: string): Promise<BrowserContextOptions['storageState']> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${address}/signin?return_to=/`);
  await page.getByLabel('E-mail').fill('bench@example.com');
  await page.getByLabel('Password').fill('bench-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  const state = await context.storageState();
  await context.close();
  // Cookies only: local storage and the HTTP cache start empty in every run.
  return { cookies: state.cookies, origins: [] };
}
