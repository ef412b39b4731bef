-- When a subscription draft's usage was recorded as billed at its creation, because its grace
-- period had already ended (a run catching up, a grace period of 0, a backdated subscription):
-- such a draft was computed as its finalization would compute it, and is not computed again
-- (docs/usage.md, "Late usage"). Null for every other invoice.
ALTER TABLE invoices ADD COLUMN usage_recorded_at timestamptz;
