import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { allStoredAlready, ensurePartition, eventBatch, insertAllNewEvents, insertEvents, type EventRow } from '../../src/modules/usage/repository.js';

// The statement that sorts out a batch whose ids were partly seen (the path of every re-sent
// batch) answers only for ids that are not plain duplicates: stored, stored before with another
// payload, or committed by a concurrent transaction after the statement's snapshot.
const harness = useHarness();

const at = new Date('2026-03-15T11:00:00Z');
const row = (eventId: string, hashDigit: string): EventRow => ({
  eventId, code: 'api_call', customerRef: 'crm-1', timestamp: at, properties: {}, payloadHash: hashDigit.repeat(64), unresolved: true,
});

describe('the statements of a batch whose ids were seen', () => {
  it('insertEvents tells stored, differing and concurrently committed ids apart; allStoredAlready tells a re-sent batch', async () => {
    const h = harness();
    await ensurePartition(h.db.pool, at);
    expect(await insertAllNewEvents(h.db.pool, h.tenant.id, eventBatch([row('dup', 'a'), row('other', 'a')], at))).toEqual({ late: [] });

    // another transaction writes 'racing' and commits only while the statement waits for its row
    const racer = await h.db.pool.connect();
    try {
      await racer.query('BEGIN');
      expect(await insertAllNewEvents(racer, h.tenant.id, eventBatch([row('racing', 'c')], at))).toEqual({ late: [] });
      const outcome = insertEvents(h.db.pool, h.tenant.id, eventBatch([row('racing', 'd'), row('new', 'b'), row('dup', 'a'), row('other', 'b')], at));
      // the statement is blocked on the racer's uncommitted ledger row before the racer commits
      await expect.poll(async () => {
        const { rows } = await h.db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%ON CONFLICT DO NOTHING%'`);
        return rows.length;
      }, { timeout: 5_000, interval: 20 }).toBe(1);
      await racer.query('COMMIT');
      const { stored, differing, unseen } = await outcome;
      expect([...stored]).toEqual([['new', { late: false }]]);
      expect([...differing]).toEqual(['other']);
      expect(unseen).toEqual(['racing']);
    } finally {
      racer.release();
    }

    // a re-sent batch is told by a read; one new or changed event sends it through insertEvents
    expect(await allStoredAlready(h.db.pool, h.tenant.id, eventBatch([row('new', 'b'), row('dup', 'a'), row('racing', 'c')], at))).toBe(true);
    expect(await allStoredAlready(h.db.pool, h.tenant.id, eventBatch([row('dup', 'a'), row('racing', 'd')], at))).toBe(false);
    expect(await allStoredAlready(h.db.pool, h.tenant.id, eventBatch([row('dup', 'a'), row('unknown', 'a')], at))).toBe(false);

    const { rows: [count] } = await h.db.pool.query<{ n: number }>(
      `SELECT sum(event_count)::int AS n FROM usage_unresolved_customers WHERE tenant_id = $1 AND customer_ref = 'crm-1'`, [h.tenant.id],
    );
    expect(count!.n).toBe(4); // dup, other, racing and new, each once
  });
});
