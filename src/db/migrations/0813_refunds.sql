-- Refunds through the payment provider, from REFUND credit notes (docs/payments.md, "Refunds").

-- Where the money of a finalized REFUND credit note is (credit-notes owns the column, payments moves it).
ALTER TABLE credit_notes ADD COLUMN refund_status text CHECK (refund_status IN ('PENDING', 'REFUNDED', 'FAILED', 'MANUAL'));

-- One provider refund of one payment attempt for one credit note. `idempotency_key` is derived
-- from the id and sent with every request, and the unique key stops a replayed event from asking twice.
CREATE TABLE payment_refunds (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  credit_note_id text NOT NULL,
  attempt_id text NOT NULL REFERENCES payment_attempts(id),
  provider text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  idempotency_key text NOT NULL,
  provider_refund_id text,
  requested_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (tenant_id, credit_note_id, attempt_id)
);
