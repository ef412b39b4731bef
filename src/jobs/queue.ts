import type { Queryable } from '../db/pool.js';

export interface EnqueueOptions {
  runAt?: Date;
  /** A job with the same key that has not started yet is replaced instead of duplicated. */
  jobKey?: string;
  maxAttempts?: number;
  /** Jobs in one named queue run one at a time, in order. */
  queueName?: string;
}

/**
 * Enqueues a job on the caller's connection: inside a transaction, the job exists if and only
 * if the transaction commits.
 */
export async function enqueueJob(db: Queryable, task: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, $2::json, queue_name := $3, run_at := $4, max_attempts := $5, job_key := $6)`,
    [task, JSON.stringify(payload), options.queueName ?? null, options.runAt ?? null, options.maxAttempts ?? 25, options.jobKey ?? null],
  );
}
