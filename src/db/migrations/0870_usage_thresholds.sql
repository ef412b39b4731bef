-- Spend thresholds (progressive billing, docs/credits-and-alerts.md): a plan version's and a
-- subscription's thresholds, and the invoices they trigger (invoice_type USAGE_THRESHOLD).

-- The thresholds a plan version offers: [{amount, recurring, threshold_display_name}], sorted,
-- at most one recurring. Empty = none.
ALTER TABLE plan_versions ADD COLUMN usage_thresholds jsonb NOT NULL DEFAULT '[]'::jsonb;

-- A subscription's own copy (taken from its plan version at creation unless the request gave
-- its own; changed by PATCH). NULL = none, so the partial index below holds only the
-- subscriptions that have thresholds: what ingestion looks up for the customers of a batch.
ALTER TABLE subscriptions ADD COLUMN usage_thresholds jsonb;
CREATE INDEX subscriptions_with_thresholds_idx ON subscriptions (tenant_id, customer_id) WHERE usage_thresholds IS NOT NULL;

-- Threshold invoices: which crossing of the period they bill (1 = the first threshold reached
-- in the period, 2 = the second...) and the threshold itself, as shown on the invoice.
ALTER TABLE invoices DROP CONSTRAINT invoices_invoice_type_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_invoice_type_check CHECK (invoice_type IN ('RECURRING', 'ONE_OFF', 'ADJUSTMENT', 'USAGE_THRESHOLD'));
ALTER TABLE invoices ADD COLUMN usage_threshold_index int;
ALTER TABLE invoices ADD COLUMN usage_threshold jsonb;
ALTER TABLE invoices ADD CONSTRAINT invoices_usage_threshold_check
  CHECK ((invoice_type = 'USAGE_THRESHOLD') = (usage_threshold_index IS NOT NULL AND subscription_id IS NOT NULL));
-- Several threshold invoices share a period: the period key no longer covers them...
DROP INDEX invoices_subscription_period_key;
CREATE UNIQUE INDEX invoices_subscription_period_key ON invoices (tenant_id, subscription_id, period_start, period_end, invoice_type)
  WHERE invoice_type <> 'USAGE_THRESHOLD';
-- (recreated after it, so a duplicate period is still reported by the period key first, as before)
DROP INDEX invoices_subscription_date_key;
CREATE UNIQUE INDEX invoices_subscription_date_key ON invoices (tenant_id, subscription_id, invoice_date)
  WHERE subscription_id IS NOT NULL AND invoice_type IN ('RECURRING', 'ADJUSTMENT');
-- ...this one does: one threshold invoice per subscription, period and crossing, also when two
-- ingest batches cross the same threshold at once.
CREATE UNIQUE INDEX invoices_usage_threshold_key ON invoices (tenant_id, subscription_id, period_start, usage_threshold_index)
  WHERE invoice_type = 'USAGE_THRESHOLD';

-- Invoice lines name the subscription fee they bill, so the period-end invoice can deduct,
-- fee by fee, what the period's threshold invoices already billed.
ALTER TABLE invoice_lines ADD COLUMN component_id text;
