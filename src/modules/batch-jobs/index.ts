// What the composition root uses from batch jobs; invoices implements its bank-line port with these types.
export { createBatchJobsModule } from './module.js';
export type { BatchJobPorts, ImportCustomer, ImportEvent, IngestEvents, CreateCustomer, RecordBankPayment, ImportBankLine, BankLineResult } from './ports.js';
export { PROCESS_CHUNK_TASK, MAX_CSV_BYTES } from './create-service.js';
export type { BatchJobCreation } from './create-service.js';
