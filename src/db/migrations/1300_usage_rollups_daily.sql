-- Daily rollups: each row the merge of one day's hourly rollups (UTC days) of a metric, customer
-- reference and group, so a read of a month takes about 30 rows per customer and group instead
-- of about 720 (docs/usage.md, "Rollups"). The fold writes a day's row in the statement that
-- writes its hours, so every snapshot sees them agree. Empty here: the rollup format changed
-- (ROLLUP_FORMAT 3), so the next fold rebuilds every metric's rollups, hourly and daily, and
-- reads take the raw events until it has.
CREATE TABLE usage_rollups_daily (
  tenant_id text NOT NULL REFERENCES tenants(id),
  metric_id text NOT NULL,
  customer_ref text NOT NULL,
  day timestamptz NOT NULL,
  group_key text NOT NULL,
  dimensions jsonb NOT NULL,
  event_count bigint NOT NULL,
  value_sum numeric NOT NULL,
  value_min numeric,
  value_max numeric,
  latest_ts timestamptz,
  latest_event_id text,
  latest_value numeric,
  PRIMARY KEY (tenant_id, metric_id, customer_ref, day, group_key)
);
CREATE INDEX usage_rollups_daily_metric_day_idx ON usage_rollups_daily (tenant_id, metric_id, day);
