-- Batch jobs that match bank lines to invoices (docs/batch-jobs.md, "Bank payment CSV"): a new job
-- type, and how many rows recorded a payment (`processed_items` also counts lines recorded before).
ALTER TABLE batch_jobs DROP CONSTRAINT batch_jobs_job_type_check;
ALTER TABLE batch_jobs ADD CONSTRAINT batch_jobs_job_type_check
  CHECK (job_type IN ('EVENT_CSV_IMPORT', 'CUSTOMER_CSV_IMPORT', 'SUBSCRIPTION_CSV_IMPORT', 'SUBSCRIPTION_PLAN_MIGRATION', 'BANK_PAYMENT_CSV_IMPORT'));
ALTER TABLE batch_jobs ADD COLUMN matched_items integer NOT NULL DEFAULT 0;
ALTER TABLE batch_job_chunks ADD COLUMN matched_items integer NOT NULL DEFAULT 0;
