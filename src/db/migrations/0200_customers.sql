-- Customers. `alias` is the merchant's own id (or a former billing system's id) so usage
-- events can name the customer by it; unique per tenant.
CREATE TABLE customers (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL,
  alias text,
  billing_email text,
  invoicing_emails jsonb NOT NULL DEFAULT '[]',
  phone text,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  billing_address jsonb,
  shipping_address jsonb,
  vat_number text,
  is_tax_exempt boolean NOT NULL DEFAULT false,
  reverse_charge boolean NOT NULL DEFAULT false,
  custom_taxes jsonb NOT NULL DEFAULT '[]',
  custom_properties jsonb NOT NULL DEFAULT '{}',
  invoicing_entity_id text,
  connected_account_id text,
  -- Credit the customer holds, in minor units of `currency`; invoices consume it.
  balance_minor bigint NOT NULL DEFAULT 0 CHECK (balance_minor >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz,
  CHECK (alias IS NULL OR alias <> '')
);
CREATE UNIQUE INDEX customers_alias_key ON customers (tenant_id, alias) WHERE alias IS NOT NULL;
CREATE INDEX customers_tenant_created_idx ON customers (tenant_id, created_at);
CREATE INDEX customers_tenant_name_idx ON customers (tenant_id, lower(name));

-- Every balance movement, so the balance can be explained (top-ups, invoice consumption, credits).
CREATE TABLE customer_balance_transactions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
  balance_after_minor bigint NOT NULL CHECK (balance_after_minor >= 0),
  reason text NOT NULL,
  invoice_id text,
  note text,
  created_at timestamptz NOT NULL
);
CREATE INDEX customer_balance_transactions_customer_idx ON customer_balance_transactions (tenant_id, customer_id, created_at);
