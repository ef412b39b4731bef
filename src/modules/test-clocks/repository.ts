import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { OrderBy, PageRequest } from '../../kernel/paging.js';

export const TEST_CLOCK_STATUSES = ['READY', 'ADVANCING'] as const;
export type TestClockStatus = (typeof TEST_CLOCK_STATUSES)[number];

export interface TestClockRow {
  id: string;
  name: string | null;
  /** Where the clock's objects are in time; moves step by step while ADVANCING. */
  frozen_time: Date;
  status: TestClockStatus;
  /** Where the running advance goes; null when READY. */
  target_frozen_time: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type TestClockOrderColumn = 'created_at' | 'frozen_time';

const COLUMNS = 'id, name, frozen_time, status, target_frozen_time, created_at, updated_at';

export async function insertTestClock(db: Queryable, tenantId: string, row: TestClockRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO test_clocks (tenant_id, id, name, frozen_time, status, target_frozen_time, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.name, row.frozen_time, row.status, row.target_frozen_time, row.created_at, row.updated_at],
  );
}

export async function findTestClock(db: Queryable, tenantId: string, id: string, lock = false): Promise<TestClockRow | undefined> {
  return scoped(db, tenantId).one<TestClockRow>(`SELECT ${COLUMNS} FROM test_clocks WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** The clock's frozen time: what the modules before this one read through `TestClockTime`. */
export async function frozenTimeOf(db: Queryable, tenantId: string, id: string): Promise<Date | undefined> {
  return (await scoped(db, tenantId).one<{ frozen_time: Date }>(`SELECT frozen_time FROM test_clocks WHERE tenant_id = $1 AND id = $2`, [id]))?.frozen_time;
}

export async function listTestClocks(db: Queryable, tenantId: string, order: OrderBy<TestClockOrderColumn>, page: PageRequest): Promise<{ rows: TestClockRow[]; total: number }> {
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  return scoped(db, tenantId).page<TestClockRow>({ columns: COLUMNS, from: 'test_clocks', where: 'tenant_id = $1', orderBy: `${order.column} ${direction}, id ${direction}` }, [], page);
}

/** Writes status, frozen time and target (an advance starting, a step reached, the advance done). */
export async function updateTestClock(db: Queryable, tenantId: string, row: TestClockRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE test_clocks SET frozen_time = $3, status = $4, target_frozen_time = $5, updated_at = $6 WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.frozen_time, row.status, row.target_frozen_time, row.updated_at],
  );
}

export async function deleteTestClock(db: Queryable, tenantId: string, id: string): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM test_clocks WHERE tenant_id = $1 AND id = $2`, [id]);
}
