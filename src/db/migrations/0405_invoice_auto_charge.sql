-- Per-invoice auto_charge (docs/payments.md, "auto_charge"): null follows the customer's payment
-- setting, true or false says otherwise for this invoice. A subscription's invoices carry false
-- when the subscription says charge_automatically = false.
ALTER TABLE invoices ADD COLUMN auto_charge boolean;

-- The reference's default for charge_automatically is true. Nothing read the flag before this
-- migration (every invoice followed the customer), so stored false values were the old default,
-- not a choice: they become true, which keeps what those subscriptions' invoices do.
ALTER TABLE subscriptions ALTER COLUMN charge_automatically SET DEFAULT true;
UPDATE subscriptions SET charge_automatically = true WHERE NOT charge_automatically;
