-- The dashboard's customer search (GET /api/v1/customers?search=) matches part of the name, alias
-- or billing e-mail with ILIKE '%term%'. A b-tree cannot serve a match in the middle of a value;
-- trigram GIN indexes can (for terms of 3 characters or more), so the search stays fast at
-- 100,000 customers in a tenant (bench/dashboard-search.bench.ts). pg_trgm is a trusted
-- extension (PostgreSQL 13+): the database owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX customers_name_trgm_idx ON customers USING gin (name gin_trgm_ops);
CREATE INDEX customers_alias_trgm_idx ON customers USING gin (alias gin_trgm_ops);
CREATE INDEX customers_billing_email_trgm_idx ON customers USING gin (billing_email gin_trgm_ops);
