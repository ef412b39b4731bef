-- Usage alerts (docs/credits-and-alerts.md, "Usage alerts"), owned by the alerts module.
-- An alert watches one value of a customer (or of one of its subscriptions) against thresholds.
CREATE TABLE alerts (
  tenant_id text NOT NULL REFERENCES tenants(id),
  id text PRIMARY KEY,
  name text NOT NULL,
  -- USAGE_UNITS (a metric's usage in the current period), SPEND (usage charges in the current
  -- period) or CREDIT_BALANCE (the projected credit balance)
  kind text NOT NULL CHECK (kind IN ('USAGE_UNITS', 'SPEND', 'CREDIT_BALANCE')),
  customer_id text NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  subscription_id text,
  metric_id text,
  -- the metric's code, what ingested events carry: the in-memory index of active alerts is keyed by it
  metric_code text,
  thresholds numeric[] NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'ARCHIVED')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((kind = 'USAGE_UNITS') = (metric_id IS NOT NULL))
);
CREATE INDEX alerts_tenant_status ON alerts (tenant_id, status, id);
CREATE INDEX alerts_customer ON alerts (tenant_id, customer_id);

-- The state of one threshold of one alert. A crossing is a conditional UPDATE of this row
-- (triggered false -> true), so two evaluations racing give one transition and one event.
CREATE TABLE alert_threshold_states (
  tenant_id text NOT NULL,
  alert_id text NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  threshold numeric NOT NULL,
  triggered boolean NOT NULL DEFAULT false,
  -- the period the trigger happened in (null for CREDIT_BALANCE, which has no period)
  period_start timestamptz,
  period_end timestamptz,
  last_value numeric,
  changed_at timestamptz,
  PRIMARY KEY (alert_id, threshold)
);
-- the period-boundary job looks up triggered thresholds whose period has ended
CREATE INDEX alert_threshold_states_due ON alert_threshold_states (period_end) WHERE triggered;

-- History: one row per transition, written with the state change and its outbox event.
CREATE TABLE alert_history (
  tenant_id text NOT NULL,
  id bigserial PRIMARY KEY,
  alert_id text NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  threshold numeric NOT NULL,
  transition text NOT NULL CHECK (transition IN ('TRIGGERED', 'RESOLVED')),
  value numeric,
  period_start timestamptz,
  period_end timestamptz,
  reason text NOT NULL,
  event_id text NOT NULL,
  occurred_at timestamptz NOT NULL
);
CREATE INDEX alert_history_alert ON alert_history (tenant_id, alert_id, id);

-- Customer-level entitlement overrides (owned by entitlements): the highest priority of a
-- customer's effective entitlements, above subscription overrides, add-ons and plan versions.
CREATE TABLE customer_entitlement_overrides (
  tenant_id text NOT NULL REFERENCES tenants(id),
  id text NOT NULL UNIQUE,
  customer_id text NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  feature_id text NOT NULL,
  value jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (customer_id, feature_id)
);
