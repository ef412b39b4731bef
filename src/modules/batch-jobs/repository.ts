import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { CsvItem } from './csv.js';

/** The reference's four, and ours: BANK_PAYMENT_CSV_IMPORT (bank lines matched to invoices). */
export const JOB_TYPES = ['EVENT_CSV_IMPORT', 'CUSTOMER_CSV_IMPORT', 'SUBSCRIPTION_CSV_IMPORT', 'SUBSCRIPTION_PLAN_MIGRATION', 'BANK_PAYMENT_CSV_IMPORT'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export const JOB_STATUSES = ['PENDING', 'CHUNKING', 'PROCESSING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type ChunkStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'SKIPPED';
/** Statuses of a job that is still going: an identical upload returns that job. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['PENDING', 'CHUNKING', 'PROCESSING'];
const ACTIVE_SQL = `status IN ('PENDING', 'CHUNKING', 'PROCESSING')`;

export interface JobParams {
  delimiter: string;
  fail_on_error: boolean;
}

export interface BatchJobRow {
  id: string;
  job_type: JobType;
  status: JobStatus;
  input_file_name: string | null;
  file_sha256: string;
  params: JobParams;
  total_items: number | null;
  processed_items: number;
  failed_items: number;
  /** Bank payment jobs: rows that recorded a payment (the rest of processed_items were recorded before). */
  matched_items: number;
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
}

export interface ChunkRow {
  id: string;
  batch_job_id: string;
  chunk_index: number;
  first_item_index: number;
  items: CsvItem[];
  item_count: number;
  status: ChunkStatus;
  attempts: number;
}

export interface FailureRow {
  id: string;
  chunk_id: string;
  item_index: number;
  item_identifier: string | null;
  reason: string;
}

export interface ItemFailure {
  itemIndex: number;
  identifier: string | null;
  reason: string;
}

const JOB_COLUMNS = `id, job_type, status, input_file_name, file_sha256, params, total_items, processed_items, failed_items, matched_items, created_by, created_at, completed_at`;

/** Inserts a job unless an active job of the same file and type exists; true when inserted. */
export async function insertJob(db: Queryable, tenantId: string, row: BatchJobRow): Promise<boolean> {
  const inserted = await scoped(db, tenantId).query(
    `INSERT INTO batch_jobs (tenant_id, id, job_type, status, input_file_name, file_sha256, params, total_items, processed_items, failed_items, created_by, created_at, updated_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)
     ON CONFLICT (tenant_id, job_type, file_sha256) WHERE ${ACTIVE_SQL} DO NOTHING
     RETURNING id`,
    [row.id, row.job_type, row.status, row.input_file_name, row.file_sha256, JSON.stringify(row.params), row.total_items, row.processed_items, row.failed_items, row.created_by, row.created_at, row.completed_at],
  );
  return inserted.length === 1;
}

/** The latest job of this file and type whose status is one of `statuses`. */
export async function findJobByFile(db: Queryable, tenantId: string, jobType: JobType, sha256: string, statuses: readonly JobStatus[]): Promise<BatchJobRow | undefined> {
  return scoped(db, tenantId).one<BatchJobRow>(
    `SELECT ${JOB_COLUMNS} FROM batch_jobs WHERE tenant_id = $1 AND job_type = $2 AND file_sha256 = $3 AND status = ANY($4::text[])
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [jobType, sha256, statuses],
  );
}

export async function findJob(db: Queryable, tenantId: string, id: string, lock = false): Promise<BatchJobRow | undefined> {
  return scoped(db, tenantId).one<BatchJobRow>(`SELECT ${JOB_COLUMNS} FROM batch_jobs WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export async function listJobs(
  db: Queryable,
  tenantId: string,
  filter: { jobType?: JobType; statuses?: readonly JobStatus[] },
  page: PageRequest,
): Promise<{ rows: BatchJobRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR job_type = $2) AND ($3::text[] IS NULL OR status = ANY($3::text[]))`;
  const params = [filter.jobType ?? null, filter.statuses && filter.statuses.length > 0 ? filter.statuses : null];
  const rows = await scoped(db, tenantId).query<BatchJobRow>(
    `SELECT ${JOB_COLUMNS} FROM batch_jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
    [...params, page.perPage, page.page * page.perPage],
  );
  const count = await scoped(db, tenantId).one<{ n: number }>(`SELECT count(*)::int AS n FROM batch_jobs WHERE ${where}`, params);
  return { rows, total: count?.n ?? 0 };
}

export async function insertChunks(
  db: Queryable,
  tenantId: string,
  jobId: string,
  chunks: readonly { id: string; chunkIndex: number; firstItemIndex: number; items: CsvItem[] }[],
  now: Date,
): Promise<void> {
  const records = chunks.map((c) => ({ id: c.id, chunk_index: c.chunkIndex, first_item_index: c.firstItemIndex, items: c.items, item_count: c.items.length }));
  await scoped(db, tenantId).query(
    `INSERT INTO batch_job_chunks (tenant_id, id, batch_job_id, chunk_index, first_item_index, items, item_count, status, created_at)
     SELECT $1, r.id, $2, r.chunk_index, r.first_item_index, r.items, r.item_count, 'PENDING', $4
     FROM jsonb_to_recordset($3::jsonb) AS r(id text, chunk_index int, first_item_index int, items jsonb, item_count int)`,
    [jobId, JSON.stringify(records), now],
  );
}

export async function findChunk(db: Queryable, tenantId: string, chunkId: string, lock = false): Promise<ChunkRow | undefined> {
  return scoped(db, tenantId).one<ChunkRow>(
    `SELECT id, batch_job_id, chunk_index, first_item_index, items, item_count, status, attempts FROM batch_job_chunks
     WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [chunkId],
  );
}

export async function startChunkAttempt(db: Queryable, tenantId: string, chunk: ChunkRow, now: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE batch_job_chunks SET status = 'PROCESSING', attempts = attempts + 1 WHERE tenant_id = $1 AND id = $2`, [chunk.id]);
  await scoped(db, tenantId).query(
    `UPDATE batch_jobs SET status = 'PROCESSING', updated_at = $3 WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'CHUNKING')`,
    [chunk.batch_job_id, now],
  );
}

/** Records a chunk's outcome; its failures replace those of any earlier attempt. */
export async function finishChunk(
  db: Queryable,
  tenantId: string,
  chunk: ChunkRow,
  outcome: { status: 'COMPLETED' | 'FAILED'; processed: number; failed: number; failures: readonly ItemFailure[]; matched?: number },
  now: Date,
): Promise<void> {
  const scope = scoped(db, tenantId);
  await scope.query(`DELETE FROM batch_job_failures WHERE tenant_id = $1 AND chunk_id = $2`, [chunk.id]);
  if (outcome.failures.length > 0) {
    await scope.query(
      `INSERT INTO batch_job_failures (tenant_id, batch_job_id, chunk_id, item_index, item_identifier, reason)
       SELECT $1, $2, $3, f.item_index, f.item_identifier, f.reason
       FROM jsonb_to_recordset($4::jsonb) AS f(item_index int, item_identifier text, reason text)`,
      [chunk.batch_job_id, chunk.id, JSON.stringify(outcome.failures.map((f) => ({ item_index: f.itemIndex, item_identifier: f.identifier, reason: f.reason })))],
    );
  }
  await scope.query(
    `UPDATE batch_job_chunks SET status = $3, processed_items = $4, failed_items = $5, completed_at = $6, matched_items = $7 WHERE tenant_id = $1 AND id = $2`,
    [chunk.id, outcome.status, outcome.processed, outcome.failed, now, outcome.matched ?? 0],
  );
}

/**
 * Folds the chunks' counts into the job (whose row the caller has locked) and, once no chunk
 * is left to run, sets its final status.
 */
export async function refreshJobCounts(db: Queryable, tenantId: string, jobId: string, now: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `WITH c AS (
       SELECT coalesce(sum(processed_items), 0)::int AS processed, coalesce(sum(failed_items), 0)::int AS failed, coalesce(sum(matched_items), 0)::int AS matched,
              count(*) FILTER (WHERE status IN ('PENDING', 'PROCESSING'))::int AS open
       FROM batch_job_chunks WHERE tenant_id = $1 AND batch_job_id = $2)
     UPDATE batch_jobs j SET processed_items = c.processed, failed_items = c.failed, matched_items = c.matched, updated_at = $3,
       status = CASE WHEN c.open > 0 THEN j.status
                     WHEN c.failed = 0 THEN 'COMPLETED'
                     WHEN c.processed = 0 THEN 'FAILED'
                     ELSE 'COMPLETED_WITH_ERRORS' END,
       completed_at = CASE WHEN c.open > 0 THEN NULL ELSE $3::timestamptz END
     FROM c WHERE j.tenant_id = $1 AND j.id = $2`,
    [jobId, now],
  );
}

export async function countFailures(db: Queryable, tenantId: string, jobId: string, chunkId?: string): Promise<number> {
  const row = await scoped(db, tenantId).one<{ n: number }>(
    `SELECT count(*)::int AS n FROM batch_job_failures WHERE tenant_id = $1 AND batch_job_id = $2 AND ($3::text IS NULL OR chunk_id = $3)`,
    [jobId, chunkId ?? null],
  );
  return row?.n ?? 0;
}

export async function listFailures(db: Queryable, tenantId: string, jobId: string, filter: { chunkId?: string; limit: number; offset: number }): Promise<FailureRow[]> {
  return scoped(db, tenantId).query<FailureRow>(
    `SELECT id, chunk_id, item_index, item_identifier, reason FROM batch_job_failures
     WHERE tenant_id = $1 AND batch_job_id = $2 AND ($3::text IS NULL OR chunk_id = $3)
     ORDER BY item_index LIMIT $4 OFFSET $5`,
    [jobId, filter.chunkId ?? null, filter.limit, filter.offset],
  );
}

/** Entities created (customers) or payments recorded (bank lines) by earlier attempts for items of this job, by item index. */
export async function createdEntities(db: Queryable, tenantId: string, jobId: string, fromIndex: number, toIndex: number): Promise<Map<number, string>> {
  const rows = await scoped(db, tenantId).query<{ item_index: number; entity_id: string }>(
    `SELECT item_index, entity_id FROM batch_job_entities WHERE tenant_id = $1 AND batch_job_id = $2 AND item_index >= $3 AND item_index < $4`,
    [jobId, fromIndex, toIndex],
  );
  return new Map(rows.map((r) => [r.item_index, r.entity_id]));
}

export async function recordEntity(db: Queryable, tenantId: string, jobId: string, itemIndex: number, entityId: string): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO batch_job_entities (tenant_id, batch_job_id, item_index, entity_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [jobId, itemIndex, entityId],
  );
}
