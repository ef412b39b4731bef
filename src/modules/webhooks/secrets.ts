import type { Pool } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { createSecretBox } from '../../kernel/secret-box.js';

/** How secret-box writes a sealed value; a signing secret in clear starts `whsec_`. */
const SEALED_PREFIX = 'v1.';

/**
 * Webhook signing secrets at rest: HMAC needs the secret itself, so it cannot be hashed like an
 * API key; it is sealed with the service secret (AES-256-GCM, kernel/secret-box), as payment
 * provider keys are. The authenticated context is the tenant and endpoint, not the column, so
 * rotation can move the current secret to `previous_secret` in SQL without opening it.
 */
export function createSigningSecretBox(serviceSecret: string) {
  const box = createSecretBox(serviceSecret, 'webhook-signing-secrets');
  const context = (tenantId: string, endpointId: string) => `${tenantId}:${endpointId}`;
  return {
    seal: (plain: string, tenantId: string, endpointId: string) => box.seal(plain, context(tenantId, endpointId)),
    /** A value stored before secrets were sealed is returned as it is, until sealStoredSecrets seals it. */
    open: (stored: string, tenantId: string, endpointId: string) => (stored.startsWith(SEALED_PREFIX) ? box.open(stored, context(tenantId, endpointId)) : stored),
  };
}

export type SigningSecretBox = ReturnType<typeof createSigningSecretBox>;

/**
 * The data migration of sealed secrets: seals every secret still stored in clear (rows written
 * before this version). A SQL migration cannot do it, since it does not have the service secret,
 * so the composition root runs it at start; it is idempotent and safe in several processes at
 * once (a row is rewritten only if it still holds the clear value read). Returns rows sealed.
 */
export async function sealStoredSecrets(pool: Pool, box: SigningSecretBox): Promise<number> {
  // every tenant's endpoints, like the delivery worker's cross-tenant reads
  const { rows } = await pool.query<{ tenant_id: string; id: string; secret: string; previous_secret: string | null }>(
    `SELECT tenant_id, id, secret, previous_secret FROM webhook_endpoints
     WHERE secret NOT LIKE '${SEALED_PREFIX}%' OR previous_secret NOT LIKE '${SEALED_PREFIX}%'`,
  );
  let sealed = 0;
  for (const row of rows) {
    const seal = (value: string | null) => (value === null || value.startsWith(SEALED_PREFIX) ? value : box.seal(value, row.tenant_id, row.id));
    const updated = await scoped(pool, row.tenant_id).query(
      `UPDATE webhook_endpoints SET secret = $3, previous_secret = $4
       WHERE tenant_id = $1 AND id = $2 AND secret = $5 AND previous_secret IS NOT DISTINCT FROM $6 RETURNING id`,
      [row.id, seal(row.secret), seal(row.previous_secret), row.secret, row.previous_secret],
    );
    sealed += updated.length;
  }
  return sealed;
}
