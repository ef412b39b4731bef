import type { Queryable } from '../../db/pool.js';

// Browser sessions belong to users, not tenants, so these statements are not tenant-scoped.

export interface SessionRow {
  user_id: string;
  selected_organization_id: string | null;
}

export async function insertSession(db: Queryable, row: { idHash: string; userId: string; createdAt: Date; expiresAt: Date }): Promise<void> {
  await db.query(`INSERT INTO web_sessions (id_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`, [row.idHash, row.userId, row.createdAt, row.expiresAt]);
}

export async function findSession(db: Queryable, idHash: string, now: Date): Promise<SessionRow | undefined> {
  const result = await db.query<SessionRow>(`SELECT user_id, selected_organization_id FROM web_sessions WHERE id_hash = $1 AND expires_at > $2`, [idHash, now]);
  return result.rows[0];
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query(`DELETE FROM web_sessions WHERE id_hash = $1`, [idHash]);
}

export async function selectOrganization(db: Queryable, idHash: string, organizationId: string): Promise<void> {
  await db.query(`UPDATE web_sessions SET selected_organization_id = $2 WHERE id_hash = $1`, [idHash, organizationId]);
}
