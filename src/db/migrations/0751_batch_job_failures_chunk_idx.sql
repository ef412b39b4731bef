-- A chunk's failures are cleared at each attempt (and cascade-deleted with the chunk) by
-- chunk_id; without this index each of those deletes scanned all of the tenant's failures.
CREATE INDEX batch_job_failures_chunk_idx ON batch_job_failures (tenant_id, chunk_id);
