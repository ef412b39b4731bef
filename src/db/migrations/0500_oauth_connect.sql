-- OAuth 2.0 provider (standard connected accounts), express connected accounts and the
-- server-rendered sign-in pages. Every secret (client secrets, codes, tokens, session ids,
-- onboarding links) is stored only as a SHA-256 hash.

-- Browser sessions of merchant users. Not tenant data: a user spans organizations.
CREATE TABLE web_sessions (
  id_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  selected_organization_id text REFERENCES organizations(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);

-- OAuth apps belong to the platform's tenant that created them; the app id is the client id.
CREATE TABLE oauth_apps (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  secret_hash text NOT NULL UNIQUE,
  secret_hint text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX oauth_apps_tenant_idx ON oauth_apps (tenant_id, created_at);

-- A connection between a platform (tenant_id) and a merchant organization: `standard` through
-- OAuth consent, `express` created by the platform and onboarded by the merchant.
CREATE TABLE connected_accounts (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  type text NOT NULL CHECK (type IN ('standard', 'express')),
  status text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'SUSPENDED', 'REVOKED')),
  oauth_app_id text REFERENCES oauth_apps(id),
  organization_id text REFERENCES organizations(id),
  connected_tenant_id text REFERENCES tenants(id),
  connected_by_user_id text REFERENCES users(id),
  email text,
  organization_name text NOT NULL,
  country text CHECK (country ~ '^[A-Z]{2}$'),
  metadata jsonb NOT NULL DEFAULT '{}',
  return_url text,
  legal_name text,
  vat_number text,
  created_at timestamptz NOT NULL,
  activated_at timestamptz,
  revoked_at timestamptz,
  CHECK (type = 'express' OR oauth_app_id IS NOT NULL),
  CHECK (status IN ('PENDING', 'REVOKED') OR connected_tenant_id IS NOT NULL)
);
CREATE INDEX connected_accounts_tenant_idx ON connected_accounts (tenant_id, created_at);
-- One live standard connection per app and organization; consenting again reuses it.
CREATE UNIQUE INDEX connected_accounts_standard_key ON connected_accounts (tenant_id, oauth_app_id, organization_id)
  WHERE type = 'standard' AND status <> 'REVOKED';
CREATE INDEX connected_accounts_organization_idx ON connected_accounts (organization_id);

-- Single-use onboarding links of express accounts.
CREATE TABLE connected_account_links (
  token_hash text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  connected_account_id text NOT NULL REFERENCES connected_accounts(id),
  return_url text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  invalidated_at timestamptz
);
CREATE INDEX connected_account_links_account_idx ON connected_account_links (tenant_id, connected_account_id);

-- One grant per approved consent: its code and every token descended from it. Revoking the
-- grant (code replay, refresh reuse, disconnect, refresh-token revocation) kills them all.
CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  oauth_app_id text NOT NULL REFERENCES oauth_apps(id),
  connected_account_id text NOT NULL REFERENCES connected_accounts(id),
  user_id text NOT NULL REFERENCES users(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  connected_tenant_id text NOT NULL REFERENCES tenants(id),
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX oauth_grants_account_idx ON oauth_grants (tenant_id, connected_account_id);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  grant_id text NOT NULL REFERENCES oauth_grants(id),
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE oauth_tokens (
  token_hash text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  grant_id text NOT NULL REFERENCES oauth_grants(id),
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- refresh tokens: set when exchanged (rotation); a second use revokes the grant
  used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (tenant_id, grant_id);
