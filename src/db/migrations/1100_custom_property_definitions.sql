-- Custom property definitions (docs/custom-properties.md): typed fields a tenant adds to one
-- entity type. The values live on the owning objects (their `custom_properties` jsonb column);
-- this table only says what a key means and how its values are checked.
CREATE TABLE custom_property_definitions (
  id text NOT NULL,
  tenant_id text NOT NULL REFERENCES tenants(id),
  entity_type text NOT NULL CHECK (entity_type IN ('CUSTOMER', 'SUBSCRIPTION', 'PLAN', 'PRODUCT', 'INVOICE', 'CREDIT_NOTE')),
  -- immutable: values are stored under it
  key text NOT NULL CHECK (key ~ '^[A-Za-z0-9_]{1,64}$'),
  name text NOT NULL,
  description text,
  -- immutable: stored values were checked against it
  type text NOT NULL CHECK (type IN ('TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'DATE_TIME', 'SINGLE_SELECT', 'MULTI_SELECT', 'URL', 'EMAIL')),
  -- the choices of SINGLE_SELECT and MULTI_SELECT (a JSON array of strings), null for the other types
  options jsonb,
  required boolean NOT NULL DEFAULT false,
  -- a value of `type`, as stored on the objects; null: no default
  default_value jsonb,
  display_order integer NOT NULL DEFAULT 0,
  -- invoices only: the value is printed on the invoice PDF
  print_on_pdf boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz,
  -- tenant_id leads every key (docs/architecture.md, "Keys of tenant tables")
  PRIMARY KEY (tenant_id, id)
);
-- A key is unique per tenant and entity type, archived definitions included: their values stay on the objects.
CREATE UNIQUE INDEX custom_property_definitions_key ON custom_property_definitions (tenant_id, entity_type, key);
