-- Hosted checkout pages (docs/payments.md, "Hosted checkout").

-- The page's token is never stored: it is an HMAC of (tenant, session, nonce) under the service
-- secret, shown again on every read of the session; only its hash is looked up.
ALTER TABLE checkout_sessions ADD COLUMN page_nonce text;
ALTER TABLE checkout_sessions ADD COLUMN page_token_hash text UNIQUE;

-- The first payment of a checkout is charged before its subscription and invoice exist (a decline
-- leaves neither behind): a CHECKOUT attempt names its session, and gets its invoice once the
-- subscription's first invoice is finalized and the payment recorded on it.
ALTER TABLE payment_attempts ALTER COLUMN invoice_id DROP NOT NULL;
ALTER TABLE payment_attempts ADD COLUMN checkout_session_id text;
ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_occasion_check;
ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_occasion_check CHECK (occasion IN ('FINALIZATION', 'PAY_PAGE', 'RETRY', 'CHECKOUT'));
ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_checkout_check
  CHECK ((occasion = 'CHECKOUT') = (checkout_session_id IS NOT NULL) AND (invoice_id IS NOT NULL OR occasion = 'CHECKOUT'));
CREATE INDEX payment_attempts_checkout_idx ON payment_attempts (tenant_id, checkout_session_id) WHERE checkout_session_id IS NOT NULL;

-- Stripe Elements needs the account's publishable key in the customer's browser; it is public.
ALTER TABLE payment_provider_connections ADD COLUMN publishable_key text;
