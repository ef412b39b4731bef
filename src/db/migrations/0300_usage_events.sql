-- Usage metering storage. See docs/usage.md "Storage design" for the reasoning.

-- Dedup ledger: one row per (tenant, event id), whatever the event's timestamp, so the unique
-- key holds across all monthly partitions of usage_events (a unique index on a partitioned
-- table must contain the partition key, which would only dedupe same-id-same-timestamp).
-- Written in the same statement as the event row: an id is seen iff its event is stored.
-- No foreign key to tenants on the two per-event tables: each insert would take a KEY SHARE
-- lock on the one tenant row, and concurrent batches would then fight over multixacts. Rows
-- are only written by the ingestion service for an authenticated tenant.
CREATE TABLE usage_event_ids (
  tenant_id text NOT NULL,
  event_id text NOT NULL,
  -- sha-256 of the canonical payload (code, customer, timestamp, properties), to tell a retry
  -- (same payload: no-op) from a different event reusing the id (reported).
  payload_hash bytea NOT NULL,
  PRIMARY KEY (tenant_id, event_id)
);

-- Raw events, partitioned by month of the event timestamp. `customer_ref` is the customer id
-- when the customer was known at ingestion, else the alias it was sent with (migrations);
-- queries match both the customer's id and its alias. `xid` is the writing transaction: rollups
-- are built up to a transaction watermark and queries add the raw rows above it.
CREATE TABLE usage_events (
  tenant_id text NOT NULL,
  event_id text NOT NULL,
  code text NOT NULL,
  customer_ref text NOT NULL,
  ts timestamptz NOT NULL,
  properties jsonb NOT NULL DEFAULT '{}',
  ingested_at timestamptz NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
) PARTITION BY RANGE (ts);

-- customer-period-code queries (edges of a period, rebuilds, the bench's raw comparison)
CREATE INDEX usage_events_customer_code_ts_idx ON usage_events (tenant_id, customer_ref, code, ts);
-- the rollup worker and the query tail read "everything written since the watermark"
CREATE INDEX usage_events_tenant_xid_idx ON usage_events (tenant_id, xid);

-- Creates the month partition holding `at` if missing; safe to call concurrently.
CREATE FUNCTION usage_events_ensure_partition(at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month_start timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  name text := 'usage_events_p' || to_char(month_start AT TIME ZONE 'UTC', 'YYYYMM');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock(727300);
  IF to_regclass(name) IS NOT NULL THEN RETURN; END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF usage_events FOR VALUES FROM (%L) TO (%L)',
    name, month_start, month_start + interval '1 month');
END $$;

-- Hourly pre-aggregation per metric, customer reference and group (JSON array of the metric's
-- group-by values). Exact and mergeable: count, sum, min, max, and the latest value with its
-- timestamp and event id (ties on timestamp go to the greater event id).
CREATE TABLE usage_rollups (
  tenant_id text NOT NULL REFERENCES tenants(id),
  metric_id text NOT NULL,
  customer_ref text NOT NULL,
  hour timestamptz NOT NULL,
  group_key text NOT NULL,
  dimensions jsonb NOT NULL,
  event_count bigint NOT NULL,
  value_sum numeric NOT NULL,
  value_min numeric,
  value_max numeric,
  latest_ts timestamptz,
  latest_event_id text,
  latest_value numeric,
  PRIMARY KEY (tenant_id, metric_id, customer_ref, hour, group_key)
);
CREATE INDEX usage_rollups_metric_hour_idx ON usage_rollups (tenant_id, metric_id, hour);

-- COUNT_DISTINCT needs the values themselves: one row per value seen per hour and group.
CREATE TABLE usage_rollup_distinct (
  tenant_id text NOT NULL REFERENCES tenants(id),
  metric_id text NOT NULL,
  customer_ref text NOT NULL,
  hour timestamptz NOT NULL,
  group_key text NOT NULL,
  dimensions jsonb NOT NULL,
  distinct_value text NOT NULL,
  PRIMARY KEY (tenant_id, metric_id, customer_ref, hour, group_key, distinct_value)
);

-- Per metric: the definition the rollups were built with and the transaction watermark they
-- cover (every transaction below it has finished and its events are in the rollups).
CREATE TABLE usage_rollup_state (
  tenant_id text NOT NULL REFERENCES tenants(id),
  metric_id text NOT NULL,
  definition_hash text NOT NULL,
  watermark xid8 NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, metric_id)
);
