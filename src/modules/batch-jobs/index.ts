// What the composition root uses from batch jobs (no other module depends on it).
export { createBatchJobsModule } from './module.js';
export type { BatchJobPorts, ImportCustomer, ImportEvent, IngestEvents, CreateCustomer, RecordBankPayment } from './ports.js';
export { PROCESS_CHUNK_TASK, MAX_CSV_BYTES } from './create-service.js';
export type { BatchJobCreation } from './create-service.js';
