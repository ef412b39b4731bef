import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, forbidden, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { deleteOutboxEventsOf, writeOutboxEvent } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import { parseRfc3339 } from '../../domain/usage/index.js';
import { ADVANCE_TASK } from './advance.js';
import { deleteObjectsOfTestClock, type DeletedObjects } from './delete.js';
import * as repo from './repository.js';
import type { TestClockOrderColumn, TestClockRow } from './repository.js';
import { testClockEventData } from './events.js';

/** Earliest and (exclusive) latest frozen time: usage events before 2000 are refused, and billing dates stay four-digit years. */
export const EARLIEST_FROZEN_TIME = new Date('2000-01-01T00:00:00.000Z');
export const LATEST_FROZEN_TIME = new Date('2100-01-01T00:00:00.000Z');
/** One advance moves the clock at most this many years (as Stripe's two billing intervals of a yearly plan). */
export const MAX_ADVANCE_YEARS = 2;

export type Environment = 'production' | 'sandbox';

/** Production tenants have no test clocks: every operation says so. */
function sandboxOnly(environment: Environment): void {
  if (environment === 'production') {
    throw forbidden('test clocks exist only in sandbox tenants, and this request acts for a production tenant; use a sandbox API key (sk_sandbox_...)');
  }
}

function parseTime(text: string, field: string): Date {
  const at = parseRfc3339(text);
  if (!at) throw badRequest(`${field} must be an RFC 3339 date-time with a zone, e.g. "2026-01-01T00:00:00Z"; got '${text}'`);
  if (at < EARLIEST_FROZEN_TIME || at >= LATEST_FROZEN_TIME) {
    throw badRequest(`${field} must be from 2000-01-01T00:00:00Z up to 2099-12-31T23:59:59Z, e.g. "2026-01-01T00:00:00Z"; got '${text}'`);
  }
  return at;
}

/** The same instant `years` calendar years later, in UTC (Feb 29 goes to Mar 1). */
function addYears(at: Date, years: number): Date {
  const out = new Date(at.getTime());
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

export function createTestClocksService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function requireClock(tenantId: string, id: string, db: Parameters<typeof repo.findTestClock>[0] = pool, lock = false): Promise<TestClockRow> {
    const row = await repo.findTestClock(db, tenantId, id, lock);
    if (!row) throw notFound('test clock');
    return row;
  }

  async function create(tenantId: string, environment: Environment, input: { frozen_time: string; name?: string | null }): Promise<TestClockRow> {
    sandboxOnly(environment);
    const frozen = parseTime(input.frozen_time, 'frozen_time');
    const name = input.name?.trim() || null;
    const now = clock.now();
    const row: TestClockRow = { id: newId('testClock', now.getTime()), name, frozen_time: frozen, status: 'READY', target_frozen_time: null, created_at: now, updated_at: now };
    return withTx(pool, async (tx) => {
      await repo.insertTestClock(tx, tenantId, row);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'test_clock.created', objectId: row.id, data: testClockEventData(row) });
      return row;
    });
  }

  async function list(tenantId: string, environment: Environment, query: { order_by?: string; page?: number; per_page?: number }): Promise<Page<TestClockRow>> {
    sandboxOnly(environment);
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy<TestClockOrderColumn>(query.order_by, ['created_at', 'frozen_time'], { column: 'created_at', direction: 'desc' });
    const { rows, total } = await repo.listTestClocks(pool, tenantId, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function get(tenantId: string, environment: Environment, id: string): Promise<TestClockRow> {
    sandboxOnly(environment);
    return requireClock(tenantId, id);
  }

  /**
   * Starts moving the clock forward: ADVANCING until the job has brought every object of the
   * clock to `frozen_time`, then READY (and `test_clock.ready`).
   */
  async function advance(tenantId: string, environment: Environment, id: string, input: { frozen_time: string }): Promise<TestClockRow> {
    sandboxOnly(environment);
    const target = parseTime(input.frozen_time, 'frozen_time');
    return withTx(pool, async (tx) => {
      const current = await requireClock(tenantId, id, tx, true);
      if (current.status === 'ADVANCING') {
        throw conflict(`test clock is ADVANCING to ${current.target_frozen_time!.toISOString()}; advance it again once its status is READY`);
      }
      if (target <= current.frozen_time) {
        throw badRequest(`frozen_time must be after the clock's frozen_time ${current.frozen_time.toISOString()}: a test clock only moves forward; got '${input.frozen_time}'`);
      }
      const latest = addYears(current.frozen_time, MAX_ADVANCE_YEARS);
      if (target > latest) {
        throw badRequest(`frozen_time may be at most ${MAX_ADVANCE_YEARS} years after the clock's frozen_time, so at most ${latest.toISOString()}; advance in several steps. Got '${input.frozen_time}'`);
      }
      const next: TestClockRow = { ...current, status: 'ADVANCING', target_frozen_time: target, updated_at: clock.now() };
      await repo.updateTestClock(tx, tenantId, next);
      await enqueueJob(tx, ADVANCE_TASK, { tenant_id: tenantId, test_clock_id: id }, { jobKey: `${ADVANCE_TASK}:${id}` });
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'test_clock.advancing', objectId: id, data: testClockEventData(next) });
      return next;
    });
  }

  /** Deletes the clock with its customers and everything of theirs; refused while it advances. */
  async function remove(tenantId: string, environment: Environment, id: string): Promise<{ id: string; deleted: true; deleted_objects: DeletedObjects }> {
    sandboxOnly(environment);
    return withTx(pool, async (tx) => {
      const current = await requireClock(tenantId, id, tx, true);
      if (current.status === 'ADVANCING') throw conflict(`test clock is ADVANCING to ${current.target_frozen_time!.toISOString()}; delete it once its status is READY`);
      const deleted = await deleteObjectsOfTestClock(tx, tenantId, id);
      await deleteOutboxEventsOf(scoped(tx, tenantId), [id]);
      await repo.deleteTestClock(tx, tenantId, id);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'test_clock.deleted', objectId: id, data: testClockEventData({ ...current, updated_at: clock.now() }) });
      return { id, deleted: true as const, deleted_objects: deleted };
    });
  }

  return { create, list, get, advance, remove };
}

export type TestClocksService = ReturnType<typeof createTestClocksService>;
