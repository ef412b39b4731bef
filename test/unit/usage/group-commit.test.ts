import { describe, expect, it } from 'vitest';
import { createGroupCommitter, type SingleOutcome } from '../../../src/modules/usage/group-commit.js';
import type { EventRow } from '../../../src/modules/usage/repository.js';

const row = (eventId: string): EventRow => ({
  eventId, code: 'c', customerRef: 'cus_1', timestamp: new Date('2026-01-01T00:00:00Z'), properties: {}, payloadHash: eventId,
});

/** A writer that records each statement's ids and stores ids it has not seen (like the ledger). */
function fakeWriter(options: { failOn?: string; delayMs?: number } = {}) {
  const statements: string[][] = [];
  const seen = new Set<string>();
  let concurrent = 0;
  let maxConcurrent = 0;
  const write = async (_tenantId: string, rows: readonly EventRow[]) => {
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    statements.push(rows.map((r) => r.eventId));
    await new Promise((r) => setTimeout(r, options.delayMs ?? 1));
    concurrent -= 1;
    if (options.failOn && rows.some((r) => r.eventId === options.failOn)) throw new Error(`cannot store ${options.failOn}`);
    const outcomes = new Map<string, SingleOutcome>();
    for (const r of rows) {
      outcomes.set(r.eventId, seen.has(r.eventId) ? { kind: 'duplicate' } : { kind: 'stored', late: false });
      seen.add(r.eventId);
    }
    return outcomes;
  };
  return { write, statements, maxConcurrent: () => maxConcurrent };
}

describe('usage group commit', () => {
  it('writes requests that arrive together in one statement and answers each from its own row', async () => {
    const fake = fakeWriter();
    const committer = createGroupCommitter(fake.write, { maxInFlight: 1, maxGroup: 100 });
    const outcomes = await Promise.all(['a', 'b', 'c'].map((id) => committer.submit('t1', row(id))));
    expect(outcomes).toEqual([{ kind: 'stored', late: false }, { kind: 'stored', late: false }, { kind: 'stored', late: false }]);
    expect(fake.statements).toEqual([['a', 'b', 'c']]);
  });

  it('never puts the same id twice in one statement: the repeat goes to the next group and is a duplicate', async () => {
    const fake = fakeWriter();
    const committer = createGroupCommitter(fake.write, { maxInFlight: 1, maxGroup: 100 });
    const outcomes = await Promise.all(['a', 'b', 'a', 'a'].map((id) => committer.submit('t1', row(id))));
    expect(outcomes.map((o) => o.kind)).toEqual(['stored', 'stored', 'duplicate', 'duplicate']);
    expect(fake.statements).toEqual([['a', 'b'], ['a'], ['a']]);
  });

  it('a failing statement fails only the request whose event caused it', async () => {
    const fake = fakeWriter({ failOn: 'bad' });
    const committer = createGroupCommitter(fake.write, { maxInFlight: 2, maxGroup: 100 });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((id) => committer.submit('t1', row(id))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('cannot store bad');
    expect(fake.statements).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('keeps at most maxInFlight statements running, caps the group size and separates tenants', async () => {
    const fake = fakeWriter({ delayMs: 5 });
    const committer = createGroupCommitter(fake.write, { maxInFlight: 2, maxGroup: 3 });
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);
    await Promise.all([...ids.map((id) => committer.submit('t1', row(id))), committer.submit('t2', row('other'))]);
    expect(fake.maxConcurrent()).toBe(2);
    expect(fake.statements.every((s) => s.length <= 3)).toBe(true);
    expect(fake.statements.flat().sort()).toEqual([...ids, 'other'].sort());
    expect(fake.statements.find((s) => s.includes('other'))).toEqual(['other']);
  });
});
