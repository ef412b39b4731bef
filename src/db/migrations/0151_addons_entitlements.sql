-- Prices: how much a product costs in one currency and cadence. Add-ons are (product, price)
-- pairs; `pricing` is a fee in the plan-component wire shape (prices as decimal strings).
CREATE TABLE prices (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  product_id text NOT NULL REFERENCES products(id),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  fee_type text NOT NULL CHECK (fee_type IN ('RATE', 'SLOT', 'CAPACITY', 'USAGE', 'EXTRA_RECURRING', 'ONE_TIME')),
  fee jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (tenant_id, id)
);

CREATE TABLE add_ons (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL,
  description text,
  product_id text NOT NULL REFERENCES products(id),
  price_id text NOT NULL,
  self_serviceable boolean NOT NULL DEFAULT false,
  max_instances_per_subscription integer CHECK (max_instances_per_subscription IS NULL OR max_instances_per_subscription >= 1),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz,
  FOREIGN KEY (tenant_id, price_id) REFERENCES prices (tenant_id, id),
  UNIQUE (tenant_id, id)
);
CREATE INDEX add_ons_tenant_created_idx ON add_ons (tenant_id, created_at);

-- Add-ons offered with a plan version, with optional per-plan overrides; copied to new versions.
CREATE TABLE plan_version_add_ons (
  tenant_id text NOT NULL REFERENCES tenants(id),
  plan_version_id text NOT NULL,
  add_on_id text NOT NULL,
  price_id text,
  max_instances integer CHECK (max_instances IS NULL OR max_instances >= 1),
  self_serviceable boolean,
  PRIMARY KEY (plan_version_id, add_on_id),
  FOREIGN KEY (tenant_id, plan_version_id) REFERENCES plan_versions (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, add_on_id) REFERENCES add_ons (tenant_id, id),
  FOREIGN KEY (tenant_id, price_id) REFERENCES prices (tenant_id, id)
);

-- Entitlements granted by a plan version or an add-on (the feature-level default lives on the
-- feature). One entitlement per feature per owner.
CREATE TABLE catalog_entitlements (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  feature_id text NOT NULL,
  plan_version_id text,
  add_on_id text,
  value jsonb NOT NULL,
  -- the order the entitlements were given in, which is the order they are shown in
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((plan_version_id IS NULL) <> (add_on_id IS NULL)),
  FOREIGN KEY (tenant_id, feature_id) REFERENCES features (tenant_id, id),
  FOREIGN KEY (tenant_id, plan_version_id) REFERENCES plan_versions (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, add_on_id) REFERENCES add_ons (tenant_id, id) ON DELETE CASCADE,
  UNIQUE (plan_version_id, feature_id),
  UNIQUE (add_on_id, feature_id)
);
CREATE INDEX catalog_entitlements_feature_idx ON catalog_entitlements (tenant_id, feature_id);
