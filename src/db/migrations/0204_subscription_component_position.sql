-- Components keep their plan's order (price component position), so invoice lines and the API
-- list them in a stable, meaningful order instead of by random id suffix.
ALTER TABLE subscription_components ADD COLUMN position integer NOT NULL DEFAULT 0;
