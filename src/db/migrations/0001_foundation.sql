-- Accounts: organizations own tenants; users are members of organizations.
CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organization_members (
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  role text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE tenants (
  id text PRIMARY KEY,
  -- a tenant's own id doubles as its tenant_id so the tenant-scope helper applies to it too
  tenant_id text GENERATED ALWAYS AS (id) STORED,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  disable_emails boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tenants_organization_idx ON tenants (organization_id);

-- API keys: only an HMAC-SHA-256 of the secret is stored; `hint` is safe to show.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL,
  hint text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);

-- Idempotency-Key records (Stripe semantics). The first request inserts the row and holds it
-- while running; the stored response is replayed for the same key and body.
CREATE TABLE idempotency_keys (
  tenant_id text NOT NULL REFERENCES tenants(id),
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body text,
  response_content_type text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- Transactional outbox: a state change and its event commit together; consumers (webhooks,
-- e-mails, PDFs, payments) read it in `seq` order.
CREATE TABLE outbox_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  tenant_id text NOT NULL REFERENCES tenants(id),
  event_type text NOT NULL,
  object_id text,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX outbox_events_tenant_idx ON outbox_events (tenant_id, seq);

-- Catalog, first part.
CREATE TABLE product_families (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL,
  alias text,
  created_at timestamptz NOT NULL,
  archived_at timestamptz
);
CREATE INDEX product_families_tenant_idx ON product_families (tenant_id, created_at);
CREATE UNIQUE INDEX product_families_alias_key ON product_families (tenant_id, alias) WHERE alias IS NOT NULL;

CREATE TABLE products (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  product_family_id text NOT NULL REFERENCES product_families(id),
  name text NOT NULL,
  description text,
  catalog boolean NOT NULL DEFAULT true,
  fee_type text NOT NULL CHECK (fee_type IN ('RATE', 'SLOT', 'CAPACITY', 'USAGE', 'EXTRA_RECURRING', 'ONE_TIME')),
  fee_structure jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  archived_at timestamptz
);
CREATE INDEX products_tenant_name_idx ON products (tenant_id, name);
CREATE INDEX products_tenant_family_idx ON products (tenant_id, product_family_id);
