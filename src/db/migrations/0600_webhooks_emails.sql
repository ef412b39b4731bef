-- Outbound webhooks and customer e-mails (issue 8).

-- Where each outbox consumer has read up to. The relay locks its row while fanning out, so two
-- processes never fan the same event out twice; it only reads seqs that no open transaction can
-- still commit below (see modules/webhooks/relay.ts).
CREATE TABLE outbox_cursors (
  consumer text PRIMARY KEY,
  last_seq bigint NOT NULL DEFAULT 0
);
INSERT INTO outbox_cursors (consumer) VALUES ('webhooks'), ('emails');

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  url text NOT NULL,
  description text,
  -- NULL: every event kind
  event_types text[],
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('MANUAL', 'FAILING')),
  -- Signing needs the key itself (HMAC), so it cannot be stored as a hash.
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- first failure of the current run of failures; NULL after a success
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, created_at);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  -- the stable event id (webhook-id header and body `id`); oev_ for outbox events
  event_id text NOT NULL,
  event_type text NOT NULL,
  object_id text,
  -- outbox seq; orders the deliveries of one object to one endpoint
  event_seq bigint,
  -- EVENT: fan-out of an outbox event (ordered per object); REDELIVERY and TEST: by hand
  trigger text NOT NULL CHECK (trigger IN ('EVENT', 'REDELIVERY', 'TEST')),
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  created_at timestamptz NOT NULL,
  CHECK ((status = 'PENDING') = (next_attempt_at IS NOT NULL))
);
-- An event fans out to an endpoint at most once, whatever the relay does.
CREATE UNIQUE INDEX webhook_deliveries_event_key ON webhook_deliveries (tenant_id, endpoint_id, event_id) WHERE trigger = 'EVENT';
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (endpoint_id, object_id, event_seq) WHERE status = 'PENDING' AND trigger = 'EVENT';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenant_id, endpoint_id, created_at);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt_number integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  response_excerpt text,
  error text,
  succeeded boolean NOT NULL,
  UNIQUE (delivery_id, attempt_number)
);

CREATE TABLE email_messages (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  kind text NOT NULL CHECK (kind IN ('INVOICE', 'PAYMENT_RECEIPT', 'CREDIT_NOTE')),
  event_id text NOT NULL,
  object_id text,
  customer_id text,
  recipients text[] NOT NULL,
  sender_name text NOT NULL,
  subject text NOT NULL,
  -- the event data the message is rendered from
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'SENT', 'SKIPPED', 'FAILED')),
  skip_reason text CHECK (skip_reason IN ('EMAILS_DISABLED', 'NO_RECIPIENT')),
  attempt_count integer NOT NULL DEFAULT 0,
  last_error text,
  smtp_message_id text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz,
  UNIQUE (tenant_id, event_id, kind)
);
CREATE INDEX email_messages_tenant_idx ON email_messages (tenant_id, created_at);
