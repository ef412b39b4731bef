import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MS_PER_HOUR, type Clock } from '../../kernel/clock.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool } from '../../db/pool.js';
import { findUserById } from '../accounts/index.js';
import { parseCookies, serializeCookie } from './cookies.js';
import * as repo from './sessions-repository.js';

export const SESSION_COOKIE = 'billing_session';
export const SESSION_TTL_MS = 12 * MS_PER_HOUR;

export interface WebSession {
  /** The cookie value; every visitor has one, signed in or not, so forms carry a CSRF token. */
  sid: string;
  user?: { id: string; email: string; selectedOrganizationId: string | null };
}

/**
 * Session cookie and CSRF protection of the HTML pages. A visitor gets a random anonymous id
 * first; signing in replaces it with a new id stored (hashed) with the user, so an id planted
 * before sign-in is worthless after it. CSRF tokens are an HMAC of the id under the server
 * secret: nothing to store, and a token from another session never verifies.
 */
export function createSessions(deps: { pool: Pool; clock: Clock; secretKey: string; secureCookies: boolean }) {
  const { pool, clock } = deps;

  /** Secure when the public URL is https or the request itself came over https. */
  function setCookie(reply: FastifyReply, sid: string): void {
    const secure = deps.secureCookies || reply.request.protocol === 'https';
    reply.header('set-cookie', serializeCookie(SESSION_COOKIE, sid, { maxAgeSeconds: SESSION_TTL_MS / 1000, secure }));
  }

  /** The request's session cookie value, when it has the shape this service issues. */
  function sidOf(request: FastifyRequest): string | undefined {
    const sid = parseCookies(request.headers.cookie)[SESSION_COOKIE];
    return sid && /^[A-Za-z0-9]{40}$/.test(sid) ? sid : undefined;
  }

  /** The request's session, or just its id when nobody is signed in with it. */
  async function read(sid: string): Promise<WebSession> {
    const row = await repo.findSession(pool, hashSecret(sid), clock.now());
    const user = row ? await findUserById(pool, row.user_id) : undefined;
    return row && user ? { sid, user: { id: user.id, email: user.email, selectedOrganizationId: row.selected_organization_id } } : { sid };
  }

  /** Reads the session, issuing an anonymous cookie to a first-time visitor. */
  async function load(request: FastifyRequest, reply: FastifyReply): Promise<WebSession> {
    const sid = sidOf(request);
    if (!sid) {
      const fresh = randomToken(40);
      setCookie(reply, fresh);
      return { sid: fresh };
    }
    return read(sid);
  }

  /** The signed-in session of an API call, or undefined; an API call never gets a cookie. */
  async function signedIn(request: FastifyRequest): Promise<WebSession | undefined> {
    const sid = sidOf(request);
    const session = sid ? await read(sid) : undefined;
    return session?.user ? session : undefined;
  }

  function csrfToken(session: WebSession): string {
    return createHmac('sha256', deps.secretKey).update(`csrf:${session.sid}`).digest('base64url');
  }

  function csrfValid(session: WebSession, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(csrfToken(session));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  async function signIn(reply: FastifyReply, userId: string): Promise<void> {
    const sid = randomToken(40);
    const now = clock.now();
    await repo.insertSession(pool, { idHash: hashSecret(sid), userId, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_MS) });
    setCookie(reply, sid);
  }

  async function signOut(reply: FastifyReply, session: WebSession): Promise<void> {
    await repo.deleteSession(pool, hashSecret(session.sid));
    setCookie(reply, randomToken(40));
  }

  async function selectOrganization(session: WebSession, organizationId: string): Promise<void> {
    await repo.selectOrganization(pool, hashSecret(session.sid), organizationId);
  }

  return { load, signedIn, csrfToken, csrfValid, signIn, signOut, selectOrganization };
}

export type Sessions = ReturnType<typeof createSessions>;
