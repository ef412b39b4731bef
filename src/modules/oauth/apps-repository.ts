import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export interface OAuthAppRow {
  id: string;
  tenant_id: string;
  name: string;
  redirect_uris: string[];
  secret_hint: string;
  created_at: Date;
  updated_at: Date;
}

export interface OAuthClientRow extends OAuthAppRow {
  secret_hash: string;
}

const COLUMNS = 'id, tenant_id, name, redirect_uris, secret_hint, created_at, updated_at';

export async function insertApp(db: Queryable, row: OAuthAppRow & { secret_hash: string }): Promise<void> {
  await scoped(db, row.tenant_id).query(
    `INSERT INTO oauth_apps (tenant_id, id, name, redirect_uris, secret_hash, secret_hint, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.name, row.redirect_uris, row.secret_hash, row.secret_hint, row.created_at, row.updated_at],
  );
}

export async function listApps(db: Queryable, tenantId: string, page: PageRequest): Promise<{ rows: OAuthAppRow[]; total: number }> {
  return scoped(db, tenantId).page<OAuthAppRow>(
    { columns: COLUMNS, from: 'oauth_apps', where: 'tenant_id = $1 AND deleted_at IS NULL', orderBy: 'created_at DESC, id DESC' },
    [],
    page,
  );
}

export async function findApp(db: Queryable, tenantId: string, appId: string): Promise<OAuthAppRow | undefined> {
  return scoped(db, tenantId).one<OAuthAppRow>(`SELECT ${COLUMNS} FROM oauth_apps WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL`, [appId]);
}

export async function updateApp(
  db: Queryable,
  tenantId: string,
  appId: string,
  patch: { name?: string; redirect_uris?: string[]; updated_at: Date },
): Promise<OAuthAppRow | undefined> {
  return scoped(db, tenantId).one<OAuthAppRow>(
    `UPDATE oauth_apps SET name = coalesce($3, name), redirect_uris = coalesce($4, redirect_uris), updated_at = $5
     WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [appId, patch.name ?? null, patch.redirect_uris ?? null, patch.updated_at],
  );
}

export async function replaceSecret(
  db: Queryable,
  tenantId: string,
  appId: string,
  secret: { hash: string; hint: string; at: Date },
): Promise<OAuthAppRow | undefined> {
  return scoped(db, tenantId).one<OAuthAppRow>(
    `UPDATE oauth_apps SET secret_hash = $3, secret_hint = $4, updated_at = $5
     WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [appId, secret.hash, secret.hint, secret.at],
  );
}

export async function markAppDeleted(db: Queryable, tenantId: string, appId: string, at: Date): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `UPDATE oauth_apps SET deleted_at = $3 WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`,
    [appId, at],
  );
  return rows.length === 1;
}

/** The client behind a client_id, whichever tenant owns it: the OAuth endpoints know no tenant yet. */
export async function findClient(db: Queryable, clientId: string): Promise<OAuthClientRow | undefined> {
  const result = await db.query<OAuthClientRow>(
    `SELECT ${COLUMNS}, secret_hash FROM oauth_apps WHERE id = $1 AND deleted_at IS NULL`,
    [clientId],
  );
  return result.rows[0];
}
