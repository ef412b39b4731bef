-- Lists filter customers by custom property (`custom_properties[<key>]=<value>`, a jsonb `@>`
-- containment); jsonb_path_ops indexes exactly that operator, smaller than the default opclass.
-- The existing free-form values stay as they are (docs/custom-properties.md, "Migration").
CREATE INDEX customers_custom_properties_idx ON customers USING gin (custom_properties jsonb_path_ops);
