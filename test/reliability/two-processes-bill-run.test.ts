// Two serving processes (HTTP and worker each, as two replicas run) run the bill run at the same time
// on the same due subscriptions: one invoice per period, gapless numbers, usage billed once, and each
// invoice's webhook events delivered once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/queue.js';
import { BILLING_RUN_TASK } from '../../src/modules/invoices/index.js';
import { useHarness } from '../harness/app.js';
import { WebhookReceiver } from '../http/webhooks-receiver.js';
import { expectBilledOnce, finishedInvoices, seedDueSubscriptions, SEEDING_CONFIG } from './due-subscriptions.js';
import { killHard, SECRET_KEY, startServe, type ServingProcess } from './processes.js';

const SUBSCRIPTIONS = 40;
/** Small batches and two job slots per process: the runs of both processes interleave batch by batch. */
const SERVE_ENV = { BILLING_RUN_BATCH_SIZE: '5', WORKER_CONCURRENCY: '2' };
/** Bill runs queued before the processes start: more than one process's slots, so both take some. */
const RUNS = 4;

// the processes' SECRET_KEY: they must open the webhook signing secret this process seals
const harness = useHarness({ ...SEEDING_CONFIG, secretKey: SECRET_KEY });
const receiver = new WebhookReceiver();
const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-two-run-'));
const processes: ServingProcess[] = [];
let receiverUrl: string;
beforeAll(async () => {
  receiverUrl = await receiver.start();
});
afterAll(async () => {
  for (const p of processes) await killHard(p.child);
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('bills the same due subscriptions from two processes at once without a duplicate invoice, webhook or usage count', { timeout: 280_000 }, async () => {
  const h = harness();
  const endpoint = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${receiverUrl}/hook` } });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
  const due = await seedDueSubscriptions(h, SUBSCRIPTIONS);
  const expected = SUBSCRIPTIONS * 2;
  // one-shot runs (no job key, unlike the periodic one each process queues at start)
  for (let i = 0; i < RUNS; i += 1) await enqueueJob(h.db.pool, BILLING_RUN_TASK, { once: true });

  // Which processes hold a bill run, sampled while they work: both must have taken part.
  const holders = new Set<string>();
  let sampling = true;
  const sample = (async () => {
    while (sampling) {
      const { rows } = await h.db.pool.query<{ locked_by: string }>(`SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = $1 AND locked_by IS NOT NULL`, [BILLING_RUN_TASK]);
      for (const row of rows) holders.add(row.locked_by.replace(/\/\d+$/, ''));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    processes.push(...(await Promise.all([startServe(h.db.url, dataDir, SERVE_ENV), startServe(h.db.url, dataDir, SERVE_ENV)])));
    await expect.poll(() => finishedInvoices(h), { timeout: 180_000, interval: 500 }).toBeGreaterThanOrEqual(expected);
    process.stdout.write(`two processes: every invoice finalized with its PDF; bill runs held by ${JSON.stringify([...holders])}\n`);
  } finally {
    sampling = false;
    await sample;
  }
  const pids = processes.map((p) => String(p.child.pid));
  expect([...holders].map((id) => id.split(':')[1]).sort()).toEqual(pids.sort());

  await expectBilledOnce(h, due);

  // Each invoice's created, finalized and PDF events reach the receiver once, whichever process relayed them.
  const invoiceEvents = () => receiver.received.filter((r) => String(r.json.type).startsWith('invoice.'));
  await expect.poll(() => invoiceEvents().length, { timeout: 90_000, interval: 500 }).toBeGreaterThanOrEqual(expected * 3);
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  expect(new Set(ids).size).toBe(ids.length);
  const perType = new Map<string, number>();
  for (const r of invoiceEvents()) perType.set(String(r.json.type), (perType.get(String(r.json.type)) ?? 0) + 1);
  expect(Object.fromEntries(perType)).toEqual({ 'invoice.created': expected, 'invoice.finalized': expected, 'invoice.accounting_pdf_generated': expected });
});
