-- Custom property values of subscriptions (docs/custom-properties.md), filtered on by the
-- subscription list (`@>`, served by the GIN index).
ALTER TABLE subscriptions ADD COLUMN custom_properties jsonb NOT NULL DEFAULT '{}';
CREATE INDEX subscriptions_custom_properties_idx ON subscriptions USING gin (custom_properties jsonb_path_ops);
