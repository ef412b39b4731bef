// The API's side of the sign-in session (docs/dashboard-api.md): a page served by this service
// (the dashboard) calls /api/v1 with the session cookie instead of an API key. GET /api/v1/session
// says who is signed in, their organizations' tenants and the CSRF token; authenticateSession
// turns a call carrying the cookie into the AuthContext of the tenant it names.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AuthContext } from '../../http/auth.js';
import { documented, ErrorBody } from '../../http/schemas.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../kernel/errors.js';
import type { AccountsService } from '../accounts/index.js';
import type { UsersService } from '../oauth/index.js';
import type { Sessions } from './sessions.js';

/** Carries the session's CSRF token on every method but GET and HEAD. */
export const CSRF_HEADER = 'x-csrf-token';
/** Names the tenant a session call acts on: one of the signed-in user's organizations' tenants. */
export const TENANT_HEADER = 'x-tenant-id';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

export interface SessionApiDeps {
  sessions: Sessions;
  users: UsersService;
  accounts: AccountsService;
  /** PUBLIC_BASE_URL: its origin is the page's origin when the service is behind a proxy. */
  publicBaseUrl: string | undefined;
}

/**
 * A call is same-origin when the browser says so: `Origin` (sent with every POST, PUT, PATCH and
 * DELETE, and with cross-origin GETs) names this service, and `Sec-Fetch-Site` is not
 * cross-site. The scheme is not compared with the request's own, which a TLS-terminating proxy
 * changes: the host is.
 */
function checkSameOrigin(request: FastifyRequest, publicBaseUrl: string | undefined): void {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw forbidden(`a session call must come from a page of this service; Sec-Fetch-Site was ${site}`);
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (!sameHost(origin, request.host) && (!publicBaseUrl || origin !== new URL(publicBaseUrl).origin)) {
    throw forbidden(`a session call must come from a page of this service; Origin ${origin} is another site (use an API key for calls from elsewhere)`);
  }
}

/** Whether `origin` names `host` (the Host header), default ports aside (`http://a:80` is `a`). */
function sameHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

export function createSessionApi(deps: SessionApiDeps) {
  /**
   * The AuthContext of a call without an Authorization header, from its session cookie: null
   * without a signed-in session (the caller answers 401). Refused with 403 from another site or,
   * on a method other than GET and HEAD, without the session's CSRF token; with 400 without
   * `X-Tenant-Id`; with 404 when that tenant is not one of the user's (as an unknown id).
   */
  async function authenticateSession(request: FastifyRequest): Promise<AuthContext | null> {
    const session = await deps.sessions.signedIn(request);
    if (!session) return null;
    checkSameOrigin(request, deps.publicBaseUrl);
    if (!SAFE_METHODS.has(request.method) && !deps.sessions.csrfValid(session, request.headers[CSRF_HEADER])) {
      throw forbidden(`missing or invalid X-CSRF-Token header; a session call with ${request.method} must send the csrf_token of GET /api/v1/session`);
    }
    const tenantId = request.headers[TENANT_HEADER];
    if (typeof tenantId !== 'string' || tenantId === '') {
      throw badRequest('X-Tenant-Id is required (header): the id of the tenant to act on, one of the tenants of GET /api/v1/session, e.g. ten_01KKRNW4G033QP0Y3B12Z4WDQG');
    }
    const tenant = await deps.accounts.tenantOfMember(session.user!.id, tenantId);
    if (!tenant) throw notFound('tenant');
    return { tenantId: tenant.id, organizationId: tenant.organization_id, environment: tenant.environment, principalId: `session:${session.user!.id}`, via: 'session' };
  }

  return { authenticateSession };
}

const SessionTenant = Type.Object({
  id: Type.String(),
  name: Type.String(),
  environment: Type.Union([Type.Literal('production'), Type.Literal('sandbox')]),
});
const SessionOrganization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal('ADMIN'), Type.Literal('MEMBER')]),
  tenants: Type.Array(SessionTenant),
});
const SessionBody = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String() }),
  organizations: Type.Array(SessionOrganization),
  selected_organization_id: Type.Union([Type.String(), Type.Null()]),
  csrf_token: Type.String(),
});

const sessionExample = {
  user: { id: 'user_01KKRNW4G033QP0Y3B12Z4WDQF', email: 'admin@example.com' },
  organizations: [{
    id: 'org_01KKRNW4G033QP0Y3B12Z4WDQD',
    name: 'My organization',
    role: 'ADMIN' as const,
    tenants: [
      { id: 'ten_01KKRNW4G033QP0Y3B12Z4WDQE', name: 'My organization (production)', environment: 'production' as const },
      { id: 'ten_01KKRNW4G033QP0Y3B12Z4WDQG', name: 'My organization (sandbox)', environment: 'sandbox' as const },
    ],
  }],
  selected_organization_id: 'org_01KKRNW4G033QP0Y3B12Z4WDQD',
  csrf_token: 'kq3zD4pLw0b6rS9uVx2yA1cE5fG7hJ8iK0mN3oP4qRs',
};

/** GET /api/v1/session: the dashboard's first call. */
export function sessionRoutes(deps: SessionApiDeps) {
  return (app: App) => {
    app.get('/api/v1/session', {
      // No bearer token: this operation reads the sign-in session cookie itself.
      config: { public: true },
      schema: {
        tags: ['Dashboard session'],
        operationId: 'get_session',
        summary: 'Get the sign-in session',
        description:
          'For pages of this service (the dashboard), called with the sign-in session cookie (`billing_session`, set by `/signin`) and no Authorization header. ' +
          'Answers who is signed in, the organizations they belong to with their `production` and `sandbox` tenants, and the session\'s `csrf_token`. ' +
          'With the same cookie, every `/api/v1` operation then accepts calls from the same origin that send `X-Tenant-Id` (one of these tenants) and, on methods other than GET and HEAD, ' +
          '`X-CSRF-Token: <csrf_token>` (docs/dashboard-api.md). 401 when nobody is signed in with the cookie.',
        security: [],
        response: {
          200: documented(SessionBody, 'The signed-in user, their organizations and tenants, and the CSRF token of the session.', sessionExample),
          401: documented(ErrorBody, 'Nobody is signed in with this cookie (none sent, expired or signed out): sign in at /signin.', { code: 'UNAUTHORIZED', message: 'not signed in; sign in at /signin' }),
        },
      },
    }, async (request, reply) => {
      const session = await deps.sessions.signedIn(request);
      if (!session) throw unauthorized('not signed in; sign in at /signin');
      checkSameOrigin(request, deps.publicBaseUrl);
      const user = session.user!;
      const memberships = await deps.users.memberships(user.id);
      const organizations = await Promise.all(memberships.map(async (m) => ({
        id: m.organization_id,
        name: m.name,
        role: m.role,
        tenants: (await deps.accounts.tenantsOfOrganization(m.organization_id)).map((t) => ({ id: t.id, name: t.name, environment: t.environment })),
      })));
      // the answer holds the CSRF token: no cache may keep it
      void reply.header('cache-control', 'no-store');
      return { user: { id: user.id, email: user.email }, organizations, selected_organization_id: user.selectedOrganizationId, csrf_token: deps.sessions.csrfToken(session) };
    });
  };
}
