-- Several invoicing entities per tenant (issue 15): each customer belongs to one, an entity can
-- be archived (never deleted: its invoices and number sequences stay), and an entity carries
-- what its invoice PDFs print besides the address: tax and registration numbers, legal mentions,
-- payment instructions with bank details, and a logo (PNG or JPEG bytes, checked on upload).
ALTER TABLE invoicing_entities
  ADD COLUMN tax_number text,
  ADD COLUMN registration_number text,
  ADD COLUMN legal_footer text,
  ADD COLUMN payment_instructions text,
  -- {account_holder, bank_name, iban, bic, account_number, routing_number}, each nullable
  ADD COLUMN bank_details jsonb,
  ADD COLUMN logo bytea,
  ADD COLUMN logo_content_type text CHECK (logo_content_type IN ('image/png', 'image/jpeg')),
  ADD COLUMN logo_sha256 text,
  ADD COLUMN archived_at timestamptz,
  ADD CONSTRAINT invoicing_entities_logo_check CHECK ((logo IS NULL) = (logo_content_type IS NULL) AND (logo IS NULL) = (logo_sha256 IS NULL)),
  ADD CONSTRAINT invoicing_entities_logo_size_check CHECK (octet_length(logo) <= 262144),
  -- the default entity is the one new customers get: it can never be archived
  ADD CONSTRAINT invoicing_entities_default_active_check CHECK (NOT (is_default AND archived_at IS NOT NULL));

-- Customers created before this migration with no entity (or with an id that is not an entity of
-- their tenant: nothing checked it then) get their tenant's default one, created here (as
-- ensureDefaultEntity would: organization name, country US) where the tenant has none yet.
CREATE FUNCTION pg_temp.new_entity_id() RETURNS text LANGUAGE sql VOLATILE AS $$
  -- ids.ts layout: 10 Crockford base32 characters of milliseconds, then 16 random ones
  SELECT 'ive_' || (
    SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> (5 * (9 - i))) & 31)::int + 1, 1), '' ORDER BY i)
    FROM generate_series(0, 9) AS i, (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms) AS t
  ) || (
    SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', floor(random() * 32)::int + 1, 1), '')
    FROM generate_series(1, 16)
  )
$$;

INSERT INTO invoicing_entities (tenant_id, id, is_default, legal_name, country, created_at, updated_at)
SELECT t.id, pg_temp.new_entity_id(), true, o.name, 'US', now(), now()
FROM tenants t JOIN organizations o ON o.id = t.organization_id
WHERE EXISTS (
    SELECT 1 FROM customers c WHERE c.tenant_id = t.id
      AND NOT EXISTS (SELECT 1 FROM invoicing_entities x WHERE x.tenant_id = c.tenant_id AND x.id = c.invoicing_entity_id)
  )
  AND NOT EXISTS (SELECT 1 FROM invoicing_entities e WHERE e.tenant_id = t.id AND e.is_default);

UPDATE customers c SET invoicing_entity_id = e.id
FROM invoicing_entities e
WHERE e.tenant_id = c.tenant_id AND e.is_default
  AND NOT EXISTS (SELECT 1 FROM invoicing_entities x WHERE x.tenant_id = c.tenant_id AND x.id = c.invoicing_entity_id);

ALTER TABLE customers
  ALTER COLUMN invoicing_entity_id SET NOT NULL,
  ADD CONSTRAINT customers_invoicing_entity_fkey FOREIGN KEY (invoicing_entity_id) REFERENCES invoicing_entities(id);
-- archiving an entity counts its active customers
CREATE INDEX customers_tenant_entity_idx ON customers (tenant_id, invoicing_entity_id) WHERE archived_at IS NULL;
