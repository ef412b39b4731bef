import type { App } from '../../http/app.js';
import { unauthorized } from '../../kernel/errors.js';
import type { WebDeps } from './deps.js';

const hidden = { schema: { hide: true } } as const;

/**
 * What the dashboard (docs/dashboard.md) needs from the sign-in session before its first API
 * call: who is signed in, the organizations they belong to with their tenants (the only ones the
 * dashboard offers), and the CSRF token its API calls carry. Signed out: 401, and the app sends
 * the browser to /signin.
 */
export function dashboardSessionPage(deps: WebDeps) {
  return (app: App) => {
    app.get('/account/session', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      reply.header('cache-control', 'no-store');
      if (!session.user) throw unauthorized('not signed in; sign in at /signin');
      const memberships = await deps.users.memberships(session.user.id);
      const organizations = await Promise.all(
        memberships.map(async (m) => ({
          id: m.organization_id,
          name: m.name,
          role: m.role,
          tenants: (await deps.accounts.tenantsOfOrganization(m.organization_id)).map((t) => ({ id: t.id, environment: t.environment })),
        })),
      );
      return {
        user: { id: session.user.id, email: session.user.email },
        selected_organization_id: session.user.selectedOrganizationId,
        csrf_token: deps.sessions.csrfToken(session),
        organizations,
      };
    });
  };
}
