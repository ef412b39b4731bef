// The members of an organization (GET/POST/DELETE /api/v1/members): the users who can sign in to
// it, with their role. Users and memberships sit above tenants, so nothing here is tenant-scoped:
// the caller's tenant only says which organization.
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, badRequest, conflict, forbidden } from '../../kernel/errors.js';
import type { AuthContext } from '../../http/auth.js';

export type MemberRole = 'ADMIN' | 'MEMBER';

export interface MemberRow {
  id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SESSION_PRINCIPAL = 'session:';

async function listMemberRows(db: Queryable, organizationId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT u.id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1 ORDER BY m.created_at, u.id`,
    [organizationId],
  );
  return rows;
}

async function findMemberRow(db: Queryable, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT u.id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND m.user_id = $2`,
    [organizationId, userId],
  );
  return rows[0];
}

/**
 * Adding and removing members changes who reaches both environments of the organization, so
 * only an administrator signed in to the dashboard may do it: an API key belongs to one tenant
 * (a sandbox key must not grant production access) and an OAuth grant to a third party.
 */
async function requireSignedInAdmin(db: Queryable, auth: AuthContext): Promise<string> {
  if (auth.via !== 'session' || !auth.principalId.startsWith(SESSION_PRINCIPAL)) {
    throw forbidden('members are added and removed by an administrator signed in to the dashboard; an API key or OAuth token may only list them');
  }
  const userId = auth.principalId.slice(SESSION_PRINCIPAL.length);
  const me = await findMemberRow(db, auth.organizationId, userId);
  if (me?.role !== 'ADMIN') throw forbidden('only an administrator of the organization may add or remove members; ask one of its ADMIN members');
  return userId;
}

export function createMembersService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;
  return {
    list: (auth: AuthContext) => listMemberRows(pool, auth.organizationId),

    /** An existing user (they sign up first) joins the caller's organization with `role`. */
    async add(auth: AuthContext, input: { email: string; role?: MemberRole }): Promise<MemberRow> {
      const email = input.email.trim();
      if (!EMAIL.test(email)) throw badRequest(`email must be an e-mail address, e.g. "ana@example.com"; got ${JSON.stringify(input.email)}`);
      const role = input.role ?? 'MEMBER';
      return withTx(pool, async (tx) => {
        await requireSignedInAdmin(tx, auth);
        const { rows } = await tx.query<{ id: string }>(`SELECT id FROM users WHERE lower(email) = lower($1)`, [email]);
        const user = rows[0];
        if (!user) throw new AppError('NOT_FOUND', `email matches no user (${email}); they sign up at /signup first, then you add them`);
        try {
          await tx.query(`INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)`, [auth.organizationId, user.id, role, clock.now()]);
        } catch (error) {
          if (isUniqueViolation(error)) throw conflict(`email ${email} is already a member of this organization`);
          throw error;
        }
        return (await findMemberRow(tx, auth.organizationId, user.id))!;
      });
    },

    /** Removes a member; the organization always keeps at least one administrator. */
    async remove(auth: AuthContext, userId: string): Promise<void> {
      await withTx(pool, async (tx) => {
        // The organization row is the lock that serializes concurrent removals, so two admins
        // removing each other at once cannot leave it without one.
        await tx.query(`SELECT id FROM organizations WHERE id = $1 FOR UPDATE`, [auth.organizationId]);
        await requireSignedInAdmin(tx, auth);
        const member = await findMemberRow(tx, auth.organizationId, userId);
        if (!member) throw new AppError('NOT_FOUND', 'member not found');
        if (member.role === 'ADMIN') {
          const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM organization_members WHERE organization_id = $1 AND role = 'ADMIN'`, [auth.organizationId]);
          if (rows[0]!.n <= 1) throw conflict(`${member.email} is the last administrator of this organization; add another administrator first`);
        }
        await tx.query(`DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2`, [auth.organizationId, userId]);
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
