import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../kernel/errors.js';

/** Who a request acts for, resolved once per request from its bearer token. */
export interface AuthContext {
  tenantId: string;
  organizationId: string;
  environment: 'production' | 'sandbox';
  /** What authenticated it: an API key id, an OAuth grant id or a signed-in user; used for rate limiting. */
  principalId: string;
  via: 'api_key' | 'oauth' | 'session';
}

/** Resolves a bearer token to a context, or null when the token is not of its kind. */
export type Authenticator = (token: string, request: FastifyRequest) => Promise<AuthContext | null>;

/**
 * Resolves a request without an Authorization header from its sign-in session cookie (the
 * dashboard's same-origin calls), or null when it has no signed-in session. It throws the
 * contract's errors itself (a failed CSRF or origin check, a tenant not the user's).
 */
export type SessionAuthenticator = (request: FastifyRequest) => Promise<AuthContext | null>;

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** The authenticated context of a request on a protected route. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized('missing authentication');
  return request.auth;
}

const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/=]+)$/;

/**
 * Every `/api/v1` route needs `Authorization: Bearer <token>` unless its config says `public`.
 * Authenticators are tried in order (API keys, then OAuth access tokens). A request without the
 * header may instead carry a sign-in session (docs/dashboard-api.md); with the header, a
 * session cookie is ignored.
 */
export function registerAuth(app: FastifyInstance, authenticators: Authenticator[], session?: SessionAuthenticator): void {
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/v1') || request.routeOptions.config?.public || !request.routeOptions.url) return;
    const header = request.headers.authorization;
    if (!header) {
      const context = session ? await session(request) : null;
      if (context) {
        request.auth = context;
        return;
      }
      throw unauthorized('missing Authorization header; send Authorization: Bearer <api key>');
    }
    const match = BEARER.exec(header);
    if (!match) throw unauthorized('malformed Authorization header; expected Bearer <token>');
    for (const authenticate of authenticators) {
      const context = await authenticate(match[1]!, request);
      if (context) {
        request.auth = context;
        return;
      }
    }
    throw unauthorized('invalid, expired or revoked token');
  });
}
