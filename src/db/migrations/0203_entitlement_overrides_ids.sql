-- Subscription entitlement overrides are shown as reference Entitlement rows (id, created_at,
-- updated_at): give them an id and an update time.
ALTER TABLE subscription_entitlement_overrides ADD COLUMN id text;
ALTER TABLE subscription_entitlement_overrides ADD COLUMN updated_at timestamptz;
UPDATE subscription_entitlement_overrides SET id = 'ent_' || md5(subscription_id || feature_id), updated_at = created_at WHERE id IS NULL;
ALTER TABLE subscription_entitlement_overrides ALTER COLUMN id SET NOT NULL;
ALTER TABLE subscription_entitlement_overrides ALTER COLUMN updated_at SET NOT NULL;
CREATE UNIQUE INDEX subscription_entitlement_overrides_id_key ON subscription_entitlement_overrides (id);
