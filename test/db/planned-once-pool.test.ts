// The planned-once connections (db/pool.ts): each statement prepared once per connection and
// planned once for all values, while the main pool's statements keep plans made for their values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlannedOncePool, type PlannedOncePool } from '../../src/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;
let plannedOnce: PlannedOncePool;
beforeAll(async () => {
  db = await createTestDatabase();
  // one connection, so the session asked below is the one that ran the statements
  plannedOnce = createPlannedOncePool(db.pool, 1);
});
afterAll(async () => {
  await plannedOnce.end();
  await db.drop();
});

describe('planned-once connections', () => {
  it('prepare each text once and plan it once for all values', async () => {
    const text = 'SELECT relname FROM pg_class WHERE relname = $1 AND relpages >= $2';
    for (const [name, pages] of [['pg_class', 0], ['pg_type', 0], ['nothing-here', 7]] as const) {
      const { rows } = await plannedOnce.query<{ relname: string }>(text, [name, pages]);
      expect(rows.map((r) => r.relname)).toEqual(name === 'nothing-here' ? [] : [name]);
    }
    const { rows } = await plannedOnce.query<{ statements: number; generic_plans: string; custom_plans: string }>(
      `SELECT count(*)::int AS statements, sum(generic_plans)::text AS generic_plans, sum(custom_plans)::text AS custom_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT relname FROM pg_class%'`,
    );
    expect(rows[0]).toEqual({ statements: 1, generic_plans: '3', custom_plans: '0' });
  });

  it('leave the main pool planning for the values', async () => {
    expect((await plannedOnce.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('force_generic_plan');
    expect((await db.pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
  });
});
