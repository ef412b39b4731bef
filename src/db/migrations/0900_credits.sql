-- Prepaid credits (docs/credits-and-alerts.md, "Prepaid credits"): grants, their append-only
-- ledger, and each customer's automatic top-up. The balance is always a sum over the ledger.

CREATE TABLE credit_grants (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  name text NOT NULL,
  -- the customer's currency; the grant's value in it, rounded once when granted
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  -- a grant in a custom credit unit: how many units, at `unit_rate` currency per unit (all three or none)
  unit_name text,
  unit_amount numeric,
  unit_rate numeric,
  grant_type text NOT NULL CHECK (grant_type IN ('PAID', 'PROMOTIONAL')),
  priority int NOT NULL CHECK (priority BETWEEN 1 AND 1000),
  effective_at timestamptz NOT NULL,
  expires_at timestamptz CHECK (expires_at IS NULL OR expires_at > effective_at),
  applies_to text NOT NULL CHECK (applies_to IN ('ALL', 'USAGE', 'METRICS')),
  metric_ids text[] NOT NULL DEFAULT '{}',
  -- PENDING_PAYMENT: a paid grant whose invoice is not paid yet (no ledger entry yet)
  status text NOT NULL CHECK (status IN ('PENDING_PAYMENT', 'ACTIVE', 'VOID')),
  source text NOT NULL CHECK (source IN ('API', 'AUTO_TOP_UP')),
  -- the invoice that sells a paid grant
  invoice_id text,
  -- automatic top-ups: the ledger entry whose balance fired it, so a replayed trigger finds its grant
  trigger_key text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  voided_at timestamptz,
  CHECK ((unit_name IS NULL) = (unit_amount IS NULL) AND (unit_amount IS NULL) = (unit_rate IS NULL)),
  CHECK (grant_type = 'PAID' OR invoice_id IS NULL)
);
CREATE INDEX credit_grants_customer_idx ON credit_grants (tenant_id, customer_id, created_at, id);
CREATE UNIQUE INDEX credit_grants_invoice_key ON credit_grants (tenant_id, invoice_id) WHERE invoice_id IS NOT NULL;
CREATE UNIQUE INDEX credit_grants_trigger_key ON credit_grants (tenant_id, customer_id, trigger_key) WHERE trigger_key IS NOT NULL;
-- at most one automatic top-up waiting for payment per customer
CREATE UNIQUE INDEX credit_grants_one_pending_top_up ON credit_grants (tenant_id, customer_id) WHERE source = 'AUTO_TOP_UP' AND status = 'PENDING_PAYMENT';

CREATE TABLE credit_ledger_entries (
  -- append order; also the trigger sequence of automatic top-ups
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  grant_id text NOT NULL REFERENCES credit_grants(id),
  entry_type text NOT NULL CHECK (entry_type IN ('GRANT', 'CONSUMPTION', 'EXPIRY', 'VOID', 'REFUND')),
  -- signed, minor units of `currency`: GRANT and REFUND add, the others take away
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
  currency text NOT NULL,
  invoice_id text,
  invoice_line_id text,
  -- when the entry counts in the balance (a grant's effective date, an expiry's instant)
  effective_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  CHECK ((entry_type IN ('GRANT', 'REFUND')) = (amount_minor > 0))
);
CREATE INDEX credit_ledger_customer_idx ON credit_ledger_entries (tenant_id, customer_id, seq);
CREATE INDEX credit_ledger_grant_idx ON credit_ledger_entries (tenant_id, grant_id);
CREATE INDEX credit_ledger_invoice_idx ON credit_ledger_entries (tenant_id, invoice_id) WHERE invoice_id IS NOT NULL;
-- a grant is credited once
CREATE UNIQUE INDEX credit_ledger_one_grant_entry ON credit_ledger_entries (tenant_id, grant_id) WHERE entry_type = 'GRANT';


-- Append-only: entries are never changed. (Deleting stays possible for a test clock's deletion.)
CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger_entries is append-only';
END $$;
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE ON credit_ledger_entries FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only();

CREATE TABLE credit_top_up_settings (
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  enabled boolean NOT NULL,
  -- below this balance (minor units) a top-up is bought
  threshold_minor bigint NOT NULL CHECK (threshold_minor >= 0),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  priority int NOT NULL CHECK (priority BETWEEN 1 AND 1000),
  expires_after_days int CHECK (expires_after_days IS NULL OR expires_after_days BETWEEN 1 AND 3650),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, customer_id)
);

-- What prepaid credits paid of an invoice (after tax), beside the cash balance's applied_credits.
ALTER TABLE invoices ADD COLUMN prepaid_credits_minor bigint NOT NULL DEFAULT 0 CHECK (prepaid_credits_minor >= 0);
ALTER TABLE invoices ADD COLUMN prepaid_credits jsonb NOT NULL DEFAULT '[]';
