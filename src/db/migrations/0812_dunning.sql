-- Dunning and refunds (src/modules/payments, docs/payments.md).

-- A failed automatic charge is tried again: RETRY attempts, numbered 1.. in the order of the
-- schedule. Builds on 0810_pay_pages: the FINALIZATION attempt stays one per invoice (its partial
-- unique index), PAY_PAGE attempts are not unique, and each retry number has one attempt.
-- retry_number is 0 for the other occasions.
ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_occasion_check;
ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_occasion_check CHECK (occasion IN ('FINALIZATION', 'PAY_PAGE', 'RETRY'));
ALTER TABLE payment_attempts ADD COLUMN retry_number integer NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX payment_attempts_retry_key ON payment_attempts (tenant_id, invoice_id, retry_number) WHERE occasion = 'RETRY';

-- A tenant's dunning schedule; no row: the default (retries 3, 5 and 7 days after the failure, then nothing).
CREATE TABLE payment_dunning_settings (
  tenant_id text PRIMARY KEY REFERENCES tenants(id),
  retry_days integer[] NOT NULL,
  final_action text NOT NULL CHECK (final_action IN ('MARK_UNCOLLECTIBLE', 'CANCEL_SUBSCRIPTION', 'NONE')),
  updated_at timestamptz NOT NULL
);

-- The dunning of one invoice, from its first failed automatic charge. The schedule is copied at
-- the start, so a later settings change applies to the next failures only.
CREATE TABLE payment_dunnings (
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  customer_id text NOT NULL REFERENCES customers(id),
  subscription_id text,
  -- ACTIVE: retries ahead; EXHAUSTED: the final action was taken, the invoice is still owed;
  -- RECOVERED: paid; STOPPED: voided, written off or cancelled by other means
  status text NOT NULL CHECK (status IN ('ACTIVE', 'EXHAUSTED', 'RECOVERED', 'STOPPED')),
  failed_at timestamptz NOT NULL,
  retry_days integer[] NOT NULL,
  final_action text NOT NULL,
  retries_done integer NOT NULL DEFAULT 0,
  -- the next retry is due then (null: none ahead, or one is running)
  next_retry_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, invoice_id)
);
CREATE INDEX payment_dunnings_due_idx ON payment_dunnings (next_retry_at) WHERE status = 'ACTIVE' AND next_retry_at IS NOT NULL;

-- The subscription shows PAST_DUE while it has an overdue invoice (docs/payments.md).
ALTER TABLE subscriptions ADD COLUMN past_due_since timestamptz;

-- The e-mail telling the customer a payment failed, with a pay link.
ALTER TABLE email_messages DROP CONSTRAINT email_messages_kind_check;
ALTER TABLE email_messages ADD CONSTRAINT email_messages_kind_check CHECK (kind IN ('INVOICE', 'PAYMENT_RECEIPT', 'CREDIT_NOTE', 'PAYMENT_FAILED'));
