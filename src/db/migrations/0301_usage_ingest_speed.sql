-- Cheaper event writes (see docs/usage.md "Storage design").

-- Event ids are opaque keys: byte order ("C") compares them with memcmp instead of the
-- locale's collation on every btree step of the dedup ledger.
ALTER TABLE usage_event_ids ALTER COLUMN event_id TYPE text COLLATE "C";
