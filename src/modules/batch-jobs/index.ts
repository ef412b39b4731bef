// What the composition root uses from batch jobs (no other module depends on it).
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { createBatchJobCreation } from './create-service.js';
import { createChunkProcessor } from './processor.js';
import { createBatchJobQueries } from './query-service.js';
import { batchJobRoutes } from './routes.js';
import type { BatchJobPorts } from './ports.js';

export type { BatchJobPorts, ImportCustomer, ImportEvent, IngestEvents, CreateCustomer } from './ports.js';
export { PROCESS_CHUNK_TASK, MAX_CSV_BYTES } from './create-service.js';
export type { BatchJobCreation } from './create-service.js';

/** Batch jobs wired: creation, read API, and the chunk task for the job queue. */
export function createBatchJobs(deps: { pool: Pool; clock: Clock; ports: BatchJobPorts }) {
  const creation = createBatchJobCreation(deps);
  const queries = createBatchJobQueries(deps);
  const processor = createChunkProcessor(deps);
  return { routes: batchJobRoutes(creation, queries), tasks: processor.tasks };
}
