-- Daily rollups: each row the merge of one day's hourly rollups (UTC days) of a metric, customer
-- reference and group, so a read of a month takes about 30 rows per customer and group instead
-- of about 720 (docs/usage.md, "Rollups"). The fold writes a day's row in the statement that
-- writes its hours, so every snapshot sees them agree. Empty here: the rollup format changed
-- (ROLLUP_FORMAT 3), so the next fold rebuilds every metric's rollups, hourly and daily, and
-- reads take the raw events until it has.
-- The columns are the hourly table's (LIKE copies names, types and NOT NULL), `hour` named `day`.
CREATE TABLE usage_rollups_daily (LIKE usage_rollups);
ALTER TABLE usage_rollups_daily RENAME COLUMN hour TO day;
ALTER TABLE usage_rollups_daily ADD PRIMARY KEY (tenant_id, metric_id, customer_ref, day, group_key);
ALTER TABLE usage_rollups_daily ADD FOREIGN KEY (tenant_id) REFERENCES tenants(id);
CREATE INDEX usage_rollups_daily_metric_day_idx ON usage_rollups_daily (tenant_id, metric_id, day);
