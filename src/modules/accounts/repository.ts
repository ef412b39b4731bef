import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

export type Environment = 'production' | 'sandbox';

export interface TenantRow {
  id: string;
  organization_id: string;
  name: string;
  environment: Environment;
  disable_emails: boolean;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  hint: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ApiKeyLookup {
  key_id: string;
  tenant_id: string;
  organization_id: string;
  environment: Environment;
}

// Users and organizations sit above tenants, so these statements are not tenant-scoped.
export async function insertUser(db: Queryable, user: { id: string; email: string; passwordHash: string; createdAt: Date }): Promise<void> {
  await db.query(`INSERT INTO users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`, [
    user.id,
    user.email,
    user.passwordHash,
    user.createdAt,
  ]);
}

export async function findUserByEmail(db: Queryable, email: string): Promise<{ id: string; email: string; password_hash: string } | undefined> {
  const result = await db.query<{ id: string; email: string; password_hash: string }>(
    `SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)`,
    [email],
  );
  return result.rows[0];
}

export async function findUserById(db: Queryable, userId: string): Promise<{ id: string; email: string } | undefined> {
  const result = await db.query<{ id: string; email: string }>(`SELECT id, email FROM users WHERE id = $1`, [userId]);
  return result.rows[0];
}

export interface MembershipRow {
  organization_id: string;
  name: string;
  role: 'ADMIN' | 'MEMBER';
}

/** The organizations a user belongs to, by name. */
export async function listMemberships(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const result = await db.query<MembershipRow>(
    `SELECT m.organization_id, o.name, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id
     WHERE m.user_id = $1 ORDER BY o.name, o.id`,
    [userId],
  );
  return result.rows;
}

/** The organizations a user administers (id and name), in no particular order. */
export async function listAdministeredOrganizations(db: Queryable, userId: string): Promise<{ id: string; name: string }[]> {
  const result = await db.query<{ id: string; name: string }>(
    `SELECT o.id, o.name FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1 AND m.role = 'ADMIN'`,
    [userId],
  );
  return result.rows;
}

export async function insertOrganization(db: Queryable, org: { id: string; name: string; createdAt: Date }, ownerUserId: string): Promise<void> {
  await db.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)`, [org.id, org.name, org.createdAt]);
  await db.query(`INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ($1, $2, 'ADMIN', $3)`, [
    org.id,
    ownerUserId,
    org.createdAt,
  ]);
}

export async function insertTenant(db: Queryable, tenant: Omit<TenantRow, 'disable_emails'> & { disable_emails?: boolean }): Promise<void> {
  await db.query(
    `INSERT INTO tenants (id, organization_id, name, environment, disable_emails, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [tenant.id, tenant.organization_id, tenant.name, tenant.environment, tenant.disable_emails ?? false, tenant.created_at],
  );
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const result = await db.query<{ n: bigint }>(`SELECT count(*) AS n FROM organizations`);
  return Number(result.rows[0]?.n ?? 0n);
}

export async function findTenant(db: Queryable, tenantId: string): Promise<TenantRow | undefined> {
  return scoped(db, tenantId).one<TenantRow>(
    `SELECT id, organization_id, name, environment, disable_emails, created_at FROM tenants WHERE tenant_id = $1`,
  );
}

/** The tenants of an organization, production first (organization-level, so not tenant-scoped). */
export async function listTenantsOfOrganization(db: Queryable, organizationId: string): Promise<TenantRow[]> {
  const result = await db.query<TenantRow>(
    `SELECT id, organization_id, name, environment, disable_emails, created_at FROM tenants WHERE organization_id = $1 ORDER BY environment, created_at, id`,
    [organizationId],
  );
  return result.rows;
}

/** The tenant, only when `userId` is a member of its organization. */
export async function findTenantOfMember(db: Queryable, tenantId: string, userId: string): Promise<(TenantRow & { organization_name: string }) | undefined> {
  return scoped(db, tenantId).one<TenantRow & { organization_name: string }>(
    `SELECT t.id, t.organization_id, t.name, t.environment, t.disable_emails, t.created_at, o.name AS organization_name
     FROM tenants t JOIN organizations o ON o.id = t.organization_id
     JOIN organization_members m ON m.organization_id = t.organization_id AND m.user_id = $2
     WHERE t.tenant_id = $1`,
    [userId],
  );
}

/** The production tenant an OAuth access token acts on (the oldest, should there be several). */
export async function findProductionTenant(db: Queryable, organizationId: string): Promise<string | undefined> {
  const result = await db.query<{ id: string }>(
    `SELECT id FROM tenants WHERE organization_id = $1 AND environment = 'production' ORDER BY created_at, id LIMIT 1`,
    [organizationId],
  );
  return result.rows[0]?.id;
}

/** A tenant with its organization's name, for modules that show or send on the tenant's behalf. */
export interface TenantProfile {
  environment: Environment;
  disable_emails: boolean;
  organization_name: string;
}

export async function findTenantProfile(db: Queryable, tenantId: string): Promise<TenantProfile | undefined> {
  return scoped(db, tenantId).one<TenantProfile>(
    `SELECT t.environment, t.disable_emails, o.name AS organization_name FROM tenants t JOIN organizations o ON o.id = t.organization_id WHERE t.tenant_id = $1`,
  );
}

/**
 * SQL for the tenant's compact key (`tenants.key`, see migration 0302) from the tenant id bound
 * as `idParameter`: an uncorrelated subquery, evaluated once per statement. The usage tables
 * store this key instead of the id, and look it up inside their own statements.
 */
export function tenantKeySql(idParameter: string): string {
  return `(SELECT key FROM tenants WHERE id = ${idParameter})`;
}

export async function updateTenantSettings(db: Queryable, tenantId: string, settings: { disable_emails?: boolean }): Promise<void> {
  await scoped(db, tenantId).query(`UPDATE tenants SET disable_emails = coalesce($2, disable_emails) WHERE tenant_id = $1`, [
    settings.disable_emails ?? null,
  ]);
}

export async function insertApiKey(db: Queryable, key: ApiKeyRow & { secret_hash: string }): Promise<void> {
  await scoped(db, key.tenant_id).query(
    `INSERT INTO api_keys (tenant_id, id, name, hint, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [key.id, key.name, key.hint, key.secret_hash, key.created_at],
  );
}

export async function listApiKeys(db: Queryable, tenantId: string): Promise<ApiKeyRow[]> {
  return scoped(db, tenantId).query<ApiKeyRow>(
    `SELECT id, tenant_id, name, hint, created_at, last_used_at, revoked_at FROM api_keys WHERE tenant_id = $1 ORDER BY id`,
  );
}

/**
 * Revokes a key and, in the same statement, announces its hash on `channel` so every process
 * drops it from its authentication cache when the revocation commits.
 */
export async function revokeApiKey(db: Queryable, tenantId: string, keyId: string, at: Date, channel: string): Promise<(ApiKeyRow & { secret_hash: string }) | undefined> {
  return scoped(db, tenantId).one<ApiKeyRow & { secret_hash: string }>(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE tenant_id = $1 AND id = $2
       RETURNING id, tenant_id, name, hint, created_at, last_used_at, revoked_at, secret_hash
     )
     SELECT revoked.*, pg_notify($4, revoked.secret_hash) FROM revoked`,
    [keyId, at, channel],
  );
}

/** Looks a presented key up by its hash; revoked keys never match. Crosses tenants by design. */
export async function findActiveKeyByHash(db: Queryable, secretHash: string): Promise<ApiKeyLookup | undefined> {
  const result = await db.query<ApiKeyLookup>(
    `SELECT k.id AS key_id, k.tenant_id, t.organization_id, t.environment
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`,
    [secretHash],
  );
  return result.rows[0];
}

export async function touchApiKey(db: Queryable, keyId: string, at: Date): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, [keyId, at]);
}
