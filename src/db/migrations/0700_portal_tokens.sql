-- Customer portal access tokens (docs/portal.md). The token itself is never stored: only its
-- SHA-256 hash, so a database leak does not open any portal. Each token is bound to one
-- customer of one tenant, expires, and can be revoked.
CREATE TABLE portal_tokens (
  token_hash text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK (expires_at > created_at)
);
-- Revoking all of a customer's live tokens.
CREATE INDEX portal_tokens_customer_idx ON portal_tokens (tenant_id, customer_id) WHERE revoked_at IS NULL;
