import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

export interface PortalTokenRow {
  token_hash: string;
  tenant_id: string;
  customer_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export async function insertToken(db: Queryable, row: Omit<PortalTokenRow, 'revoked_at'>): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO portal_tokens (tenant_id, token_hash, customer_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [row.token_hash, row.customer_id, row.created_at, row.expires_at],
  );
}

/**
 * Resolves a presented token by its hash. Crosses tenants by design, like API keys: the holder
 * does not say which tenant it belongs to; the row does.
 */
export async function findTokenByHash(db: Queryable, tokenHash: string): Promise<PortalTokenRow | undefined> {
  const result = await db.query<PortalTokenRow>(
    `SELECT token_hash, tenant_id, customer_id, created_at, expires_at, revoked_at FROM portal_tokens WHERE token_hash = $1`,
    [tokenHash],
  );
  return result.rows[0];
}

/** Revokes every live token of one customer; returns how many were revoked. */
export async function revokeCustomerTokens(db: Queryable, tenantId: string, customerId: string, at: Date): Promise<number> {
  const rows = await scoped(db, tenantId).query(
    `UPDATE portal_tokens SET revoked_at = $3 WHERE tenant_id = $1 AND customer_id = $2 AND revoked_at IS NULL RETURNING token_hash`,
    [customerId, at],
  );
  return rows.length;
}

/** Deletes the portal tokens of these customers (a test clock's deletion). */
export async function deleteTokensOfCustomers(db: Queryable, tenantId: string, customerIds: readonly string[]): Promise<void> {
  await scoped(db, tenantId).query(`DELETE FROM portal_tokens WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`, [customerIds]);
}
