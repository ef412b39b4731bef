-- Custom property values of invoices (docs/custom-properties.md): editable after finalization
-- (they are not amounts), printed on the PDF when their definition says so, and filtered on by
-- the invoice list (`@>`, served by the GIN index).
ALTER TABLE invoices ADD COLUMN custom_properties jsonb NOT NULL DEFAULT '{}';
CREATE INDEX invoices_custom_properties_idx ON invoices USING gin (custom_properties jsonb_path_ops);
