-- The customer search's trigram indexes (0211) without GIN's pending list. With fastupdate on,
-- new customers' trigrams wait in an unsorted list (up to gin_pending_list_limit, 4 MB) until a
-- vacuum merges them, and every search reads that whole list: at 100,000 customers a search read
-- ~500 to ~1,000 pages before a vacuum and ~40 to ~300 after it (EXPLAIN (ANALYZE, BUFFERS);
-- docs/dashboard.md, "Speed and size"). Off, each insert or update of a name, alias or e-mail
-- updates the indexes at once: a little slower writes, searches that do not depend on when
-- autovacuum last ran.
ALTER INDEX customers_name_trgm_idx SET (fastupdate = off);
ALTER INDEX customers_alias_trgm_idx SET (fastupdate = off);
ALTER INDEX customers_billing_email_trgm_idx SET (fastupdate = off);
