-- Features: what a plan, add-on or subscription entitles a customer to. BOOLEAN features are
-- on/off; METERED ones are bound to a billable metric and capped by their entitlement's limit.
CREATE TABLE features (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  code text NOT NULL,
  name text NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED', 'ARCHIVED')),
  feature_type text NOT NULL CHECK (feature_type IN ('BOOLEAN', 'METERED')),
  metric_id text,
  product_id text REFERENCES products(id),
  -- the feature-level (default) entitlement, the lowest priority; null when none
  default_entitlement_id text UNIQUE,
  default_entitlement_value jsonb,
  default_entitlement_created_at timestamptz,
  default_entitlement_updated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((feature_type = 'METERED') = (metric_id IS NOT NULL)),
  CHECK ((default_entitlement_id IS NULL) = (default_entitlement_value IS NULL)),
  FOREIGN KEY (tenant_id, metric_id) REFERENCES billable_metrics (tenant_id, id),
  UNIQUE (tenant_id, code),
  -- lets other tables reference (tenant_id, id) so a row can never point at another tenant's feature
  UNIQUE (tenant_id, id)
);
CREATE INDEX features_tenant_name_idx ON features (tenant_id, name);
