-- Which process made each webhook attempt: the job worker's id (hostname:pid:random/slot,
-- src/jobs/worker-id.ts), so with several replicas a delivery can be traced to one of them.
-- NULL for attempts made before this column existed.
ALTER TABLE webhook_attempts ADD COLUMN worker_id text;

-- Signing secrets are sealed (AES-256-GCM with the service secret, src/modules/webhooks/secrets.ts)
-- from this version on. The rows stored in clear before it are sealed at start by
-- sealStoredSecrets, which has the service secret that SQL does not.
COMMENT ON COLUMN webhook_endpoints.secret IS 'sealed signing secret (v1.<base64url>); see src/modules/webhooks/secrets.ts';
COMMENT ON COLUMN webhook_endpoints.previous_secret IS 'sealed previous signing secret during a rotation grace period';
