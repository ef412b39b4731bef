-- Plans and their versions. A plan is the stable identity (name, family, type, status); each
-- version holds the priced configuration. Published versions are immutable: subscriptions keep
-- pointing at the version they were made with, and a replace creates a new version instead.
CREATE TABLE plans (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  product_family_id text NOT NULL REFERENCES product_families(id),
  name text NOT NULL,
  description text,
  plan_type text NOT NULL CHECK (plan_type IN ('STANDARD', 'FREE', 'CUSTOM')),
  status text NOT NULL CHECK (status IN ('DRAFT', 'ACTIVE', 'INACTIVE', 'ARCHIVED')),
  self_service_rank integer,
  -- the latest published version (what new subscriptions get) and the one pending draft
  active_version_id text,
  draft_version_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz,
  CHECK ((status = 'ARCHIVED') = (archived_at IS NOT NULL)),
  CHECK (active_version_id IS NOT NULL OR draft_version_id IS NOT NULL),
  UNIQUE (tenant_id, id)
);
CREATE INDEX plans_tenant_created_idx ON plans (tenant_id, created_at);
CREATE INDEX plans_tenant_name_idx ON plans (tenant_id, name);

CREATE TABLE plan_versions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  plan_id text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  is_draft boolean NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  net_terms integer NOT NULL DEFAULT 0 CHECK (net_terms >= 0),
  billing_cycles integer CHECK (billing_cycles IS NULL OR billing_cycles >= 1),
  period_start_day integer CHECK (period_start_day IS NULL OR period_start_day BETWEEN 1 AND 31),
  tax_inclusive boolean NOT NULL DEFAULT false,
  trial_duration_days integer CHECK (trial_duration_days IS NULL OR trial_duration_days >= 0),
  trial_is_free boolean NOT NULL DEFAULT false,
  trialing_plan_id text,
  -- {amount: decimal string, scope: object}; the invoice floor of each billing period
  minimum_commitment jsonb,
  created_at timestamptz NOT NULL,
  published_at timestamptz,
  CHECK (is_draft = (published_at IS NULL)),
  CHECK (trialing_plan_id IS NULL OR trial_duration_days IS NOT NULL),
  FOREIGN KEY (tenant_id, plan_id) REFERENCES plans (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, trialing_plan_id) REFERENCES plans (tenant_id, id),
  UNIQUE (plan_id, version),
  UNIQUE (tenant_id, id)
);
-- at most one draft per plan
CREATE UNIQUE INDEX plan_versions_one_draft_idx ON plan_versions (plan_id) WHERE is_draft;

ALTER TABLE plans
  ADD FOREIGN KEY (tenant_id, active_version_id) REFERENCES plan_versions (tenant_id, id) DEFERRABLE INITIALLY DEFERRED,
  ADD FOREIGN KEY (tenant_id, draft_version_id) REFERENCES plan_versions (tenant_id, id) DEFERRABLE INITIALLY DEFERRED;

-- Priced components of a version. `fee` is the validated wire shape (prices as decimal strings).
CREATE TABLE price_components (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  plan_version_id text NOT NULL,
  position integer NOT NULL,
  name text NOT NULL,
  product_id text NOT NULL REFERENCES products(id),
  fee_type text NOT NULL CHECK (fee_type IN ('RATE', 'SLOT', 'CAPACITY', 'USAGE', 'EXTRA_RECURRING', 'ONE_TIME')),
  fee jsonb NOT NULL,
  metric_id text,
  CHECK ((fee_type IN ('CAPACITY', 'USAGE')) = (metric_id IS NOT NULL)),
  FOREIGN KEY (tenant_id, plan_version_id) REFERENCES plan_versions (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, metric_id) REFERENCES billable_metrics (tenant_id, id),
  UNIQUE (plan_version_id, position),
  UNIQUE (tenant_id, id)
);
