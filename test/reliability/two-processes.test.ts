// Two serving processes (HTTP and worker each, as two replicas run) on one database: the same usage
// event sent to both is counted once, and every webhook event is delivered exactly once.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { systemClock } from '../../src/kernel/clock.js';
import { compose } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { WebhookReceiver } from '../http/webhooks-receiver.js';
import { SECRET_KEY, startServe } from './processes.js';

let db: TestDatabase;
let dataDir: string;
let receiverUrl: string;
const receiver = new WebhookReceiver();
const children: ChildProcessWithoutNullStreams[] = [];

async function serve(): Promise<string> {
  const started = await startServe(db.url, dataDir);
  children.push(started.child);
  return started.baseUrl;
}

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'billing-two-'));
  receiverUrl = await receiver.start();
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('counts a usage event sent to both processes once and delivers each webhook event once', { timeout: 280_000 }, async () => {
  // The tenant is made in this process (the servers then find an organization and create none).
  const service = await compose({ pool: db.pool, clock: systemClock, config: { ...loadConfig({}), logLevel: 'silent', secretKey: SECRET_KEY } });
  const account = await service.accounts.bootstrap({ email: 'two@a.test', password: 'password-two', organization: 'Two' });
  await service.app.close();
  const key = account.tenants.find((t) => t.environment === 'sandbox')!.api_key;

  const bases = await Promise.all([serve(), serve()]);
  const call = async (base: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };

  const endpoint = await call(bases[0]!, 'POST', '/api/v1/webhooks/endpoints', { url: `${receiverUrl}/hook` });
  expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
  const family = await call(bases[1]!, 'POST', '/api/v1/product_families', { name: 'Two' });
  const metric = await call(bases[0]!, 'POST', '/api/v1/metrics', { name: 'Calls', code: 'calls', aggregation_type: 'COUNT', product_family_id: family.json.id });
  expect(metric.status, JSON.stringify(metric.json)).toBe(201);
  const customers: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    const res = await call(bases[i % 2]!, 'POST', '/api/v1/customers', { name: `C${i}`, currency: 'EUR' });
    expect(res.status).toBe(201);
    customers.push(res.json.id);
  }

  const event = { idempotency_key: 'two-1', code: 'calls', customer_id: customers[0], timestamp: new Date().toISOString() };
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(bases[i % 2]!, 'POST', '/api/v1/events', event)));
  expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  for (const base of bases) {
    const usage = await call(base, 'GET', `/api/v1/usage/customer/${customers[0]}?start_date=${today}&end_date=${tomorrow}`);
    expect(usage.status, JSON.stringify(usage.json)).toBe(200);
    expect(usage.json.usage.find((u: { metric_id: string }) => u.metric_id === metric.json.id)?.total_value).toBe('1');
  }

  // Every customer.created reaches the receiver, and every delivery the service recorded is settled.
  // The payload carries the customer (its shape is the event's); find which of ours it names.
  const created = () => receiver.received.filter((r) => r.json.type === 'customer.created').map((r) => customers.find((id) => r.body.includes(id)));
  await expect.poll(() => new Set(created()).size, { timeout: 120_000, interval: 250 }).toBe(customers.length);
  const settled = async () => {
    const list = await call(bases[0]!, 'GET', `/api/v1/webhooks/endpoints/${endpoint.json.id}/deliveries?per_page=100`);
    return list.json.data.every((d: { status: string }) => d.status !== 'PENDING') ? list.json.data.length : -1;
  };
  await expect.poll(settled, { timeout: 60_000, interval: 250 }).toBe(receiver.received.length);
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  expect(new Set(ids).size).toBe(ids.length);
  expect(created().sort()).toEqual([...customers].sort());

  // Both processes ran a worker on the shared queue.
  const workers = await db.pool.query('SELECT worker_id FROM job_workers');
  expect(workers.rowCount).toBe(2);
});
