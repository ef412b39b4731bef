-- Payments (src/modules/payments, docs/payments.md): provider connections, provider customers and
-- saved payment methods, charge attempts, and the provider webhook events already processed.

-- A tenant's account at a payment provider. Secrets are sealed with the service secret
-- (AES-256-GCM, key derived from SECRET_KEY with HKDF, src/kernel/secret-box.ts); only a hint of
-- the secret key is kept in clear.
CREATE TABLE payment_provider_connections (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  provider text NOT NULL CHECK (provider IN ('stripe')),
  secret_key_sealed text NOT NULL,
  secret_key_hint text NOT NULL,
  webhook_secret_sealed text,
  status text NOT NULL CHECK (status IN ('UNVERIFIED', 'VERIFIED', 'INVALID')),
  last_error text,
  verified_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (tenant_id, provider)
);

-- The provider's customer object of one of our customers.
CREATE TABLE payment_customers (
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  provider text NOT NULL,
  provider_customer_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, customer_id, provider)
);

-- Whether finalized invoices of a customer are charged automatically, and with which method.
CREATE TABLE payment_customer_settings (
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  auto_charge boolean NOT NULL DEFAULT true,
  default_payment_method_id text,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, customer_id)
);

CREATE TABLE payment_methods (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  provider text NOT NULL,
  provider_method_id text NOT NULL,
  method_type text NOT NULL CHECK (method_type IN ('CARD')),
  card_brand text,
  card_last4 text,
  exp_month integer,
  exp_year integer,
  created_at timestamptz NOT NULL,
  detached_at timestamptz
);
CREATE INDEX payment_methods_customer_idx ON payment_methods (tenant_id, customer_id, created_at);

-- One charge attempt of an invoice. `idempotency_key` is derived from the id and sent with every
-- request of the attempt, so a retried or reconciled request never charges twice.
CREATE TABLE payment_attempts (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  customer_id text NOT NULL REFERENCES customers(id),
  payment_method_id text REFERENCES payment_methods(id),
  provider text NOT NULL,
  -- why the attempt exists; one FINALIZATION attempt per invoice
  occasion text NOT NULL CHECK (occasion IN ('FINALIZATION')),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'REQUIRES_ACTION')),
  idempotency_key text NOT NULL,
  provider_payment_id text,
  failure_code text,
  failure_message text,
  -- set before the provider is first asked: an attempt with it and no answer is reconciled
  requested_at timestamptz,
  settled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (tenant_id, invoice_id, occasion)
);
CREATE INDEX payment_attempts_open_idx ON payment_attempts (status, requested_at) WHERE status = 'PENDING';
CREATE INDEX payment_attempts_provider_idx ON payment_attempts (tenant_id, provider, provider_payment_id);

-- Provider webhook events already applied: each provider event id is processed once.
CREATE TABLE payment_webhook_events (
  tenant_id text NOT NULL REFERENCES tenants(id),
  provider text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  processed_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, provider, event_id)
);
