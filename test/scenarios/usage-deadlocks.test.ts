import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { ensurePartition, eventBatch, insertAllNewEvents, insertEvents, type EventRow } from '../../src/modules/usage/repository.js';

// Concurrent batches that share event ids (client retries) and unknown customer aliases, each in
// its own order: every row lock the write path takes must be taken in one canonical order, so
// PostgreSQL never has to break a deadlock (docs/usage.md, "Lock order").
const harness = useHarness();

const CONCURRENT = 8;
const ROUNDS = 4;
const CODES = ['api_call', 'tokens', 'storage'];
const WINDOW = 200;

/** A seeded Fisher-Yates shuffle: each request gets its own, reproducible order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2_654_435_761 + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** crm-0..crm-9 are customers' aliases; crm-10..crm-19 no customer has (each stored event updates its counter row). */
const event = (id: string, i: number, customers: number) => ({
  event_id: id,
  code: CODES[i % CODES.length],
  customer_id: `crm-${i % customers}`,
  timestamp: `2026-03-15T${String(10 + (i % 2)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`,
  properties: { tokens: String(i) },
});

interface DatabaseStats {
  deadlocks: number;
  commits: number;
}

async function databaseStats(h: Harness): Promise<DatabaseStats> {
  const { rows: [row] } = await h.db.pool.query<{ deadlocks: string; commits: string }>(
    `SELECT deadlocks::text, xact_commit::text AS commits FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { deadlocks: Number(row!.deadlocks), commits: Number(row!.commits) };
}

describe('concurrent usage batches in different orders', () => {
  it('take row locks in one order: PostgreSQL reports no deadlock and every event is stored once', async () => {
    const h = harness();
    const stats = () => databaseStats(h);
    for (let c = 0; c < 10; c++) {
      const customer = await h.request('POST', '/api/v1/customers', { body: { name: `Customer ${c}`, currency: 'EUR', alias: `crm-${c}` } });
      expect(customer.statusCode, customer.body).toBe(201);
    }
    await h.db.pool.query('SELECT pg_stat_force_next_flush()');
    const before = await stats();

    let requests = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // even rounds: known customers only (no counter rows); odd rounds: unknown aliases as well
      const customers = round % 2 === 0 ? 10 : 20;
      // sliding windows of ids: each request shares half its events with the one before and half
      // with the one after (retries of overlapping batches)
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, k) => {
          const all = Array.from({ length: 2 * WINDOW }, (_, i) => event(`r${round}-${k * WINDOW + i}`, k * WINDOW + i, customers));
          const events = k === 0 ? all : k === 1 ? [...all].reverse() : shuffled(all, round * CONCURRENT + k);
          return h.request('POST', '/api/v1/events/ingest', { body: { events, allow_partial_failures: k % 2 === 0 } });
        }),
      );
      requests += answers.length;
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const ingested = answers.reduce((sum, a) => sum + (a.json() as { ingested: number }).ingested, 0);
      // each event stored by exactly one of the requests, the other one counting it a duplicate
      expect(ingested).toBe((CONCURRENT + 1) * WINDOW);
    }

    // A backend reports its counters (deadlocks among them) when idle, at most once a second: wait
    // until the service's commits are visible, then read the deadlock count they were reported with.
    await expect.poll(async () => (await stats()).commits - before.commits, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(requests);
    expect((await stats()).deadlocks - before.deadlocks).toBe(0);
  });

  it('the two insert statements, run straight at the database without the HTTP path between them, never deadlock', async () => {
    // Without request parsing in between, statements overlap far more: the fast path (plain
    // insert) and the slow path (ON CONFLICT) race on shared ids and shared counter rows.
    const h = harness();
    const at = new Date('2026-03-15T11:00:00Z');
    await ensurePartition(h.db.pool, at);
    const before = await databaseStats(h);
    let statements = 0;
    for (let round = 0; round < ROUNDS * 2; round++) {
      const row = (id: string, i: number): EventRow => ({
        eventId: id, code: CODES[i % CODES.length]!, customerRef: `direct-${i % 20}`, timestamp: new Date(at.getTime() + i * 1000),
        properties: {}, payloadHash: (i % 256).toString(16).padStart(64, '0'), unresolved: true,
      });
      // sliding windows of ids: each statement shares half its ids with the one before and half
      // with the one after (retries of overlapping batches), all under the same unknown references
      await Promise.all(Array.from({ length: CONCURRENT }, async (_, k) => {
        const rows = Array.from({ length: 2 * WINDOW }, (_, i) => row(`d${round}-${k * WINDOW + i}`, k * WINDOW + i));
        const ordered = k === 1 ? [...rows].reverse() : shuffled(rows, round * CONCURRENT + k);
        statements += 1;
        const batch = eventBatch(ordered, at);
        const fast = await insertAllNewEvents(h.db.pool, h.tenant.id, batch);
        if (!fast) await insertEvents(h.db.pool, h.tenant.id, batch);
      }));
      const { rows: [count] } = await h.db.pool.query<{ n: string }>(`SELECT sum(event_count)::text AS n FROM usage_unresolved_customers WHERE tenant_id = $1 AND customer_ref LIKE 'direct-%'`, [h.tenant.id]);
      expect(Number(count!.n)).toBe((round + 1) * (CONCURRENT + 1) * WINDOW);
    }
    await expect.poll(async () => (await databaseStats(h)).commits - before.commits, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(statements);
    expect((await databaseStats(h)).deadlocks - before.deadlocks).toBe(0);
  });
});
