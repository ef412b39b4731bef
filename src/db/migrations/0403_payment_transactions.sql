-- Payments recorded against finalized invoices. Manual payments ("mark paid") are SETTLED
-- PAYMENT rows; a payment gateway adapter would write its own rows here with provider ids.
CREATE TABLE payment_transactions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('READY', 'PENDING', 'SETTLED', 'CANCELLED', 'FAILED', 'REFUNDED')),
  payment_type text NOT NULL CHECK (payment_type IN ('PAYMENT', 'REFUND')),
  provider_transaction_id text,
  error text,
  processed_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX payment_transactions_invoice_idx ON payment_transactions (tenant_id, invoice_id, created_at);
