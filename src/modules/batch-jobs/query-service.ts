import { notFound } from '../../kernel/errors.js';
import { paginationMeta, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool } from '../../db/pool.js';
import * as repo from './repository.js';
import type { BatchJobRow, FailureRow, JobStatus, JobType } from './repository.js';

export const DEFAULT_FAILURES_LIMIT = 25;

export function createBatchJobQueries(deps: { pool: Pool }) {
  const { pool } = deps;

  async function requireJob(tenantId: string, jobId: string): Promise<BatchJobRow> {
    const job = await repo.findJob(pool, tenantId, jobId);
    if (!job) throw notFound('batch job');
    return job;
  }

  /** Newest first; filters by type and any of several statuses. */
  async function listJobs(tenantId: string, query: { job_type?: JobType; status?: JobStatus[]; page?: number; per_page?: number }): Promise<Page<BatchJobRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await repo.listJobs(pool, tenantId, { jobType: query.job_type, statuses: query.status }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function getJob(tenantId: string, jobId: string): Promise<{ job: BatchJobRow; failureCount: number }> {
    const job = await requireJob(tenantId, jobId);
    return { job, failureCount: await repo.countFailures(pool, tenantId, job.id) };
  }

  /** Failures in item order. A chunk id of another job simply matches nothing. */
  async function listFailures(
    tenantId: string,
    jobId: string,
    query: { chunk_id?: string; limit?: number; offset?: number },
  ): Promise<{ data: FailureRow[]; total_count: number }> {
    const job = await requireJob(tenantId, jobId);
    const filter = { chunkId: query.chunk_id, limit: query.limit ?? DEFAULT_FAILURES_LIMIT, offset: query.offset ?? 0 };
    const [data, total] = await Promise.all([repo.listFailures(pool, tenantId, job.id, filter), repo.countFailures(pool, tenantId, job.id, query.chunk_id)]);
    return { data, total_count: total };
  }

  return { listJobs, getJob, listFailures };
}

export type BatchJobQueries = ReturnType<typeof createBatchJobQueries>;
