-- The processes running job-queue workers, with a heartbeat (src/jobs/runtime.ts). graphile-worker
-- frees the jobs of a crashed worker only after 4 hours; a process whose heartbeat stopped is
-- taken for dead sooner, and its workers' jobs are unlocked for the live ones (forceUnlockWorkers).
CREATE TABLE job_workers (
  -- hostname:pid:random of one process; its queue workers are worker_id/1 .. worker_id/slots,
  -- the `locked_by` of the jobs they hold.
  worker_id text PRIMARY KEY,
  hostname text NOT NULL,
  pid integer NOT NULL,
  slots integer NOT NULL CHECK (slots > 0),
  started_at timestamptz NOT NULL DEFAULT now(),
  -- database time, so processes on hosts with skewed clocks are compared fairly
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
