import { createHash } from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { enqueueJob } from '../../jobs/queue.js';
import { parseCsv, type CsvItem } from './csv.js';
import { checkEventHeader, EVENT_CHUNK_SIZE } from './event-import.js';
import { checkCustomerHeader, CUSTOMER_CHUNK_SIZE } from './customer-import.js';
import { BANK_PAYMENT_CHUNK_SIZE, checkBankPaymentHeader, keyBankLines } from './bank-payment-import.js';
import * as repo from './repository.js';
import type { BatchJobRow, JobType } from './repository.js';

/** Largest accepted file, in bytes of UTF-8 text. */
export const MAX_CSV_BYTES = 10 * 1024 * 1024;
export const PROCESS_CHUNK_TASK = 'batch-jobs.process-chunk';
/** One first attempt and three retries per chunk (graphile-worker backs off between them). */
export const CHUNK_MAX_ATTEMPTS = 4;
export const CREATABLE_JOB_TYPES = ['EVENT_CSV_IMPORT', 'CUSTOMER_CSV_IMPORT', 'BANK_PAYMENT_CSV_IMPORT'] as const;

export interface CreateBatchJobInput {
  job_type: (typeof CREATABLE_JOB_TYPES)[number];
  file_name?: string | null;
  csv: string;
  params?: { delimiter?: string; fail_on_error?: boolean } | null;
  force_duplicate?: boolean;
}

/** `prepare`: what a job type adds to its rows before they are split, knowing the whole file (bank line keys). */
const KINDS: Record<(typeof CREATABLE_JOB_TYPES)[number], { chunkSize: number; checkHeader: (header: readonly string[]) => void; prepare?: (items: readonly CsvItem[]) => CsvItem[] }> = {
  EVENT_CSV_IMPORT: { chunkSize: EVENT_CHUNK_SIZE, checkHeader: checkEventHeader },
  CUSTOMER_CSV_IMPORT: { chunkSize: CUSTOMER_CHUNK_SIZE, checkHeader: checkCustomerHeader },
  BANK_PAYMENT_CSV_IMPORT: { chunkSize: BANK_PAYMENT_CHUNK_SIZE, checkHeader: checkBankPaymentHeader, prepare: keyBankLines },
};

function checkDelimiter(value: string | undefined): string {
  if (value === undefined) return ',';
  if ([...value].length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw badRequest(`params.delimiter must be one character other than a quote or a line break; got '${value}'`);
  }
  return value;
}

export function createBatchJobCreation(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  /**
   * Reads and checks the file, then stores the job and its chunks and queues one job per chunk,
   * all in one transaction. `created` is false when an active job of the same file is returned.
   */
  async function createJob(tenantId: string, createdBy: string, input: CreateBatchJobInput): Promise<{ job: BatchJobRow; created: boolean }> {
    const kind = KINDS[input.job_type];
    if (!kind) throw badRequest(`job_type must be one of ${CREATABLE_JOB_TYPES.join(', ')}`);
    const sizeBytes = Buffer.byteLength(input.csv, 'utf8');
    if (sizeBytes > MAX_CSV_BYTES) throw badRequest(`csv must be at most ${MAX_CSV_BYTES} bytes (10 MB); got ${sizeBytes} bytes`);
    const delimiter = checkDelimiter(input.params?.delimiter);
    const failOnError = input.params?.fail_on_error ?? false;
    const parsed = parseCsv(input.csv, delimiter);
    kind.checkHeader(parsed.header);
    if (parsed.items.length === 0) throw badRequest('csv has a header but no data rows');
    const items = kind.prepare ? kind.prepare(parsed.items) : parsed.items;
    const fileSha256 = createHash('sha256').update(input.csv, 'utf8').digest('hex');
    const jobType: JobType = input.job_type;

    return withTx(pool, async (tx) => {
      const active = await repo.findJobByFile(tx, tenantId, jobType, fileSha256, repo.ACTIVE_STATUSES);
      if (active) return { job: active, created: false };
      if (!input.force_duplicate) {
        const done = await repo.findJobByFile(tx, tenantId, jobType, fileSha256, ['COMPLETED', 'COMPLETED_WITH_ERRORS']);
        if (done) throw conflict(`csv: this file was already imported by batch job ${done.id} (${done.status}); send force_duplicate: true to import it again`);
      }
      const now = clock.now();
      const job: BatchJobRow = {
        id: newId('batchJob', now.getTime()),
        job_type: jobType,
        status: 'PENDING',
        input_file_name: input.file_name ?? null,
        file_sha256: fileSha256,
        params: { delimiter, fail_on_error: failOnError },
        total_items: items.length,
        processed_items: 0,
        failed_items: 0,
        matched_items: 0,
        created_by: createdBy,
        created_at: now,
        completed_at: null,
      };
      if (!(await repo.insertJob(tx, tenantId, job))) {
        // A concurrent upload of the same file won the race: answer with its job.
        const winner = await repo.findJobByFile(tx, tenantId, jobType, fileSha256, repo.ACTIVE_STATUSES);
        if (winner) return { job: winner, created: false };
        throw conflict('csv: the same file is being imported right now; retry in a moment');
      }
      const chunks: { id: string; chunkIndex: number; firstItemIndex: number; items: CsvItem[] }[] = [];
      for (let first = 0; first < items.length; first += kind.chunkSize) {
        chunks.push({ id: newId('batchJobChunk', now.getTime()), chunkIndex: chunks.length, firstItemIndex: first, items: items.slice(first, first + kind.chunkSize) });
      }
      await repo.insertChunks(tx, tenantId, job.id, chunks, now);
      for (const chunk of chunks) {
        // One named queue per batch job: its chunks run one at a time, in file order, so the
        // outcome (e.g. which of two rows with one alias wins) does not depend on timing.
        await enqueueJob(tx, PROCESS_CHUNK_TASK, { tenant_id: tenantId, chunk_id: chunk.id }, { queueName: `batch-job:${job.id}`, maxAttempts: CHUNK_MAX_ATTEMPTS });
      }
      return { job, created: true };
    });
  }

  return { createJob };
}

export type BatchJobCreation = ReturnType<typeof createBatchJobCreation>;
