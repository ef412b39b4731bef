import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../../src/db/pool.js';
import { scoped } from '../../../src/db/tenant-scope.js';

/**
 * TenantScope.page (src/db/tenant-scope.ts): the total of a page that is not full is known from
 * the page itself, so the second, counting query runs only when more rows may follow.
 */
function fakeDb(matching: number) {
  const statements: string[] = [];
  const db = {
    query: async (text: string, params: unknown[]) => {
      statements.push(text);
      if (text.startsWith('SELECT count(*)')) return { rows: [{ n: BigInt(matching) }] };
      const [limit, offset] = params.slice(-2) as [number, number];
      const rows = Array.from({ length: Math.max(0, Math.min(limit, matching - offset)) }, (_, i) => ({ i: offset + i }));
      return { rows };
    },
  } as unknown as Queryable;
  return { db, statements };
}

const sql = { columns: 'id', from: 'customers', where: 'tenant_id = $1', orderBy: 'id' };

describe('TenantScope.page', () => {
  it.each([
    // [matching rows, page, per page, counted?]
    [7, 0, 10, false],
    [0, 0, 10, false],
    [23, 2, 10, false],
    [20, 1, 10, true], // a full page: more may follow
    [20, 5, 10, true], // past the end: the total still says how many there are
    [10, 0, 10, true],
  ])('%i matching rows, page %i of %i: total right, counted = %s', async (matching, page, perPage, counted) => {
    const { db, statements } = fakeDb(matching);
    const result = await scoped(db, 'ten_1').page(sql, [], { page, perPage });
    expect(result.total).toBe(matching);
    expect(result.rows).toHaveLength(Math.max(0, Math.min(perPage, matching - page * perPage)));
    expect(statements.some((s) => s.startsWith('SELECT count(*)'))).toBe(counted);
  });
});
