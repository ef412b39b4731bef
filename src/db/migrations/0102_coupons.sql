-- Coupons: a percentage or a fixed amount off a subscription's invoices.
CREATE TABLE coupons (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  code text NOT NULL,
  description text,
  discount_type text NOT NULL CHECK (discount_type IN ('PERCENTAGE', 'FIXED')),
  -- PERCENTAGE: whole percent (10 = 10 %); FIXED: major units of `discount_currency`
  discount_percentage numeric CHECK (discount_percentage > 0 AND discount_percentage <= 100),
  discount_amount numeric CHECK (discount_amount > 0),
  discount_currency text CHECK (discount_currency ~ '^[A-Z]{3}$'),
  expires_at timestamptz,
  -- how many subscriptions may redeem it; null = unlimited
  redemption_limit integer CHECK (redemption_limit > 0),
  -- how many invoices of a subscription it applies to; null = forever
  recurring_value integer CHECK (recurring_value > 0),
  reusable boolean NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  archived_at timestamptz,
  redemption_count integer NOT NULL DEFAULT 0 CHECK (redemption_count >= 0),
  last_redemption_at timestamptz,
  plan_ids text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((discount_type = 'PERCENTAGE') = (discount_percentage IS NOT NULL)),
  CHECK ((discount_type = 'FIXED') = (discount_amount IS NOT NULL AND discount_currency IS NOT NULL)),
  -- the limit is enforced by the database too, so concurrent redemptions cannot overshoot it
  CHECK (redemption_limit IS NULL OR redemption_count <= redemption_limit),
  UNIQUE (tenant_id, id)
);
-- codes are typed by people: unique per tenant regardless of case
CREATE UNIQUE INDEX coupons_tenant_code_key ON coupons (tenant_id, lower(code));
CREATE INDEX coupons_tenant_created_idx ON coupons (tenant_id, created_at);

-- One row per redemption (a coupon attached to a subscription); `reusable = false` coupons are
-- checked against it so a customer redeems them once.
CREATE TABLE coupon_redemptions (
  seq bigserial PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  coupon_id text NOT NULL,
  customer_id text NOT NULL,
  subscription_id text,
  redeemed_at timestamptz NOT NULL,
  FOREIGN KEY (tenant_id, coupon_id) REFERENCES coupons (tenant_id, id)
);
CREATE INDEX coupon_redemptions_customer_idx ON coupon_redemptions (tenant_id, coupon_id, customer_id);
