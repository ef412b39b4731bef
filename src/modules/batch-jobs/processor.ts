import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { TaskRegistry } from '../../jobs/runtime.js';
import { CHUNK_MAX_ATTEMPTS, PROCESS_CHUNK_TASK } from './create-service.js';
import { customerIdentifierOf, importCustomerChunk } from './customer-import.js';
import { eventIdOf, importEventChunk, type ChunkOutcome } from './event-import.js';
import { bankLineIdentifierOf, importBankPaymentChunk } from './bank-payment-import.js';
import type { BatchJobPorts } from './ports.js';
import * as repo from './repository.js';
import type { BatchJobRow, ChunkRow } from './repository.js';

/**
 * Processes one chunk: marks it PROCESSING (and its job, on the first chunk), imports its rows,
 * then records the outcome and folds the counts into the job, which gets its final status when
 * no chunk is left. Throwing lets the queue retry the chunk; on the last attempt the chunk is
 * marked FAILED instead, so the job always finishes.
 */
export function createChunkProcessor(deps: { pool: Pool; clock: Clock; ports: BatchJobPorts }) {
  const { pool, clock, ports } = deps;

  async function runImport(tenantId: string, job: BatchJobRow, chunk: ChunkRow): Promise<ChunkOutcome> {
    const slice = { firstItemIndex: chunk.first_item_index, items: chunk.items };
    if (job.job_type === 'EVENT_CSV_IMPORT') {
      return importEventChunk(ports.ingestEvents, tenantId, slice, { fileSha256: job.file_sha256, failOnError: job.params.fail_on_error });
    }
    if (job.job_type === 'CUSTOMER_CSV_IMPORT') {
      const end = chunk.first_item_index + chunk.item_count;
      const created = await repo.createdEntities(pool, tenantId, job.id, chunk.first_item_index, end);
      return importCustomerChunk(ports.createCustomer, tenantId, slice, created, (itemIndex, customerId) => repo.recordEntity(pool, tenantId, job.id, itemIndex, customerId));
    }
    if (job.job_type === 'BANK_PAYMENT_CSV_IMPORT') {
      // the payments an earlier attempt of this chunk recorded, so they still count as matched by this job
      const recorded = await repo.createdEntities(pool, tenantId, job.id, chunk.first_item_index, chunk.first_item_index + chunk.item_count);
      return importBankPaymentChunk(ports.recordBankPayment, tenantId, slice, recorded, (itemIndex, paymentId) => repo.recordEntity(pool, tenantId, job.id, itemIndex, paymentId));
    }
    return giveUp(job, chunk, `${job.job_type} jobs cannot be processed by this service`);
  }

  function giveUp(job: BatchJobRow, chunk: ChunkRow, reason: string): ChunkOutcome {
    const failures = chunk.items.map((item, offset) => {
      const itemIndex = chunk.first_item_index + offset;
      const identifier = job.job_type === 'EVENT_CSV_IMPORT' ? eventIdOf(item, job.file_sha256, itemIndex)
        : job.job_type === 'BANK_PAYMENT_CSV_IMPORT' ? bankLineIdentifierOf(item) : customerIdentifierOf(item);
      return { itemIndex, identifier, reason };
    });
    return { status: 'FAILED', processed: 0, failed: chunk.item_count, failures };
  }

  async function processChunk(tenantId: string, chunkId: string): Promise<void> {
    const started = await withTx(pool, async (tx) => {
      const chunk = await repo.findChunk(tx, tenantId, chunkId, true);
      // Done already (a duplicate delivery of the job): nothing to do.
      if (!chunk || (chunk.status !== 'PENDING' && chunk.status !== 'PROCESSING')) return undefined;
      const job = await repo.findJob(tx, tenantId, chunk.batch_job_id);
      if (!job) return undefined;
      await repo.startChunkAttempt(tx, tenantId, chunk, clock.now());
      return { job, chunk: { ...chunk, attempts: chunk.attempts + 1 } };
    });
    if (!started) return;
    const { job, chunk } = started;

    let outcome: ChunkOutcome;
    try {
      outcome = await runImport(tenantId, job, chunk);
    } catch (error) {
      if (chunk.attempts < CHUNK_MAX_ATTEMPTS) throw error;
      outcome = giveUp(job, chunk, `chunk ${chunk.chunk_index} could not be processed after ${CHUNK_MAX_ATTEMPTS} attempts; import these rows again`);
    }
    await withTx(pool, async (tx) => {
      // The job row lock serialises chunks finishing at the same time, so the final status is set once.
      await repo.findJob(tx, tenantId, job.id, true);
      const now = clock.now();
      await repo.finishChunk(tx, tenantId, chunk, outcome, now);
      await repo.refreshJobCounts(tx, tenantId, job.id, now);
    });
  }

  const tasks: TaskRegistry = {
    [PROCESS_CHUNK_TASK]: async (payload) => {
      const { tenant_id: tenantId, chunk_id: chunkId } = payload;
      if (typeof tenantId !== 'string' || typeof chunkId !== 'string') return;
      await processChunk(tenantId, chunkId);
    },
  };
  return { processChunk, tasks };
}
