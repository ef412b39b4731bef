// kill -9 of a serving process in the middle of its bill run, then a restart: every subscription
// period is invoiced once, the numbers of each sequence have no gap, and every finalized invoice
// gets its stored PDF and its `invoice.accounting_pdf_generated` event once the jobs the dead
// worker held are freed (job_workers heartbeat, docs/reliability.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { expectBilledOnce, finishedInvoices, seedDueSubscriptions, SEEDING_CONFIG } from './due-subscriptions.js';
import { killHard, startServe, type ServingProcess } from './processes.js';

/** In batches of 10 (BILLING_RUN_BATCH_SIZE): some are committed while others are still being billed. */
const SUBSCRIPTIONS = 60;
const SERVE_ENV = { BILLING_RUN_BATCH_SIZE: '10' };

const harness = useHarness(SEEDING_CONFIG);
const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-kill-'));
const processes: ServingProcess[] = [];
afterAll(async () => {
  for (const p of processes) await killHard(p.child);
  rmSync(dataDir, { recursive: true, force: true });
});

it('bills each period once, with gapless numbers and every PDF and event, after a kill -9 mid bill run and a restart', { timeout: 280_000 }, async () => {
  const h = harness();
  const due = await seedDueSubscriptions(h, SUBSCRIPTIONS);
  const expected = SUBSCRIPTIONS * 2;
  const count = async (sql: string) => Number((await h.db.pool.query<{ n: string }>(sql, [h.tenant.id])).rows[0]!.n);
  expect(await count('SELECT count(*) AS n FROM invoices WHERE tenant_id = $1')).toBe(0);

  // The process queues its bill run as it starts; it is killed once part of the run is committed.
  const first = await startServe(h.db.url, dataDir, SERVE_ENV);
  processes.push(first);
  await expect.poll(() => count('SELECT count(*) AS n FROM invoices WHERE tenant_id = $1'), { timeout: 120_000, interval: 10 }).toBeGreaterThan(0);
  await killHard(first.child);
  const atKill = {
    invoices: await count('SELECT count(*) AS n FROM invoices WHERE tenant_id = $1'),
    finalized: await count(`SELECT count(*) AS n FROM invoices WHERE tenant_id = $1 AND status = 'FINALIZED'`),
    pdfs: await finishedInvoices(h),
  };
  process.stdout.write(`kill -9 mid bill run: ${JSON.stringify(atKill)} of ${expected} invoices\n`);
  // the kill came while the run was under way: something was left to do
  expect(atKill.pdfs).toBeLessThan(expected);

  // A new process frees the dead one's jobs (three missed beats of WORKER_HEARTBEAT_MS) and finishes the work.
  const restarted = Date.now();
  processes.push(await startServe(h.db.url, dataDir, SERVE_ENV));
  await expect.poll(() => finishedInvoices(h), { timeout: 150_000, interval: 500 }).toBeGreaterThanOrEqual(expected);
  await expect.poll(() => count(`SELECT count(*) AS n FROM outbox_events WHERE tenant_id = $1 AND event_type = 'invoice.accounting_pdf_generated'`), { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(expected);
  process.stdout.write(`every invoice finalized, with its PDF and its event, ${Math.round((Date.now() - restarted) / 1000)} s after the restart\n`);
  await expectBilledOnce(h, due);
});
