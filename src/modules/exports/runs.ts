// Export runs (docs/export.md, "Crash safety"). A run fixes each dataset's window when it is
// created; its job writes one file per dataset under names made of the run id, then marks the
// run SUCCEEDED and advances the watermarks in one transaction. A run that crashes between the
// two is run again by its job with the same windows and names, so its files are rewritten, not
// doubled; a run that fails stays open and is retried (same windows, same names) before any new run.
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { Clock } from '../../kernel/clock.js';
import { MS_PER_HOUR } from '../../kernel/clock.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { pageRequest, paginationMeta, type Page } from '../../kernel/paging.js';
import { describeDestination, nextTick, type ExportConfigService } from './config-service.js';
import { datasets, type Dataset, type ExportSources } from './datasets.js';
import { openDestination } from './destinations.js';
import { encode, EXTENSION } from './formats.js';
import * as repo from './repository.js';
import type { ExportFile, ExportRunRow, RunStatus, RunTrigger, StoredWindow } from './repository.js';
import { runToWire } from './schemas.js';

export const RUN_TASK = 'exports.run';
export const SWEEP_TASK = 'exports.sweep';
/** Wall-clock pause between two sweeps for due schedules. */
export const SWEEP_INTERVAL_MS = 60_000;
/**
 * How long before its end a window stops: a change stamped earlier than this but not yet
 * committed when the run reads would otherwise be missed for good. Usage days wait longer for
 * late events (docs/export.md, "Watermarks").
 */
export const SETTLE_MS = 60_000;
export const USAGE_SETTLE_MS = MS_PER_HOUR;
const ERROR_MAX_CHARS = 1_000;

const CONTENT_TYPE = { PARQUET: 'application/vnd.apache.parquet', CSV: 'text/csv; charset=utf-8' } as const;

/** A hook between the file writes and the commit: tests use it to stand for a crash there. */
export interface RunHooks {
  afterFilesWritten?: (run: ExportRunRow) => Promise<void>;
}

/** `<dataset>/date=<day the window ends>/<run id>.<ext>`: the same for every attempt of a run. */
export function fileKey(run: ExportRunRow, window: StoredWindow): string {
  return `${window.dataset}/date=${window.up_to.slice(0, 10)}/${run.id}.${EXTENSION[run.format]}`;
}

export function createExportRuns(deps: { pool: Pool; clock: Clock; folderRoot: string; sources: ExportSources; configs: ExportConfigService }) {
  const { pool, clock } = deps;
  const all: Dataset[] = datasets(deps.sources);
  const byName = new Map(all.map((d) => [d.name, d]));

  /** Windows of a new run: from each watermark to now less the settle time (never before the watermark). */
  async function newWindows(tx: Queryable, tenantId: string): Promise<StoredWindow[]> {
    const marks = await repo.watermarks(tx, tenantId);
    const now = clock.now();
    return all.map((dataset) => {
      const after = marks.get(dataset.name) ?? null;
      let upTo = dataset.windowEnd(now, dataset.name === 'usage_daily' ? USAGE_SETTLE_MS : SETTLE_MS);
      if (after && upTo < after) upTo = after;
      return { dataset: dataset.name, after: after?.toISOString() ?? null, up_to: upTo.toISOString() };
    });
  }

  /**
   * Starts a run, or resumes the tenant's failed one (same windows, same file names), in the
   * caller's transaction, and queues its job. A run already RUNNING is a conflict.
   */
  async function startInTx(tx: Queryable, tenantId: string, trigger: RunTrigger): Promise<ExportRunRow> {
    const config = await repo.findConfig(tx, tenantId, true);
    if (!config) throw conflict('this tenant has no export configuration; create one with PUT /api/v1/exports/config first');
    const open = await repo.findOpenRun(tx, tenantId);
    if (open?.status === 'RUNNING') throw conflict(`export run ${open.id} is RUNNING; start another once it has finished`);
    let run: ExportRunRow;
    if (open) {
      run = { ...open, status: 'RUNNING', error: null };
      await repo.updateRun(tx, tenantId, run);
    } else {
      const now = clock.now();
      run = {
        id: newId('exportRun', now.getTime()), status: 'RUNNING', trigger, format: config.format, windows: await newWindows(tx, tenantId),
        destination: describeDestination(config), files: [], attempts: 0, error: null, created_at: now, started_at: null, completed_at: null,
      };
      await repo.insertRun(tx, tenantId, run);
    }
    await enqueueJob(tx, RUN_TASK, { tenant_id: tenantId, run_id: run.id }, { jobKey: `${RUN_TASK}:${run.id}` });
    return run;
  }

  async function start(tenantId: string): Promise<ExportRunRow> {
    try {
      return await withTx(pool, (tx) => startInTx(tx, tenantId, 'MANUAL'));
    } catch (error) {
      // two starts at once: the second finds the first's run by the one-open-run index
      if (isUniqueViolation(error, 'export_runs_open_key')) throw conflict('an export run of this tenant has just started; start another once it has finished');
      throw error;
    }
  }

  /** Writes the run's files and commits it; the hook stands between the two (tests). Returns the run as it ends. */
  async function execute(tenantId: string, runId: string, hooks: RunHooks = {}): Promise<ExportRunRow | undefined> {
    const run = await repo.findRun(pool, tenantId, runId);
    if (!run || run.status !== 'RUNNING') return run;
    const config = await repo.findConfig(pool, tenantId);
    if (!config) throw new Error('the export configuration was deleted; create one and start a new run');
    const destination = openDestination(deps.configs.destinationOf(tenantId, config), deps.folderRoot);
    const files: ExportFile[] = [];
    try {
      for (const window of run.windows) {
        const dataset = byName.get(window.dataset)!;
        const records = await dataset.read(tenantId, { after: window.after ? new Date(window.after) : null, upTo: new Date(window.up_to) });
        const body = await encode(run.format, dataset.columns, records);
        const location = await destination.put(fileKey(run, window), body, CONTENT_TYPE[run.format]);
        files.push({ dataset: dataset.name, location, row_count: records.length, size_bytes: body.length });
      }
    } finally {
      destination.close();
    }
    await hooks.afterFilesWritten?.(run);
    return withTx(pool, async (tx) => {
      const current = await repo.findRun(tx, tenantId, runId, true);
      // another attempt committed first: its files are these same names
      if (!current || current.status !== 'RUNNING') return current;
      const done: ExportRunRow = { ...current, status: 'SUCCEEDED', files, destination: describeDestination(config), error: null, completed_at: clock.now() };
      await repo.updateRun(tx, tenantId, done);
      for (const window of current.windows) await repo.advanceWatermark(tx, tenantId, window.dataset, new Date(window.up_to), runId);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'export.completed', objectId: runId, data: runToWire(done) });
      return done;
    });
  }

  /** The job: counts the attempt, runs, and records a failure on the run (it is retried at the next tick or start). */
  async function runJob(tenantId: string, runId: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const run = await repo.findRun(tx, tenantId, runId, true);
      if (run?.status === 'RUNNING') await repo.updateRun(tx, tenantId, { ...run, attempts: run.attempts + 1, started_at: run.started_at ?? clock.now() });
    });
    try {
      await execute(tenantId, runId);
    } catch (error) {
      const message = `${(error as Error).name}: ${(error as Error).message}`.slice(0, ERROR_MAX_CHARS);
      await withTx(pool, async (tx) => {
        const run = await repo.findRun(tx, tenantId, runId, true);
        if (run?.status === 'RUNNING') await repo.updateRun(tx, tenantId, { ...run, status: 'FAILED', error: message });
      });
    }
  }

  /** Starts (or resumes) the runs of every tenant whose schedule is due, and moves their next tick. */
  async function sweep(): Promise<number> {
    let started = 0;
    for (const tenantId of await repo.dueTenants(pool, clock.now(), 100)) {
      await withTx(pool, async (tx) => {
        const config = await repo.findConfig(tx, tenantId, true);
        if (!config?.enabled || !config.next_run_at || config.next_run_at > clock.now()) return;
        await repo.setNextRunAt(tx, tenantId, nextTick(config.schedule, clock.now()));
        const open = await repo.findOpenRun(tx, tenantId);
        if (open?.status === 'RUNNING') return;
        await startInTx(tx, tenantId, 'SCHEDULED');
        started += 1;
      });
    }
    return started;
  }

  async function get(tenantId: string, id: string): Promise<ExportRunRow> {
    const run = await repo.findRun(pool, tenantId, id);
    if (!run) throw notFound('export run');
    return run;
  }

  async function list(tenantId: string, query: { status?: RunStatus; page?: number; per_page?: number }): Promise<Page<ExportRunRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await repo.listRuns(pool, tenantId, query.status, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  return { start, execute, runJob, sweep, get, list };
}

export type ExportRuns = ReturnType<typeof createExportRuns>;

/** Queues the periodic sweep (idempotent: one pending per database, by job key). */
export async function scheduleExportSweeps(db: Queryable, runAt?: Date): Promise<void> {
  await enqueueJob(db, SWEEP_TASK, {}, { jobKey: SWEEP_TASK, ...(runAt ? { runAt } : {}) });
}
