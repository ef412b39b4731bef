import type { Clock } from '../../kernel/clock.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Pool } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { findUserByEmail, findUserById, hashPassword, insertOrganizationWithTenants, insertUser, listMemberships, validateCredentials, validateOrganizationName, verifyPassword } from '../accounts/index.js';

export interface SignedInUser {
  id: string;
  email: string;
}

/** Merchant users of the sign-in pages: sign-up, sign-in and the organizations they belong to. */
export function createUsersService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;
  // Verifying against a real hash when the e-mail is unknown keeps both answers equally slow.
  let decoyHash: Promise<string> | undefined;

  /** A user, and when `organizationName` is given an organization with a production and a sandbox tenant. */
  async function signUp(input: { email: string; password: string; organizationName?: string }): Promise<SignedInUser> {
    const email = input.email.trim();
    validateCredentials(email, input.password);
    // Empty means no organization: express onboarding creates the merchant's own afterwards.
    const orgName = input.organizationName?.trim() ? validateOrganizationName(input.organizationName) : undefined;
    const passwordHash = await hashPassword(input.password);
    try {
      return await withTx(pool, async (tx) => {
        const now = clock.now();
        const user = { id: newId('user', now.getTime()), email, passwordHash, createdAt: now };
        await insertUser(tx, user);
        if (orgName) await insertOrganizationWithTenants(tx, { ownerUserId: user.id, name: orgName, at: now });
        return { id: user.id, email };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw conflict('an account with this e-mail already exists; sign in instead');
      throw error;
    }
  }

  async function signIn(email: string, password: string): Promise<SignedInUser | null> {
    const user = await findUserByEmail(pool, email.trim());
    if (!user) {
      decoyHash ??= hashPassword('decoy-password-for-timing');
      await verifyPassword(await decoyHash, password);
      return null;
    }
    return (await verifyPassword(user.password_hash, password)) ? { id: user.id, email: user.email } : null;
  }

  return {
    signUp,
    signIn,
    findUser: (userId: string) => findUserById(pool, userId),
    memberships: (userId: string) => listMemberships(pool, userId),
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
