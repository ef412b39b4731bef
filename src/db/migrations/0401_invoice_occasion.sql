-- The billing occasion a subscription invoice was computed for (engine's BillingOccasion JSON:
-- kind, invoice type, invoice date, period, adjustment dates), so refreshing a draft with late
-- usage recomputes exactly the same occasion.
ALTER TABLE invoices ADD COLUMN billing_occasion jsonb;

-- The engine gives each invoice of a subscription its own date (FIRST, RENEWAL, FINAL and
-- ADJUSTMENT never share one): one subscription invoice per date, whatever its period or type.
CREATE UNIQUE INDEX invoices_subscription_date_key ON invoices (tenant_id, subscription_id, invoice_date)
  WHERE subscription_id IS NOT NULL AND invoice_type IN ('RECURRING', 'ADJUSTMENT');

-- Finalizer: due drafts of one entity in invoice-date order.
CREATE INDEX invoices_entity_drafts_idx ON invoices (tenant_id, invoicing_entity_id, invoice_date, id) WHERE status = 'DRAFT';
