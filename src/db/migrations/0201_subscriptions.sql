-- Subscriptions: a customer on a plan version. The fees it was sold with are copied into
-- subscription_components / subscription_add_ons with effective dates, so later catalog edits
-- never change an existing subscription; plan changes, slot changes and add-on changes close
-- rows (effective_to) and open new ones (effective_from) instead of editing them.
CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  customer_id text NOT NULL REFERENCES customers(id),
  plan_id text NOT NULL,
  plan_version_id text NOT NULL,
  plan_name text NOT NULL,
  plan_version integer NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status text NOT NULL CHECK (status IN ('PENDING_ACTIVATION', 'TRIAL_ACTIVE', 'ACTIVE', 'CANCELLED', 'COMPLETED')),
  -- the status machine's next clock-driven move is due on this date (null: none)
  next_transition_on date,
  start_date date NOT NULL,
  -- exclusive: service and billing stop on this day
  end_date date,
  billing_start_date date NOT NULL,
  -- first day invoicing covers: billing_start_date, or the current period start with skip_past_invoices
  invoicing_start_date date NOT NULL,
  billing_day_anchor integer NOT NULL CHECK (billing_day_anchor BETWEEN 1 AND 31),
  period text NOT NULL CHECK (period IN ('MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL')),
  net_terms integer NOT NULL CHECK (net_terms >= 0),
  trial_duration_days integer CHECK (trial_duration_days IS NULL OR trial_duration_days >= 1),
  trial_is_free boolean NOT NULL DEFAULT false,
  trialing_plan_id text,
  -- exclusive end of the trial (start_date + trial days)
  trial_end_date date,
  skip_past_invoices boolean NOT NULL DEFAULT false,
  invoice_memo text,
  purchase_order text,
  auto_advance_invoices boolean NOT NULL DEFAULT true,
  charge_automatically boolean NOT NULL DEFAULT false,
  payment_methods_config jsonb,
  mrr_minor bigint NOT NULL DEFAULT 0,
  activated_at timestamptz,
  -- cancellation: requested_at + reason, effective on cancel_effective_date (exclusive end)
  cancel_requested_at timestamptz,
  cancel_effective_date date,
  cancellation_reason text,
  ended_at timestamptz,
  -- a plan change waiting for the period end: {plan_version_id, effective_date, ...}
  scheduled_plan_change jsonb,
  checkout_session_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (end_date IS NULL OR end_date > start_date),
  CHECK (billing_start_date >= start_date),
  CHECK ((trial_end_date IS NULL) = (trial_duration_days IS NULL)),
  UNIQUE (tenant_id, id)
);
CREATE INDEX subscriptions_tenant_created_idx ON subscriptions (tenant_id, created_at);
CREATE INDEX subscriptions_customer_idx ON subscriptions (tenant_id, customer_id);
CREATE INDEX subscriptions_due_idx ON subscriptions (next_transition_on) WHERE next_transition_on IS NOT NULL;
-- a checkout session creates at most one subscription, however often completion is retried
CREATE UNIQUE INDEX subscriptions_checkout_session_key ON subscriptions (tenant_id, checkout_session_id) WHERE checkout_session_id IS NOT NULL;

CREATE TABLE subscription_components (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  subscription_id text NOT NULL,
  price_component_id text,
  product_id text,
  name text NOT NULL,
  -- the fee in the reference's SubscriptionFee shape {type, ...}; prices as decimal strings
  fee jsonb NOT NULL,
  period text NOT NULL CHECK (period IN ('ONE_TIME', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL')),
  effective_from date NOT NULL,
  effective_to date,
  created_at timestamptz NOT NULL,
  CHECK (effective_to IS NULL OR effective_to >= effective_from),
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX subscription_components_sub_idx ON subscription_components (tenant_id, subscription_id, effective_from);

CREATE TABLE subscription_add_ons (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  subscription_id text NOT NULL,
  add_on_id text NOT NULL,
  product_id text,
  price_id text,
  name text NOT NULL,
  fee jsonb NOT NULL,
  period text NOT NULL CHECK (period IN ('ONE_TIME', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL')),
  quantity integer NOT NULL CHECK (quantity >= 1),
  effective_from date NOT NULL,
  effective_to date,
  created_at timestamptz NOT NULL,
  CHECK (effective_to IS NULL OR effective_to >= effective_from),
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX subscription_add_ons_sub_idx ON subscription_add_ons (tenant_id, subscription_id);

-- Coupons applied to a subscription, with the coupon as it was when applied.
CREATE TABLE subscription_coupons (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  subscription_id text NOT NULL,
  coupon_id text NOT NULL,
  coupon jsonb NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  applied_count integer NOT NULL DEFAULT 0,
  applied_amount text,
  last_applied_at timestamptz,
  created_at timestamptz NOT NULL,
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, id) ON DELETE CASCADE,
  UNIQUE (subscription_id, coupon_id)
);

-- Entitlement values set on one subscription: the highest priority.
CREATE TABLE subscription_entitlement_overrides (
  tenant_id text NOT NULL REFERENCES tenants(id),
  subscription_id text NOT NULL,
  feature_id text NOT NULL,
  value jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, feature_id),
  FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, id) ON DELETE CASCADE
);
