-- Checkout sessions: a priced offer of one plan version to one customer. Completing it creates the
-- subscription (subscriptions.checkout_session_id, unique per tenant, so at most once).
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  plan_version_id text NOT NULL,
  checkout_type text NOT NULL DEFAULT 'SELF_SERVE' CHECK (checkout_type IN ('SELF_SERVE', 'SUBSCRIPTION_ACTIVATION', 'PLAN_CHANGE', 'ADDON_PURCHASE')),
  status text NOT NULL CHECK (status IN ('CREATED', 'AWAITING_PAYMENT', 'COMPLETED', 'EXPIRED', 'CANCELLED')),
  -- the subscription parameters as requested (start, anchor, trial, add-ons, components, memo...)
  subscription_params jsonb NOT NULL,
  start_date date,
  billing_start_date date,
  billing_day_anchor integer CHECK (billing_day_anchor BETWEEN 1 AND 31),
  net_terms integer CHECK (net_terms >= 0),
  trial_duration_days integer CHECK (trial_duration_days >= 0),
  coupon_code text,
  coupon_ids jsonb NOT NULL DEFAULT '[]',
  success_url text,
  cancel_url text,
  payment_methods_config jsonb,
  metadata jsonb,
  -- sha256 of the priced subscription the customer was shown; completion refuses another price
  price_fingerprint text NOT NULL,
  payment_reference text,
  expires_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  subscription_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'COMPLETED') = (subscription_id IS NOT NULL)),
  CHECK ((status = 'COMPLETED') = (completed_at IS NOT NULL)),
  CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL)),
  UNIQUE (tenant_id, id),
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, id)
);
CREATE INDEX checkout_sessions_tenant_created_idx ON checkout_sessions (tenant_id, created_at DESC);
CREATE INDEX checkout_sessions_customer_idx ON checkout_sessions (tenant_id, customer_id);
-- the expiry sweep: open sessions with a deadline
CREATE INDEX checkout_sessions_expiry_idx ON checkout_sessions (tenant_id, expires_at) WHERE status = 'CREATED' AND expires_at IS NOT NULL;
