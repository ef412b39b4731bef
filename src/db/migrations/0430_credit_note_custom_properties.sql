-- Custom property values of credit notes (docs/custom-properties.md): set at creation, editable
-- in any status (they are not amounts), filtered on by the list (`@>`, served by the GIN index).
ALTER TABLE credit_notes ADD COLUMN custom_properties jsonb NOT NULL DEFAULT '{}';
CREATE INDEX credit_notes_custom_properties_idx ON credit_notes USING gin (custom_properties jsonb_path_ops);
