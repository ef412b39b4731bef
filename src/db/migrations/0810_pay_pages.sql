-- Hosted pay links of invoices (docs/payments.md, "Pages"). The token itself is never stored: it
-- is an HMAC of (tenant, invoice, nonce) under the service secret, so it can be shown again on
-- every read, and only its hash is looked up. Revoking a link sets revoked_at; the next read
-- issues a new one with a new nonce.
CREATE TABLE invoice_pay_links (
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  nonce text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  PRIMARY KEY (tenant_id, invoice_id, nonce)
);
-- at most one live link per invoice
CREATE UNIQUE INDEX invoice_pay_links_live_idx ON invoice_pay_links (tenant_id, invoice_id) WHERE revoked_at IS NULL;

-- A customer on the pay page may try several cards: PAY_PAGE attempts are not unique per
-- invoice; the FINALIZATION attempt stays one per invoice.
ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_occasion_check;
ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_occasion_check CHECK (occasion IN ('FINALIZATION', 'PAY_PAGE'));
ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_tenant_id_invoice_id_occasion_key;
CREATE UNIQUE INDEX payment_attempts_finalization_key ON payment_attempts (tenant_id, invoice_id, occasion) WHERE occasion = 'FINALIZATION';
