import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';

// Users and organizations sit above tenants, so these statements are not tenant-scoped.

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
}

export interface MembershipRow {
  organization_id: string;
  name: string;
  role: 'ADMIN' | 'MEMBER';
}

export async function insertUser(db: Queryable, user: { id: string; email: string; passwordHash: string; createdAt: Date }): Promise<void> {
  await db.query(`INSERT INTO users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`, [user.id, user.email, user.passwordHash, user.createdAt]);
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const result = await db.query<UserRow>(`SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)`, [email]);
  return result.rows[0];
}

export async function findUserById(db: Queryable, userId: string): Promise<{ id: string; email: string } | undefined> {
  const result = await db.query<{ id: string; email: string }>(`SELECT id, email FROM users WHERE id = $1`, [userId]);
  return result.rows[0];
}

export async function insertOrganization(db: Queryable, org: { id: string; name: string; createdAt: Date }, ownerUserId: string): Promise<void> {
  await db.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)`, [org.id, org.name, org.createdAt]);
  await db.query(`INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ($1, $2, 'ADMIN', $3)`, [org.id, ownerUserId, org.createdAt]);
}

export async function insertTenant(db: Queryable, tenant: { id: string; organizationId: string; environment: 'production' | 'sandbox'; createdAt: Date }): Promise<void> {
  await db.query(`INSERT INTO tenants (id, organization_id, name, environment, created_at) VALUES ($1, $2, $3, $4, $5)`, [
    tenant.id,
    tenant.organizationId,
    tenant.environment,
    tenant.environment,
    tenant.createdAt,
  ]);
}

export async function listMemberships(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const result = await db.query<MembershipRow>(
    `SELECT m.organization_id, o.name, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id
     WHERE m.user_id = $1 ORDER BY o.name, o.id`,
    [userId],
  );
  return result.rows;
}

/** The production tenant an OAuth access token acts on (the oldest, should there be several). */
export async function findProductionTenant(db: Queryable, organizationId: string): Promise<string | undefined> {
  const result = await db.query<{ id: string }>(
    `SELECT id FROM tenants WHERE organization_id = $1 AND environment = 'production' ORDER BY created_at, id LIMIT 1`,
    [organizationId],
  );
  return result.rows[0]?.id;
}

export interface BusinessDetails {
  legalName: string;
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  zipCode: string;
  country: string;
  vatNumber: string | null;
}

/** The default invoicing entity of a freshly onboarded express tenant. */
export async function insertInvoicingEntity(db: Queryable, tenantId: string, entity: { id: string; details: BusinessDetails; at: Date }): Promise<void> {
  const d = entity.details;
  await scoped(db, tenantId).query(
    `INSERT INTO invoicing_entities (tenant_id, id, is_default, legal_name, address_line1, address_line2, city, zip_code, country, vat_number, created_at, updated_at)
     VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
    [entity.id, d.legalName, d.addressLine1, d.addressLine2, d.city, d.zipCode, d.country, d.vatNumber, entity.at],
  );
}
