import { run, runOnce, type Runner, type TaskList } from 'graphile-worker';
import type { Pool } from '../db/pool.js';
import { silentLogger } from '../db/migrate.js';

/** A task handler receives the job's JSON payload; throwing makes the queue retry with backoff. */
export type TaskHandler = (payload: Record<string, unknown>) => Promise<void>;
export type TaskRegistry = Record<string, TaskHandler>;

function toTaskList(tasks: TaskRegistry): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, handler]) => [name, async (payload: unknown) => handler((payload ?? {}) as Record<string, unknown>)]),
  );
}

export interface Worker {
  /** Stops taking jobs and waits for the running ones to finish. */
  stop(): Promise<void>;
}

/**
 * The background worker (graphile-worker: PostgreSQL-backed, SKIP LOCKED, retries with
 * exponential backoff, safe with several processes on one database).
 */
export async function startWorker(pool: Pool, tasks: TaskRegistry, concurrency: number): Promise<Worker> {
  const runner: Runner = await run({
    pgPool: pool,
    taskList: toTaskList(tasks),
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: silentLogger(),
  });
  return { stop: () => runner.stop() };
}

/** Runs every job that is due now, then returns: how tests and one-shot commands drain the queue. */
export async function drainJobs(pool: Pool, tasks: TaskRegistry): Promise<void> {
  await runOnce({ pgPool: pool, taskList: toTaskList(tasks), logger: silentLogger(), noHandleSignals: true });
}
