import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { createIngestService, type UsageSubscriber } from '../../src/modules/usage/ingest-service.js';

const harness = useHarness();
let seq = 0;

async function customer(alias?: string, key?: string) {
  const res = await harness().request('POST', '/api/v1/customers', { body: { name: `C${++seq}`, currency: 'EUR', ...(alias ? { alias } : {}) }, key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; alias: string | null };
}

const ingest = (body: unknown, key?: string | null) => harness().request('POST', '/api/v1/events/ingest', { body, key });
const ev = (id: string, customerId: string, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  code: 'api_call',
  customer_id: customerId,
  timestamp: '2026-03-15T11:00:00Z',
  properties: { region: 'eu' },
  ...extra,
});

/** The two counts of an accepted batch's answer when no event is late and every customer is known. */
const none = { in_finalized_periods: 0, unknown_customer_events: 0 };

async function storedIds(prefix: string): Promise<string[]> {
  const rows = await harness().db.pool.query<{ event_id: string }>(`SELECT event_id FROM usage_events WHERE event_id LIKE $1 ORDER BY event_id`, [`${prefix}%`]);
  return rows.rows.map((r) => r.event_id);
}

describe('POST /api/v1/events/ingest', () => {
  it('stores a batch, and counts an event sent twice (same batch or two batches) once', async () => {
    const c = await customer();
    const first = await ingest({ events: [ev('b1-1', c.id), ev('b1-2', c.id), ev('b1-1', c.id)] });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ ingested: 2, duplicates: 1, ...none });
    const second = await ingest({ events: [ev('b1-2', c.id), ev('b1-3', c.id)] });
    expect(second.json()).toEqual({ ingested: 1, duplicates: 1, ...none });
    expect(await storedIds('b1-')).toEqual(['b1-1', 'b1-2', 'b1-3']);
    const ledger = await harness().db.pool.query(`SELECT count(*)::int AS n FROM usage_event_ids WHERE event_id LIKE 'b1-%'`);
    expect(ledger.rows[0].n).toBe(3);
  });

  it('resolves a batch naming customers by id and by alias at once, concurrent batches alike, and re-sent batches with a changed payload are refused', async () => {
    const byId = await customer();
    const byAlias = await customer(`rs-alias-${seq}`);
    const events = (prefix: string) => [ev(`${prefix}-1`, byId.id), ev(`${prefix}-2`, byAlias.alias!), ev(`${prefix}-3`, 'rs-not-yet-a-customer')];
    const answers = await Promise.all(['rs-a', 'rs-b', 'rs-c'].map((prefix) => ingest({ events: events(prefix) })));
    for (const answer of answers) expect(answer.json()).toMatchObject({ ingested: 3, duplicates: 0, in_finalized_periods: 0, unknown_customer_events: 1 });
    const rows = await harness().db.pool.query<{ event_id: string; customer_ref: string }>(`SELECT event_id, customer_ref FROM usage_events WHERE event_id LIKE 'rs-a-%' ORDER BY event_id`);
    expect(rows.rows).toEqual([
      { event_id: 'rs-a-1', customer_ref: byId.id },
      { event_id: 'rs-a-2', customer_ref: byAlias.id },
      { event_id: 'rs-a-3', customer_ref: 'rs-not-yet-a-customer' },
    ]);
    // the whole batch again: duplicates, nothing written; one payload changed: refused, nothing written
    expect((await ingest({ events: events('rs-a') })).json()).toEqual({ ingested: 0, duplicates: 3, ...none });
    const changed = await ingest({ events: [...events('rs-a').slice(0, 2), ev('rs-a-3', 'rs-not-yet-a-customer', { properties: { region: 'us' } }), ev('rs-a-4', byId.id)] });
    expect(changed.statusCode, changed.body).toBe(400);
    expect(await storedIds('rs-a-')).toEqual(['rs-a-1', 'rs-a-2', 'rs-a-3']);
  });

  it('stores a large batch exactly, with every character a bulk write must escape, and a resent one only adds the new event', async () => {
    const c = await customer();
    const odd = 'tab\there\nnew\r\\back "quote" {braces,comma} \u0001 \u2028 NULL é 💶';
    const events = Array.from({ length: 600 }, (_, i) => ev(`b9-${odd}-${i}`, c.id, { properties: { note: `${odd}${i}`, 'key\twith\\': 'v' } }));
    const first = await ingest({ events });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ ingested: 600, duplicates: 0, ...none });
    const again = await ingest({ events: [...events, ev(`b9-${odd}-600`, c.id)] });
    expect(again.json()).toEqual({ ingested: 1, duplicates: 600, ...none });
    const rows = await harness().db.pool.query<{ event_id: string; properties: Record<string, string>; customer_ref: string }>(
      `SELECT event_id, properties, customer_ref FROM usage_events WHERE event_id LIKE 'b9-%' ORDER BY event_id`,
    );
    expect(rows.rows).toHaveLength(601);
    const stored = rows.rows.find((r) => r.event_id === `b9-${odd}-17`);
    expect(stored).toEqual({ event_id: `b9-${odd}-17`, customer_ref: c.id, properties: { note: `${odd}17`, 'key\twith\\': 'v' } });
  });

  it('refuses text PostgreSQL cannot store (a NUL character, an over-long customer reference) per event, naming the field', async () => {
    const c = await customer();
    const res = await ingest({ events: [ev('b10-1', c.id), ev('b10-\u0000', c.id), ev('b10-3', c.id, { properties: { 'a\u0000': 'x' } }), ev('b10-4', c.id, { properties: { a: '\u0000' } })], allow_partial_failures: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ingested: 1, failures: [{ index: 1, reason: expect.stringContaining('event_id') }, { index: 2, reason: expect.stringContaining('properties') }, { index: 3, reason: expect.stringContaining('properties.a') }] });
    const long = await ingest({ events: [ev('b10-5', 'x'.repeat(256))], allow_backfilling: true });
    expect(long.json()).toMatchObject({ code: 'BAD_REQUEST', failures: [{ index: 0, reason: 'customer_id must be at most 255 characters' }] });
  });

  it('reports the same id with a different payload instead of merging it', async () => {
    const c = await customer();
    await ingest({ events: [ev('b2-1', c.id, { properties: { region: 'eu' } })] });
    const partial = await ingest({ events: [ev('b2-1', c.id, { properties: { region: 'us' } }), ev('b2-2', c.id)], allow_partial_failures: true });
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toEqual({
      ingested: 1,
      duplicates: 0,
      ...none,
      failures: [{ index: 0, event_id: 'b2-1', reason: "event_id 'b2-1' was already ingested with a different payload" }],
    });
    const strict = await ingest({ events: [ev('b2-3', c.id), ev('b2-1', c.id, { code: 'other' })] });
    expect(strict.statusCode).toBe(400);
    expect(strict.json()).toMatchObject({ code: 'BAD_REQUEST', failures: [{ index: 1, event_id: 'b2-1' }] });
    expect(await storedIds('b2-')).toEqual(['b2-1', 'b2-2']);
    const row = await harness().db.pool.query(`SELECT properties FROM usage_events WHERE event_id = 'b2-1'`);
    expect(row.rows[0].properties).toEqual({ region: 'eu' });
    const inBatch = await ingest({ events: [ev('b2-4', c.id), ev('b2-4', c.id, { properties: { region: 'us' } })] });
    expect(inBatch.statusCode).toBe(400);
    expect(inBatch.json().failures).toEqual([{ index: 1, event_id: 'b2-4', reason: "event_id 'b2-4' appears earlier in this batch (index 0) with a different payload" }]);
  });

  it('without allow_partial_failures stores nothing of a batch with a bad event; with it stores the good ones', async () => {
    const c = await customer();
    const events = [
      ev('b3-1', c.id),
      ev('b3-2', 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ'),
      ev('b3-3', c.id, { properties: { bytes: 12 } }),
      ev('b3-4', c.id, { timestamp: 'yesterday' }),
      ev('b3-5', c.id),
    ];
    const refused = await ingest({ events });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'BAD_REQUEST',
      message: '3 of 5 events refused; nothing was stored (set allow_partial_failures to store the others)',
      failures: [
        { index: 1, event_id: 'b3-2', reason: "customer 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ' not found (customer_id takes a customer id or alias; an unknown alias is kept, an unknown id is refused)" },
        { index: 2, event_id: 'b3-3', reason: 'properties.bytes must be a string (send numbers as "123")' },
        { index: 3, event_id: 'b3-4', reason: "timestamp 'yesterday' is not an RFC 3339 date-time" },
      ],
    });
    expect(await storedIds('b3-')).toEqual([]);
    const partial = await ingest({ events, allow_partial_failures: true });
    expect(partial.statusCode).toBe(200);
    expect(partial.json().ingested).toBe(2);
    expect(partial.json().failures.map((f: { index: number }) => f.index)).toEqual([1, 2, 3]);
    expect(await storedIds('b3-')).toEqual(['b3-1', 'b3-5']);
  });

  it('refuses old events unless backfilling, and events too far in the future always', async () => {
    const c = await customer();
    // harness clock: 2026-03-15T12:00:00Z
    const old = ev('b4-old', c.id, { timestamp: '2026-03-14T11:59:59Z' });
    const recent = ev('b4-recent', c.id, { timestamp: '2026-03-14T12:00:00Z' });
    const soon = ev('b4-soon', c.id, { timestamp: '2026-03-15T13:00:00Z' });
    const future = ev('b4-future', c.id, { timestamp: '2026-03-15T13:00:01Z' });
    const res = await ingest({ events: [old, recent, soon, future], allow_partial_failures: true });
    expect(res.json().failures).toEqual([
      { index: 0, event_id: 'b4-old', reason: 'timestamp 2026-03-14T11:59:59.000Z is more than 24 hours in the past; set allow_backfilling to ingest it' },
      { index: 3, event_id: 'b4-future', reason: 'timestamp 2026-03-15T13:00:01.000Z is more than 1 hour in the future' },
    ]);
    const backfill = await ingest({ events: [old, future, ev('b4-2019', c.id, { timestamp: '2019-06-01T00:00:00+02:00' })], allow_backfilling: true, allow_partial_failures: true });
    expect(backfill.json()).toMatchObject({ ingested: 2, failures: [{ index: 1, event_id: 'b4-future' }] });
    expect(await storedIds('b4-')).toEqual(['b4-2019', 'b4-old', 'b4-recent', 'b4-soon']);
    const partitions = await harness().db.pool.query(`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'usage_events_p201905'`);
    expect(partitions.rows[0].n).toBe(1); // created on demand (2019-06-01T00:00+02:00 is May 31 UTC)
  });

  it('refuses unknown codes only when strict', async () => {
    const c = await customer();
    const family = (await harness().request('POST', '/api/v1/product_families', { body: { name: 'F' } })).json();
    await harness().request('POST', '/api/v1/metrics', { body: { name: 'Calls', code: 'known_code', aggregation_type: 'COUNT', product_family_id: family.id } });
    const res = await ingest({ events: [ev('b5-1', c.id, { code: 'known_code' }), ev('b5-2', c.id, { code: 'typo_code' })], strict: true, allow_partial_failures: true });
    expect(res.json()).toEqual({ ingested: 1, duplicates: 0, ...none, failures: [{ index: 1, event_id: 'b5-2', reason: "code 'typo_code' is not the code of any billable metric" }] });
    expect((await ingest({ events: [ev('b5-3', c.id, { code: 'typo_code' })] })).json()).toEqual({ ingested: 1, duplicates: 0, ...none });
  });

  it('validates the request itself with a 400 naming the field', async () => {
    const empty = await ingest({ events: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('events');
    const tooMany = await ingest({ events: Array.from({ length: 10_001 }, (_, i) => ev(`x${i}`, 'c')) });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toContain('events');
    const badType = await ingest({ events: [{ ...ev('b6-1', 'c'), code: 5 }] });
    expect(badType.statusCode).toBe(400);
    expect(badType.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('events[0].code') });
  });

  it('links events sent by alias to the customer, and holds backfilled events of a customer created later', async () => {
    const known = await customer('acct-42');
    const res = await ingest({ events: [ev('b7-1', 'acct-42')] });
    expect(res.json()).toEqual({ ingested: 1, duplicates: 0, ...none });
    const row = await harness().db.pool.query(`SELECT customer_ref FROM usage_events WHERE event_id = 'b7-1'`);
    expect(row.rows[0].customer_ref).toBe(known.id);
    // same event by id: same payload once resolved, so a duplicate
    expect((await ingest({ events: [ev('b7-1', known.id)] })).json()).toEqual({ ingested: 0, duplicates: 1, ...none });

    // a migration: Stripe-style ids as aliases, events first, customers after (with or without backfilling)
    const early = ev('b7-2', 'cus_NffrFeUfNV2Hib', { timestamp: '2026-03-01T10:00:00Z' });
    const notYet = await ingest({ events: [{ ...early, event_id: 'b7-3', timestamp: '2026-03-15T10:00:00Z' }] });
    expect(notYet.json()).toEqual({
      ingested: 1, duplicates: 0, in_finalized_periods: 0, unknown_customer_events: 1,
      warnings: ["1 event names a customer alias no customer has yet ('cus_NffrFeUfNV2Hib'): kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers"],
    });
    expect((await ingest({ events: [early], allow_backfilling: true })).json()).toMatchObject({ ingested: 1, duplicates: 0, unknown_customer_events: 1 });
    const late = await customer('cus_NffrFeUfNV2Hib');
    const usage = await harness().request('GET', `/api/v1/usage/customer/${late.id}?start_date=2026-03-01&end_date=2026-04-01`);
    expect(usage.statusCode, usage.body).toBe(200);
    const counted = usage.json().usage.filter((u: { metric_code: string }) => u.metric_code === 'api_call');
    expect(counted).toHaveLength(0); // no metric reads api_call yet; the link is checked in usage-query tests
  });

  it('counts a batch once when its write died after the events were received and the client retries', async () => {
    const h = harness();
    const c = await customer();
    const events = Array.from({ length: 5 }, (_, i) => ev(`k1-${i}`, c.id));
    // A transaction of the test holds one id of the batch in the dedup ledger, so the batch's
    // statement waits mid-write; then its connection is killed, as a crash or failover would.
    const holder = await h.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO usage_event_ids (tenant_key, event_id, payload_hash) VALUES ((SELECT key FROM tenants WHERE id = $1), 'k1-3', '\\x00')`, [h.tenant.id]);
      const first = ingest({ events });
      let pid: number | undefined;
      await expect.poll(async () => {
        const waiting = await h.db.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO usage_event_ids%' AND pid <> pg_backend_pid()`,
        );
        pid = waiting.rows[0]?.pid;
        return pid;
      }, { timeout: 30_000 }).toBeDefined();
      await h.db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const answer = await first;
      expect(answer.statusCode).toBe(500);
      expect(answer.json()).toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await storedIds('k1-')).toEqual([]); // the statement died: nothing of it was stored

    // the client retries: every event counts once, not zero times; a second retry changes nothing
    expect((await ingest({ events })).json()).toEqual({ ingested: 5, duplicates: 0, ...none });
    expect((await ingest({ events })).json()).toEqual({ ingested: 0, duplicates: 5, ...none });
    expect(await storedIds('k1-')).toEqual(['k1-0', 'k1-1', 'k1-2', 'k1-3', 'k1-4']);
    const ledger = await h.db.pool.query(`SELECT count(*)::int AS n FROM usage_event_ids WHERE event_id LIKE 'k1-%'`);
    expect(ledger.rows[0].n).toBe(5);
  });

  it('keeps tenants apart: same event ids are independent, another tenant\'s customer is unknown', async () => {
    const h = harness();
    const mine = await customer();
    const theirs = await customer(undefined, h.other.apiKey);
    expect((await ingest({ events: [ev('b8-1', mine.id)] })).json()).toEqual({ ingested: 1, duplicates: 0, ...none });
    expect((await ingest({ events: [ev('b8-1', theirs.id)] }, h.other.apiKey)).json()).toEqual({ ingested: 1, duplicates: 0, ...none });
    const cross = await ingest({ events: [ev('b8-2', theirs.id)] });
    expect(cross.statusCode).toBe(400);
    expect(cross.json().failures[0].reason).toContain(`customer '${theirs.id}' not found`);
    expect((await ingest({ events: [ev('b8-1', mine.id)] }, null)).statusCode).toBe(401);
  });
});

describe('POST /api/v1/events', () => {
  it('ingests one event keyed by idempotency_key; retries (also concurrent) are counted once', async () => {
    const h = harness();
    const c = await customer();
    const body = { idempotency_key: 's1-1', code: 'api_call', customer_id: c.id, timestamp: '2026-03-15T11:30:00Z', properties: { n: '1' } };
    const answers = await Promise.all(Array.from({ length: 12 }, () => h.request('POST', '/api/v1/events', { body })));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(answers.find((a) => a.statusCode === 201)!.json()).toEqual({ event_id: 's1-1', duplicate: false, in_finalized_period: false });
    expect(answers.find((a) => a.statusCode === 200)!.json()).toEqual({ event_id: 's1-1', duplicate: true, in_finalized_period: false });
    expect(await storedIds('s1-')).toEqual(['s1-1']);
  });

  it('counts concurrent overlapping batches once', async () => {
    const c = await customer();
    const batch = (from: number) => ({ events: Array.from({ length: 50 }, (_, i) => ev(`s2-${String(from + i).padStart(3, '0')}`, c.id)) });
    const answers = await Promise.all([ingest(batch(0)), ingest(batch(25)), ingest(batch(0)), ingest(batch(40))]);
    const ingested = answers.reduce((n, a) => n + a.json().ingested, 0);
    expect(ingested).toBe(90);
    expect(await storedIds('s2-')).toHaveLength(90);
  });

  it('answers 409 for a reused key with another payload and 400 for bad events', async () => {
    const h = harness();
    const c = await customer();
    const body = { idempotency_key: 's3-1', code: 'api_call', customer_id: c.id };
    expect((await h.request('POST', '/api/v1/events', { body })).statusCode).toBe(201);
    const reuse = await h.request('POST', '/api/v1/events', { body: { ...body, code: 'other' } });
    expect(reuse.statusCode).toBe(409);
    expect(reuse.json()).toEqual({ code: 'CONFLICT', message: "event_id 's3-1' was already ingested with a different payload" });
    const missing = await h.request('POST', '/api/v1/events', { body: { code: 'api_call', customer_id: c.id } });
    expect(missing.json()).toEqual({ code: 'BAD_REQUEST', message: 'idempotency_key (or event_id) is required' });
    const unknownId = await h.request('POST', '/api/v1/events', { body: { ...body, idempotency_key: 's3-2', customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ' } });
    expect(unknownId.statusCode).toBe(400);
    expect(unknownId.json().message).toContain("customer 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ' not found");
    // an alias no customer has yet is kept, with a warning
    const unknownAlias = await h.request('POST', '/api/v1/events', { body: { ...body, idempotency_key: 's3-4', customer_id: 'ghost' } });
    expect(unknownAlias.statusCode).toBe(201);
    expect(unknownAlias.json()).toEqual({
      event_id: 's3-4', duplicate: false, in_finalized_period: false,
      warning: "1 event names a customer alias no customer has yet ('ghost'): kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers",
    });
    const old = await h.request('POST', '/api/v1/events', { body: { ...body, idempotency_key: 's3-3', timestamp: '2026-01-01T00:00:00Z' } });
    expect(old.json().message).toContain('more than 24 hours in the past');
  });

  it('group commit: concurrent single events, duplicates across them counted once, each answered from its own outcome', async () => {
    const h = harness();
    const c = await customer();
    const post = (id: string, extra: Record<string, unknown> = {}) =>
      h.request('POST', '/api/v1/events', { body: { idempotency_key: id, code: 'api_call', customer_id: c.id, timestamp: '2026-03-15T11:00:00Z', properties: { n: '1' }, ...extra } });
    // Sent together, so they are coalesced into few statements: 20 new ids, each twice; one id
    // reused with another payload; one event refused by validation; one for an unknown customer id.
    const requests = [
      ...Array.from({ length: 20 }, (_, i) => post(`s4-${String(i).padStart(2, '0')}`)),
      ...Array.from({ length: 20 }, (_, i) => post(`s4-${String(i).padStart(2, '0')}`)),
      post('s4-00', { properties: { n: '2' } }),
      post('s4-bad', { properties: { n: 2 } }),
      post('s4-ghost', { customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ' }),
    ];
    const answers = await Promise.all(requests);
    const count = (status: number) => answers.filter((a) => a.statusCode === status).length;
    expect({ created: count(201), duplicate: count(200), conflict: count(409), bad: count(400) }).toEqual({ created: 20, duplicate: 20, conflict: 1, bad: 2 });
    for (let i = 0; i < 20; i++) {
      const pair = [answers[i]!.json(), answers[20 + i]!.json()].map((b: { duplicate: boolean }) => b.duplicate).sort();
      expect(pair).toEqual([false, true]);
    }
    expect(answers[40]!.json()).toEqual({ code: 'CONFLICT', message: "event_id 's4-00' was already ingested with a different payload" });
    expect(answers[41]!.json()).toEqual({ code: 'BAD_REQUEST', message: 'properties.n must be a string (send numbers as "123")' });
    expect(await storedIds('s4-')).toHaveLength(20);
    const ledger = await h.db.pool.query(`SELECT count(*)::int AS n FROM usage_event_ids WHERE event_id LIKE 's4-%'`);
    expect(ledger.rows[0].n).toBe(20);
    const stored = await h.db.pool.query(`SELECT properties FROM usage_events WHERE event_id = 's4-00'`);
    expect(stored.rows[0].properties).toEqual({ n: '1' });
  });
});

describe('subscribers of committed usage (alerts, spend thresholds)', () => {
  it('are all told of a stored batch and a stored single event and awaited; a failing one is reported and the events stay stored', async () => {
    const h = harness();
    const c = await customer();
    const told: string[] = [];
    const errors: string[] = [];
    let slowSettled = 0;
    const subscribers: UsageSubscriber[] = [
      { name: 'throws', stored: () => { throw new Error('thrown'); } },
      { name: 'rejects', stored: async () => { throw new Error('rejected'); } },
      {
        name: 'slow',
        stored: async (_tenantId, events) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          told.push(...events.map((e) => e.eventId));
          slowSettled += 1;
        },
      },
    ];
    const metrics = { get: async () => undefined, all: async () => [], codeExists: async () => true };
    const ingest = createIngestService({ pool: h.db.pool, clock: h.clock, metrics, subscribers, onError: (_error, name) => errors.push(name) });

    const batch = await ingest.ingest(h.tenant.id, [ev('sub-1', c.id), ev('sub-2', c.id)], { allowBackfilling: true, allowPartialFailures: false, strict: false });
    expect(batch).toMatchObject({ accepted: true, ingested: 2, failures: [] });
    // awaited: the slow subscriber has settled by the time ingestion answers
    expect(slowSettled).toBe(1);
    expect(told).toEqual(['sub-1', 'sub-2']);
    expect(errors.sort()).toEqual(['rejects', 'throws']);

    const single = await ingest.ingestOne(h.tenant.id, { event_id: 'sub-3', code: 'api_call', customer_id: c.id, timestamp: h.clock.now().toISOString(), properties: {} });
    expect(single).toMatchObject({ accepted: true, ingested: 1 });
    expect(slowSettled).toBe(2);
    expect(told).toEqual(['sub-1', 'sub-2', 'sub-3']);
    expect(errors).toHaveLength(4);
    expect(await storedIds('sub-')).toEqual(['sub-1', 'sub-2', 'sub-3']);
  });
});
