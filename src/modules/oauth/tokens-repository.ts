import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

export interface GrantRow {
  id: string;
  tenant_id: string;
  oauth_app_id: string;
  connected_account_id: string;
  user_id: string;
  organization_id: string;
  connected_tenant_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface CodeRow {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
  used_at: Date | null;
}

export type TokenKind = 'access' | 'refresh';

export interface TokenRow {
  token_hash: string;
  tenant_id: string;
  grant_id: string;
  kind: TokenKind;
  issued_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

/** A token with what introspection and authentication need from its grant and connection. */
export interface TokenWithGrant extends TokenRow {
  oauth_app_id: string;
  connected_account_id: string;
  organization_id: string;
  connected_tenant_id: string;
  user_id: string;
  grant_revoked_at: Date | null;
  account_status: string;
}

const TOKEN_WITH_GRANT = `t.token_hash, t.tenant_id, t.grant_id, t.kind, t.issued_at, t.expires_at, t.used_at, t.revoked_at,
  g.oauth_app_id, g.connected_account_id, g.organization_id, g.connected_tenant_id, g.user_id,
  g.revoked_at AS grant_revoked_at, a.status AS account_status`;
const TOKEN_JOINS = `oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN connected_accounts a ON a.id = g.connected_account_id`;

export async function insertGrant(db: Queryable, row: GrantRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO oauth_grants (tenant_id, id, oauth_app_id, connected_account_id, user_id, organization_id, connected_tenant_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.oauth_app_id, row.connected_account_id, row.user_id, row.organization_id, row.connected_tenant_id, row.created_at],
  );
}

export async function insertCode(db: Queryable, tenantId: string, row: CodeRow & { created_at: Date }): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO oauth_codes (tenant_id, code_hash, grant_id, redirect_uri, code_challenge, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.code_hash, row.grant_id, row.redirect_uri, row.code_challenge, row.created_at, row.expires_at],
  );
}

/** Locks the code row so two concurrent exchanges of one code cannot both succeed. */
export async function lockCode(db: Queryable, tenantId: string, codeHash: string): Promise<(CodeRow & { oauth_app_id: string; grant_revoked_at: Date | null }) | undefined> {
  return scoped(db, tenantId).one(
    `SELECT c.code_hash, c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at, g.oauth_app_id, g.revoked_at AS grant_revoked_at
     FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id
     WHERE c.tenant_id = $1 AND c.code_hash = $2 FOR UPDATE OF c`,
    [codeHash],
  );
}

export async function markCodeUsed(db: Queryable, tenantId: string, codeHash: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE oauth_codes SET used_at = $3 WHERE tenant_id = $1 AND code_hash = $2`, [codeHash, at]);
}

export async function insertToken(db: Queryable, row: TokenRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO oauth_tokens (tenant_id, token_hash, grant_id, kind, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.token_hash, row.grant_id, row.kind, row.issued_at, row.expires_at],
  );
}

/** A token of this tenant's clients, locked when `forUpdate` (refresh rotation). */
export async function findToken(db: Queryable, tenantId: string, tokenHash: string, forUpdate = false): Promise<TokenWithGrant | undefined> {
  return scoped(db, tenantId).one<TokenWithGrant>(
    `SELECT ${TOKEN_WITH_GRANT} FROM ${TOKEN_JOINS} WHERE t.tenant_id = $1 AND t.token_hash = $2${forUpdate ? ' FOR UPDATE OF t' : ''}`,
    [tokenHash],
  );
}

export async function markTokenUsed(db: Queryable, tenantId: string, tokenHash: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE oauth_tokens SET used_at = $3 WHERE tenant_id = $1 AND token_hash = $2`, [tokenHash, at]);
}

export async function revokeToken(db: Queryable, tenantId: string, tokenHash: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE oauth_tokens SET revoked_at = coalesce(revoked_at, $3) WHERE tenant_id = $1 AND token_hash = $2`,
    [tokenHash, at],
  );
}

/** Revokes a grant and every token issued under it. */
export async function revokeGrant(db: Queryable, tenantId: string, grantId: string, at: Date): Promise<void> {
  const t = scoped(db, tenantId);
  await t.query(`UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, $3) WHERE tenant_id = $1 AND id = $2`, [grantId, at]);
  await t.query(`UPDATE oauth_tokens SET revoked_at = $3 WHERE tenant_id = $1 AND grant_id = $2 AND revoked_at IS NULL`, [grantId, at]);
}

/** Revokes every grant and token of a connection (disconnect). */
export async function revokeGrantsOfAccount(db: Queryable, tenantId: string, accountId: string, at: Date): Promise<void> {
  const t = scoped(db, tenantId);
  await t.query(
    `UPDATE oauth_tokens SET revoked_at = $3 WHERE tenant_id = $1 AND revoked_at IS NULL
       AND grant_id IN (SELECT id FROM oauth_grants WHERE tenant_id = $1 AND connected_account_id = $2)`,
    [accountId, at],
  );
  await t.query(`UPDATE oauth_grants SET revoked_at = $3 WHERE tenant_id = $1 AND connected_account_id = $2 AND revoked_at IS NULL`, [accountId, at]);
}

/** Resolves a presented access token for authentication; crosses tenants by design, like API keys. */
export async function findAccessTokenByHash(db: Queryable, tokenHash: string): Promise<TokenWithGrant | undefined> {
  const result = await db.query<TokenWithGrant>(
    `SELECT ${TOKEN_WITH_GRANT} FROM ${TOKEN_JOINS} WHERE t.token_hash = $1 AND t.kind = 'access'`,
    [tokenHash],
  );
  return result.rows[0];
}
