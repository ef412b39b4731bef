-- Batch jobs: CSV imports of usage events and customers (docs/batch-jobs.md).

CREATE TABLE batch_jobs (
  tenant_id text NOT NULL REFERENCES tenants(id),
  id text NOT NULL,
  job_type text NOT NULL CHECK (job_type IN ('EVENT_CSV_IMPORT', 'CUSTOMER_CSV_IMPORT', 'SUBSCRIPTION_CSV_IMPORT', 'SUBSCRIPTION_PLAN_MIGRATION')),
  status text NOT NULL CHECK (status IN ('PENDING', 'CHUNKING', 'PROCESSING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED')),
  input_file_name text,
  -- hex SHA-256 of the uploaded file: finds an identical import (active: reused; completed: refused)
  file_sha256 text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}',
  total_items integer,
  processed_items integer NOT NULL DEFAULT 0,
  failed_items integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX batch_jobs_list_idx ON batch_jobs (tenant_id, created_at DESC, id DESC);
-- At most one active import of the same file per type: two concurrent uploads of one file
-- cannot both start (the second one finds and returns the first).
CREATE UNIQUE INDEX batch_jobs_active_file_key ON batch_jobs (tenant_id, job_type, file_sha256)
  WHERE status IN ('PENDING', 'CHUNKING', 'PROCESSING');

-- A chunk is the unit of processing and retry. Its rows are stored with it (JSON array of
-- {column: value} objects), so a retry reads exactly what the first attempt read.
CREATE TABLE batch_job_chunks (
  tenant_id text NOT NULL REFERENCES tenants(id),
  id text NOT NULL,
  batch_job_id text NOT NULL,
  chunk_index integer NOT NULL CHECK (chunk_index >= 0),
  -- item index of the chunk's first row (0-based over the file's data rows)
  first_item_index integer NOT NULL CHECK (first_item_index >= 0),
  items jsonb NOT NULL,
  item_count integer NOT NULL CHECK (item_count > 0),
  status text NOT NULL CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'SKIPPED')),
  attempts integer NOT NULL DEFAULT 0,
  processed_items integer NOT NULL DEFAULT 0,
  failed_items integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, batch_job_id, chunk_index),
  FOREIGN KEY (tenant_id, batch_job_id) REFERENCES batch_jobs (tenant_id, id) ON DELETE CASCADE
);

-- Per-item failures; a chunk's failures are replaced as a whole when the chunk finishes.
CREATE TABLE batch_job_failures (
  tenant_id text NOT NULL REFERENCES tenants(id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  batch_job_id text NOT NULL,
  chunk_id text NOT NULL,
  item_index integer NOT NULL,
  item_identifier text,
  reason text NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, batch_job_id, item_index),
  FOREIGN KEY (tenant_id, chunk_id) REFERENCES batch_job_chunks (tenant_id, id) ON DELETE CASCADE
);

-- Entities a job created, per item: a retried customer chunk skips the rows already created
-- instead of reporting their alias as a duplicate (or creating a second customer).
CREATE TABLE batch_job_entities (
  tenant_id text NOT NULL REFERENCES tenants(id),
  batch_job_id text NOT NULL,
  item_index integer NOT NULL,
  entity_id text NOT NULL,
  PRIMARY KEY (tenant_id, batch_job_id, item_index),
  FOREIGN KEY (tenant_id, batch_job_id) REFERENCES batch_jobs (tenant_id, id) ON DELETE CASCADE
);
