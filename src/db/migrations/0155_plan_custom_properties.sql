-- Custom property values of plans (docs/custom-properties.md), filtered on by the plan list
-- (`@>`, served by the GIN index). Values belong to the plan, not to a version: a new version
-- does not change what the plan is in the merchant's CRM or ledger.
ALTER TABLE plans ADD COLUMN custom_properties jsonb NOT NULL DEFAULT '{}';
CREATE INDEX plans_custom_properties_idx ON plans USING gin (custom_properties jsonb_path_ops);
