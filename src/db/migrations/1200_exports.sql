-- Data export (docs/export.md): a tenant's export configuration, its runs and the watermark of
-- each dataset. A run and the watermarks it advances commit in one transaction, so a run that
-- crashed after writing its files is rewritten under the same names, never doubled.
CREATE TABLE export_configs (
  tenant_id text PRIMARY KEY REFERENCES tenants(id),
  enabled boolean NOT NULL,
  schedule text NOT NULL CHECK (schedule IN ('HOURLY', 'DAILY')),
  format text NOT NULL CHECK (format IN ('PARQUET', 'CSV')),
  destination_type text NOT NULL CHECK (destination_type IN ('FOLDER', 'S3')),
  folder_path text,
  s3_bucket text,
  s3_prefix text NOT NULL DEFAULT '',
  s3_region text,
  s3_endpoint text,
  s3_force_path_style boolean NOT NULL DEFAULT false,
  s3_access_key_id text,
  -- sealed with the service secret (src/kernel/secret-box.ts); never returned
  s3_secret_access_key_sealed text,
  s3_secret_access_key_hint text,
  -- when the schedule next creates a run (business clock); null while disabled
  next_run_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (destination_type <> 'FOLDER' OR folder_path IS NOT NULL),
  CHECK (destination_type <> 'S3' OR (s3_bucket IS NOT NULL AND s3_region IS NOT NULL AND s3_access_key_id IS NOT NULL AND s3_secret_access_key_sealed IS NOT NULL))
);
CREATE INDEX export_configs_due_idx ON export_configs (next_run_at) WHERE enabled;

CREATE TABLE export_runs (
  id text NOT NULL,
  tenant_id text NOT NULL REFERENCES tenants(id),
  status text NOT NULL CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
  trigger text NOT NULL CHECK (trigger IN ('MANUAL', 'SCHEDULED')),
  format text NOT NULL CHECK (format IN ('PARQUET', 'CSV')),
  -- per dataset: the window [after, up_to] fixed when the run was created; a retry reads the same one
  windows jsonb NOT NULL,
  -- where the files went at the last attempt (no secret), and the files with their row counts once done
  destination jsonb,
  files jsonb NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz,
  -- tenant_id leads every key (docs/architecture.md, "Keys of tenant tables")
  PRIMARY KEY (tenant_id, id)
);
-- At most one unfinished run per tenant: a failed run is retried (same windows, same file names) before a new one starts.
CREATE UNIQUE INDEX export_runs_open_key ON export_runs (tenant_id) WHERE status IN ('RUNNING', 'FAILED');
CREATE INDEX export_runs_tenant_idx ON export_runs (tenant_id, created_at DESC, id DESC);

CREATE TABLE export_watermarks (
  tenant_id text NOT NULL REFERENCES tenants(id),
  dataset text NOT NULL,
  -- everything up to this instant is in a succeeded run's files
  exported_up_to timestamptz NOT NULL,
  run_id text NOT NULL,
  PRIMARY KEY (tenant_id, dataset),
  FOREIGN KEY (tenant_id, run_id) REFERENCES export_runs (tenant_id, id)
);
