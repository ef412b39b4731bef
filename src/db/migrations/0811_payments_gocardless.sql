-- GoCardless direct debit (docs/payments.md, "GoCardless"): a second connectable provider, and
-- saved methods that are mandates on a bank account rather than cards.
ALTER TABLE payment_provider_connections
  DROP CONSTRAINT payment_provider_connections_provider_check,
  ADD CONSTRAINT payment_provider_connections_provider_check CHECK (provider IN ('stripe', 'gocardless'));

ALTER TABLE payment_methods
  DROP CONSTRAINT payment_methods_method_type_check,
  ADD CONSTRAINT payment_methods_method_type_check CHECK (method_type IN ('CARD', 'DIRECT_DEBIT')),
  -- DIRECT_DEBIT only: the mandate's scheme (sepa_core, bacs...), its reference shown to the payer,
  -- and the debited account's bank and last digits (GoCardless gives the last two)
  ADD COLUMN mandate_scheme text,
  ADD COLUMN mandate_reference text,
  ADD COLUMN bank_name text,
  ADD COLUMN account_number_ending text;
