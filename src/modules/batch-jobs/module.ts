// The batch-jobs module assembled (src/module.ts): CSV imports, processed in chunks by the job queue.
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import type { Module } from '../../module.js';
import { createBatchJobCreation } from './create-service.js';
import type { BatchJobPorts } from './ports.js';
import { createChunkProcessor } from './processor.js';
import { createBatchJobQueries } from './query-service.js';
import { batchJobRoutes } from './routes.js';

/** `ports` are usage ingestion and customer creation (later modules), passed in by the composition root. */
export function createBatchJobsModule(deps: { pool: Pool; clock: Clock; ports: BatchJobPorts }): Module {
  const creation = createBatchJobCreation(deps);
  const queries = createBatchJobQueries(deps);
  const processor = createChunkProcessor(deps);
  return { routes: batchJobRoutes(creation, queries), tasks: processor.tasks, api: {} };
}
