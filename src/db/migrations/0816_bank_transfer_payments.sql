-- Bank transfers recorded from a CSV of bank lines (docs/payments.md, "Bank transfers"): each line
-- is recorded at most once per tenant, whatever file or job brings it again.
ALTER TABLE payment_transactions ADD COLUMN bank_line_key text;
CREATE UNIQUE INDEX payment_transactions_bank_line_key ON payment_transactions (tenant_id, bank_line_key) WHERE bank_line_key IS NOT NULL;

-- A bank line names its invoice by payment reference (the number without separators), compared in upper case.
CREATE INDEX invoices_payment_reference_idx ON invoices (tenant_id, upper(reference)) WHERE reference IS NOT NULL;
