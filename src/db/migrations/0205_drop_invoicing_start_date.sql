-- invoicing_start_date was written at creation and never read. What it tried to say is decided
-- elsewhere: billing starts on billing_start_date, and skip_past_invoices leaves out every invoice
-- dated before the subscription's creation day (created_at), which the billing engine reads.
ALTER TABLE subscriptions DROP COLUMN invoicing_start_date;
