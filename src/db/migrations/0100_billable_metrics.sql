-- Billable metrics: how usage events of one code are aggregated into a billable quantity.
-- The metric `code` is the event code it reads; several metrics may read the same events (a
-- COUNT and a SUM of `api_call`), so it is not unique.
CREATE TABLE billable_metrics (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  product_family_id text NOT NULL REFERENCES product_families(id),
  product_id text REFERENCES products(id),
  name text NOT NULL,
  description text,
  code text NOT NULL,
  aggregation_type text NOT NULL CHECK (aggregation_type IN ('COUNT', 'LATEST', 'MAX', 'MIN', 'MEAN', 'SUM', 'COUNT_DISTINCT')),
  -- the event property aggregated; every aggregation but COUNT reads one
  aggregation_key text,
  unit_conversion_factor integer CHECK (unit_conversion_factor IS NULL OR unit_conversion_factor > 0),
  unit_conversion_rounding text CHECK (unit_conversion_rounding IN ('UP', 'DOWN', 'NEAREST', 'NEAREST_HALF', 'NEAREST_DECILE', 'NONE')),
  segmentation_matrix jsonb,
  usage_group_key text,
  created_at timestamptz NOT NULL,
  archived_at timestamptz,
  CHECK (aggregation_type = 'COUNT' OR aggregation_key IS NOT NULL),
  CHECK ((unit_conversion_factor IS NULL) = (unit_conversion_rounding IS NULL)),
  -- lets other tables reference (tenant_id, id) so a row can never point at another tenant's metric
  UNIQUE (tenant_id, id)
);
CREATE INDEX billable_metrics_tenant_code_idx ON billable_metrics (tenant_id, code);
CREATE INDEX billable_metrics_tenant_name_idx ON billable_metrics (tenant_id, name);
