-- No accepted event left unbilled (docs/usage.md, "Late usage" and "Events before their customer").

-- Usage periods an invoice has billed, recorded by invoicing (through the usage module) in the
-- transaction that finalizes the invoice. `billed_snapshot` is the snapshot the billed figures were
-- read in: an event of the period that it does not show was not billed. The rollup fold flags such
-- events (`late_since`), and invoicing bills the difference on the next invoice, then records the
-- period again with its new snapshot. `owner_id` (a subscription), `window_key` (a component and
-- its period) and `billed` (what was priced) are the biller's and opaque to usage.
CREATE TABLE usage_billed_periods (
  tenant_id text NOT NULL REFERENCES tenants(id),
  owner_id text NOT NULL,
  window_key text NOT NULL,
  customer_id text COLLATE "C" NOT NULL,
  code text COLLATE "C" NOT NULL,
  metric_id text NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  billed_snapshot pg_snapshot NOT NULL,
  billed jsonb NOT NULL,
  late_since timestamptz,
  billed_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, owner_id, window_key),
  CHECK (starts_at < ends_at)
);
-- is this event (customer, code, time) inside a billed period: ingestion and the fold
CREATE INDEX usage_billed_periods_customer_idx ON usage_billed_periods (tenant_id, customer_id, code, starts_at);
-- the latest billed end of a tenant: events after it (all real-time ones) skip the look-up above
CREATE INDEX usage_billed_periods_end_idx ON usage_billed_periods (tenant_id, ends_at);
-- the periods with late events of some subscriptions (each billing batch asks)
CREATE INDEX usage_billed_periods_late_idx ON usage_billed_periods (tenant_id, owner_id) WHERE late_since IS NOT NULL;

-- Customer references (aliases) events were stored under while no customer had them, with how
-- many events: what GET /api/v1/events/unresolved-customers lists (the ones no customer has taken
-- since). Written by the ingest statement only for batches that hold such events; like the
-- per-event tables, no foreign key to tenants (each write would share-lock the tenant row).
CREATE TABLE usage_unresolved_customers (
  tenant_id text NOT NULL,
  customer_ref text COLLATE "C" NOT NULL,
  event_count bigint NOT NULL,
  first_event_at timestamptz NOT NULL,
  last_event_at timestamptz NOT NULL,
  last_ingested_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, customer_ref)
);
