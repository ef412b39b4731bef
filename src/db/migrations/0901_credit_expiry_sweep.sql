-- The expiry sweep (credits.expire_due) reads the active grants whose expiry fell in the last
-- minutes, over every tenant: a partial index on the expiry of active grants that have one.
CREATE INDEX credit_grants_active_expiry_idx ON credit_grants (expires_at, tenant_id, id) WHERE status = 'ACTIVE' AND expires_at IS NOT NULL;
