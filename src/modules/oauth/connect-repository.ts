import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export type AccountType = 'standard' | 'express';
export type AccountStatus = 'PENDING' | 'ACTIVE' | 'SUSPENDED' | 'REVOKED';

export interface ConnectedAccountRow {
  id: string;
  tenant_id: string;
  type: AccountType;
  status: AccountStatus;
  oauth_app_id: string | null;
  organization_id: string | null;
  connected_tenant_id: string | null;
  connected_by_user_id: string | null;
  email: string | null;
  organization_name: string;
  country: string | null;
  metadata: Record<string, string>;
  return_url: string | null;
  legal_name: string | null;
  vat_number: string | null;
  created_at: Date;
  activated_at: Date | null;
  revoked_at: Date | null;
}

export interface LinkRow {
  token_hash: string;
  tenant_id: string;
  connected_account_id: string;
  return_url: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  invalidated_at: Date | null;
}

const COLUMNS = `id, tenant_id, type, status, oauth_app_id, organization_id, connected_tenant_id, connected_by_user_id, email,
  organization_name, country, metadata, return_url, legal_name, vat_number, created_at, activated_at, revoked_at`;

export async function insertAccount(db: Queryable, row: ConnectedAccountRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO connected_accounts (tenant_id, id, type, status, oauth_app_id, organization_id, connected_tenant_id, connected_by_user_id,
       email, organization_name, country, metadata, return_url, legal_name, vat_number, created_at, activated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      row.id, row.type, row.status, row.oauth_app_id, row.organization_id, row.connected_tenant_id, row.connected_by_user_id,
      row.email, row.organization_name, row.country, JSON.stringify(row.metadata), row.return_url, row.legal_name, row.vat_number,
      row.created_at, row.activated_at,
    ],
  );
}

/** Whether `accountId` is a connected account of the tenant (any status): what a customer's `connected_account_id` may name. */
export async function connectedAccountExists(db: Queryable, tenantId: string, accountId: string): Promise<boolean> {
  return (await scoped(db, tenantId).one(`SELECT 1 FROM connected_accounts WHERE tenant_id = $1 AND id = $2`, [accountId])) !== undefined;
}

export async function findAccount(db: Queryable, tenantId: string, accountId: string, forUpdate = false): Promise<ConnectedAccountRow | undefined> {
  return scoped(db, tenantId).one<ConnectedAccountRow>(
    `SELECT ${COLUMNS} FROM connected_accounts WHERE tenant_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId],
  );
}

export async function listAccounts(
  db: Queryable,
  tenantId: string,
  filter: { type?: AccountType; status?: AccountStatus },
  page: PageRequest,
): Promise<{ rows: ConnectedAccountRow[]; total: number }> {
  const where = `tenant_id = $1 AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR status = $3)`;
  return scoped(db, tenantId).page<ConnectedAccountRow>(
    { columns: COLUMNS, from: 'connected_accounts', where, orderBy: 'created_at DESC, id DESC' },
    [filter.type ?? null, filter.status ?? null],
    page,
  );
}

export async function findLiveStandardAccount(db: Queryable, tenantId: string, appId: string, organizationId: string): Promise<ConnectedAccountRow | undefined> {
  return scoped(db, tenantId).one<ConnectedAccountRow>(
    `SELECT ${COLUMNS} FROM connected_accounts
     WHERE tenant_id = $1 AND type = 'standard' AND oauth_app_id = $2 AND organization_id = $3 AND status <> 'REVOKED' FOR UPDATE`,
    [appId, organizationId],
  );
}

export async function setStatus(db: Queryable, tenantId: string, accountId: string, status: AccountStatus, at: Date): Promise<ConnectedAccountRow | undefined> {
  return scoped(db, tenantId).one<ConnectedAccountRow>(
    `UPDATE connected_accounts SET status = $3, revoked_at = CASE WHEN $3 = 'REVOKED' THEN $4 ELSE revoked_at END
     WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, status, at],
  );
}

/** Revokes every standard connection made through an app (the app was deleted); returns their ids. */
export async function revokeAccountsOfApp(db: Queryable, tenantId: string, appId: string, at: Date): Promise<string[]> {
  const rows = await scoped(db, tenantId).query<{ id: string }>(
    `UPDATE connected_accounts SET status = 'REVOKED', revoked_at = $3
     WHERE tenant_id = $1 AND oauth_app_id = $2 AND status <> 'REVOKED' RETURNING id`,
    [appId, at],
  );
  return rows.map((r) => r.id);
}

export async function activateExpress(
  db: Queryable,
  tenantId: string,
  accountId: string,
  values: { organization_id: string; connected_tenant_id: string; user_id: string; organization_name: string; country: string; legal_name: string; vat_number: string | null; at: Date },
): Promise<ConnectedAccountRow | undefined> {
  return scoped(db, tenantId).one<ConnectedAccountRow>(
    `UPDATE connected_accounts SET status = 'ACTIVE', organization_id = $3, connected_tenant_id = $4, connected_by_user_id = $5,
       organization_name = $6, country = $7, legal_name = $8, vat_number = $9, activated_at = $10
     WHERE tenant_id = $1 AND id = $2 AND status = 'PENDING' RETURNING ${COLUMNS}`,
    [accountId, values.organization_id, values.connected_tenant_id, values.user_id, values.organization_name, values.country, values.legal_name, values.vat_number, values.at],
  );
}

export async function insertLink(db: Queryable, row: LinkRow): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO connected_account_links (tenant_id, token_hash, connected_account_id, return_url, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.token_hash, row.connected_account_id, row.return_url, row.created_at, row.expires_at],
  );
}

/** A new link replaces the older ones: only the latest link of an account can be used. */
export async function invalidateLinks(db: Queryable, tenantId: string, accountId: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE connected_account_links SET invalidated_at = $3 WHERE tenant_id = $1 AND connected_account_id = $2 AND used_at IS NULL AND invalidated_at IS NULL`,
    [accountId, at],
  );
}

/** The onboarding page knows only the link, so this lookup crosses tenants by design. */
export async function findLinkByHash(db: Queryable, tokenHash: string, forUpdate = false): Promise<LinkRow | undefined> {
  const result = await db.query<LinkRow>(
    `SELECT token_hash, tenant_id, connected_account_id, return_url, created_at, expires_at, used_at, invalidated_at
     FROM connected_account_links WHERE token_hash = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenHash],
  );
  return result.rows[0];
}

export async function markLinkUsed(db: Queryable, tenantId: string, tokenHash: string, at: Date): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE connected_account_links SET used_at = $3 WHERE tenant_id = $1 AND token_hash = $2`, [tokenHash, at]);
}

export interface UserConnectionRow {
  id: string;
  tenant_id: string;
  organization_id: string;
  organization_name: string;
  app_name: string;
  activated_at: Date;
}

/**
 * Live standard connections of the organizations a user administers (the user's own view);
 * `organizations` are those organizations (id and name) from the accounts module.
 */
export async function listConnectionsOfOrganizations(db: Queryable, organizations: readonly { id: string; name: string }[]): Promise<UserConnectionRow[]> {
  if (organizations.length === 0) return [];
  const names = new Map(organizations.map((o) => [o.id, o.name]));
  const result = await db.query<Omit<UserConnectionRow, 'organization_name'>>(
    `SELECT a.id, a.tenant_id, a.organization_id, p.name AS app_name, a.activated_at
     FROM connected_accounts a
     JOIN oauth_apps p ON p.id = a.oauth_app_id
     WHERE a.type = 'standard' AND a.status = 'ACTIVE' AND a.organization_id = ANY($1::text[])
     ORDER BY a.activated_at DESC, a.id`,
    [[...names.keys()]],
  );
  return result.rows.map((row) => ({ ...row, organization_name: names.get(row.organization_id)! }));
}
