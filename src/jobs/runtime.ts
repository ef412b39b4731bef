import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { makeWorkerUtils, run, runOnce, type JobHelpers, type Runner, type RunnerOptions, type TaskList, type WorkerUtils } from 'graphile-worker';
import type { Pool } from '../db/pool.js';
import { silentLogger } from '../db/migrate.js';
import { processWorkerId } from './worker-id.js';

/** What a job handler knows about the run it is in: which queue worker holds it, and which attempt this is. */
export interface JobContext {
  /** `hostname:pid:random/slot` of the queue worker running the job (its `locked_by`). */
  workerId: string;
  jobId: string;
  /** 1 on the first run. */
  attempt: number;
}

/**
 * A task handler receives the job's JSON payload and, from the queue, its run (tests calling a
 * handler directly leave it out); throwing makes the queue retry with backoff.
 */
export type TaskHandler = (payload: Record<string, unknown>, context?: JobContext) => Promise<void>;
export type TaskRegistry = Record<string, TaskHandler>;

/** Where job runs are logged (the app's pino logger in `serve`). */
export interface JobLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

function toTaskList(tasks: TaskRegistry, log: JobLog | undefined): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, handler]) => [
      name,
      async (payload: unknown, helpers: JobHelpers) => {
        const { job } = helpers;
        const context: JobContext = { workerId: job.locked_by ?? processWorkerId(), jobId: job.id, attempt: job.attempts };
        const fields = { task: name, job_id: job.id, attempt: job.attempts, worker_id: context.workerId };
        const started = performance.now();
        try {
          await handler((payload ?? {}) as Record<string, unknown>, context);
        } catch (error) {
          log?.error({ ...fields, err: error }, 'job failed; the queue retries it with backoff');
          throw error;
        }
        log?.debug({ ...fields, duration_ms: Math.round(performance.now() - started) }, 'job done');
      },
    ]),
  );
}

export interface Worker {
  /** This process's worker id (`hostname:pid:random`). */
  id: string;
  /** Stops taking jobs and waits for the running ones to finish. */
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /** Jobs run at once: one queue worker per slot, `<id>/1` .. `<id>/<concurrency>`. */
  concurrency: number;
  /** How often the heartbeat is written and dead processes are looked for; 3 missed beats is dead. */
  heartbeatMs: number;
  log?: JobLog;
}

/** A process missing this many heartbeats in a row is taken for dead. */
const MISSED_BEATS_FOR_DEAD = 3;

const slotIds = (processId: string, slots: number) => Array.from({ length: slots }, (_, i) => `${processId}/${i + 1}`);

/**
 * The background worker (graphile-worker: PostgreSQL-backed, SKIP LOCKED, retries with
 * exponential backoff, safe with several processes on one database).
 *
 * graphile-worker 0.16 frees the jobs of a worker that died mid-job (kill -9, OOM) only after
 * 4 hours. It names each job's holder (`locked_by`) and can unlock the jobs of given workers
 * (`forceUnlockWorkers`), so this process registers itself in `job_workers` and beats every
 * `heartbeatMs`; every process (at start, then at each beat) unlocks the jobs of processes silent
 * for three beats. With the default 10 s, a crashed worker's jobs run again within 41 s: 30 s
 * of silence, noticed at the next beat of a live process, taken at its next poll (1 s).
 * Each slot is its own runner because graphile-worker takes a chosen worker id only with a
 * concurrency of 1.
 */
export async function startWorker(pool: Pool, tasks: TaskRegistry, options: WorkerOptions): Promise<Worker> {
  const id = processWorkerId();
  const deadAfterMs = options.heartbeatMs * MISSED_BEATS_FOR_DEAD;
  await beat(pool, id, options.concurrency);
  const utils = await makeWorkerUtils({ pgPool: pool, logger: silentLogger() });
  const taskList = toTaskList(tasks, options.log);
  await recoverDeadWorkers(pool, utils, deadAfterMs, options.log);
  const runners: Runner[] = [];
  for (const workerId of slotIds(id, options.concurrency)) {
    // `workerId` is a worker option graphile-worker reads from the runner's options (RunnerOptions does not list it).
    const runnerOptions: RunnerOptions & { workerId: string } = { pgPool: pool, taskList, concurrency: 1, workerId, noHandleSignals: true, pollInterval: 1000, logger: silentLogger() };
    runners.push(await run(runnerOptions));
  }
  options.log?.info({ worker_id: id, slots: options.concurrency }, 'job worker started');
  let beating: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    beating = (async () => {
      await beat(pool, id, options.concurrency);
      await recoverDeadWorkers(pool, utils, deadAfterMs, options.log);
    })().catch((error: unknown) => options.log?.error({ worker_id: id, err: error }, 'job worker heartbeat failed'));
  }, options.heartbeatMs);
  timer.unref();
  return {
    id,
    stop: async () => {
      clearInterval(timer);
      await beating;
      await Promise.all(runners.map((runner) => runner.stop()));
      await pool.query('DELETE FROM job_workers WHERE worker_id = $1', [id]);
      await utils.release();
    },
  };
}

/** Writes this process's heartbeat (registering it again if a peer took it for dead during a long pause). */
async function beat(pool: Pool, id: string, slots: number): Promise<void> {
  await pool.query(
    `INSERT INTO job_workers (worker_id, hostname, pid, slots) VALUES ($1, $2, $3, $4)
     ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`,
    [id, hostname(), process.pid, slots],
  );
}

/**
 * Unlocks the jobs (and job queues) held by the queue workers of every process whose heartbeat is
 * older than `deadAfterMs`, then forgets those processes. Several processes may do this at once:
 * unlocking twice is harmless. Returns the dead processes' ids.
 */
export async function recoverDeadWorkers(pool: Pool, utils: WorkerUtils, deadAfterMs: number, log?: JobLog): Promise<string[]> {
  const stale = `heartbeat_at < now() - make_interval(secs => $1::float8 / 1000)`;
  const { rows } = await pool.query<{ worker_id: string; slots: number }>(`SELECT worker_id, slots FROM job_workers WHERE ${stale}`, [deadAfterMs]);
  if (rows.length === 0) return [];
  await utils.forceUnlockWorkers(rows.flatMap((row) => slotIds(row.worker_id, row.slots)));
  const dead = rows.map((row) => row.worker_id);
  await pool.query(`DELETE FROM job_workers WHERE ${stale} AND worker_id = ANY($2)`, [deadAfterMs, dead]);
  log?.info({ dead_worker_ids: dead }, 'unlocked the jobs of job workers that stopped beating');
  return dead;
}

let drains = 0;

/** Runs every job that is due now, then returns: how tests and one-shot commands drain the queue. */
export async function drainJobs(pool: Pool, tasks: TaskRegistry): Promise<void> {
  drains += 1;
  const options: RunnerOptions & { workerId: string } = {
    pgPool: pool, taskList: toTaskList(tasks, undefined), logger: silentLogger(), noHandleSignals: true, workerId: `${processWorkerId()}/drain-${drains}`,
  };
  await runOnce(options);
}
