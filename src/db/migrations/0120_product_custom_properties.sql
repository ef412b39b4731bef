-- Custom property values of products (docs/custom-properties.md), filtered on by the product
-- list (`@>`, served by the GIN index).
ALTER TABLE products ADD COLUMN custom_properties jsonb NOT NULL DEFAULT '{}';
CREATE INDEX products_custom_properties_idx ON products USING gin (custom_properties jsonb_path_ops);
