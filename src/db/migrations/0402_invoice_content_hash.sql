-- Hash of a subscription draft's computed content (lines, coupons, tax): a refresh that finds
-- the same content leaves the rows alone.
ALTER TABLE invoices ADD COLUMN content_hash text;
