import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app.js';
import type { TenantRow } from '../accounts/index.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage, utcMinute, type Html } from './html.js';
import type { WebSession } from './sessions.js';

const hidden = { schema: { hide: true } } as const;

/** Status lines shown after a redirect (`/account?done=...`); unknown values show nothing. */
const NOTICES: Record<string, string> = {
  saved: 'Current organization saved.',
  created: 'Organization created, with a production and a sandbox environment.',
  revoked: 'API key revoked. Requests that use it are refused from now on.',
};

export const ENVIRONMENT_LABEL = { production: 'Production', sandbox: 'Sandbox' } as const;

/** The environment's title with a badge, so the sandbox is never mistaken for live data. */
function environmentTitle(tenant: Pick<TenantRow, 'environment'>): Html {
  return tenant.environment === 'sandbox'
    ? html`${ENVIRONMENT_LABEL.sandbox} <span class="badge test">test data</span>`
    : html`${ENVIRONMENT_LABEL.production} <span class="badge live">live data</span>`;
}

type ApiKeyRow = Awaited<ReturnType<WebDeps['accounts']['listApiKeys']>>[number];

/**
 * The account page: organization picker (or, with none, a form to create one), then each
 * environment (tenant) of the current organization with its API keys, a form to create one and a
 * Revoke button per key. `status` and `error` let a failed form re-render the page.
 */
export async function sendAccountPage(deps: WebDeps, reply: FastifyReply, session: WebSession, options: { status?: number; error?: string; notice?: string } = {}): Promise<FastifyReply> {
  const user = session.user!;
  const memberships = await deps.users.memberships(user.id);
  const current = memberships.find((m) => m.organization_id === user.selectedOrganizationId) ?? memberships[0];
  const tenants = current ? await deps.accounts.tenantsOfOrganization(current.organization_id) : [];
  const keys = await Promise.all(tenants.map((t) => deps.accounts.listApiKeys(t.id)));

  const keyRow = (tenant: TenantRow, key: ApiKeyRow) => html`<tr><td>${key.name}</td><td><code>${key.hint}</code></td><td>${utcMinute(key.created_at)}</td>
<td>${key.last_used_at ? utcMinute(key.last_used_at) : 'never'}</td><td>${key.revoked_at ? `revoked ${utcMinute(key.revoked_at)}` : 'active'}</td>
<td>${key.revoked_at ? '' : html`<form method="get" action="/account/tenants/${tenant.id}/api-keys/${key.id}/revoke"><button type="submit" aria-label="Revoke key ${key.name} (${key.hint})">Revoke</button></form>`}</td></tr>`;

  const tenantSection = (tenant: TenantRow, tenantKeys: ApiKeyRow[]) => {
    const env = tenant.environment;
    return html`<section id="tenant-${tenant.id}" class="${env}" aria-labelledby="tenant-${tenant.id}-title">
<h3 id="tenant-${tenant.id}-title">${environmentTitle(tenant)}</h3>
<p>Tenant id <code>${tenant.id}</code>, environment <code>${env}</code>. ${env === 'sandbox' ? 'For trying things out: its data is kept apart from production. Its keys start with ' : 'Live billing data. Its keys start with '}<code>${env === 'sandbox' ? 'sk_sandbox_' : 'sk_prod_'}</code>.</p>
${tenantKeys.length === 0
  ? html`<p>No API key yet.</p>`
  : html`<table><caption>API keys of the ${env} environment</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created (UTC)</th><th scope="col">Last used (UTC)</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${tenantKeys.map((k) => keyRow(tenant, k))}</tbody></table>`}
<form method="post" action="/account/tenants/${tenant.id}/api-keys">
${csrfField(deps, session)}
<label for="key-name-${tenant.id}">Name of a new ${env} key</label>
<input id="key-name-${tenant.id}" name="name" required maxlength="200" autocomplete="off" aria-describedby="key-name-${tenant.id}-help">
<p id="key-name-${tenant.id}-help">Say where it will be used, e.g. "Checkout server". The key is shown once, on the next page.</p>
<button type="submit">Create ${env} key</button>
</form>
</section>`;
  };

  const body = html`
${errorBox(options.error)}
${options.notice ? html`<p role="status">${options.notice}</p>` : ''}
<p>Signed in as <strong>${user.email}</strong>.</p>
${current === undefined
  ? html`<h2>Create your organization</h2>
<p>You are not a member of any organization yet. An organization has a production and a sandbox environment, each with its own API keys.</p>
<form method="post" action="/account/organizations">
${csrfField(deps, session)}
<label for="organization_name">Organization name</label>
<input id="organization_name" name="name" autocomplete="organization" required maxlength="200">
<button type="submit">Create organization</button>
</form>`
  : html`<h2>Organization</h2>
<form method="post" action="/account/organization">
${csrfField(deps, session)}
<fieldset><legend>Current organization</legend>
${memberships.map((m) => html`<div><input type="radio" id="org-${m.organization_id}" name="organization_id" value="${m.organization_id}"${current.organization_id === m.organization_id ? html` checked` : ''}>
<label for="org-${m.organization_id}">${m.name} (${m.role === 'ADMIN' ? 'administrator' : 'member'})</label></div>`)}
</fieldset>
<button type="submit">Use this organization</button>
</form>
<h2>Environments and API keys of ${current.name}</h2>
<p>Every API request carries one key, as <code>Authorization: Bearer sk_…</code>, and acts on that key's environment only.</p>
${tenants.map((t, i) => tenantSection(t, keys[i]!))}`}
<h2>More</h2>
<p><a href="/">Open the dashboard</a></p>
<p><a href="/account/connections">Connected applications</a></p>
<form method="post" action="/signout">${csrfField(deps, session)}<button type="submit">Sign out</button></form>`;
  return sendPage(reply, options.status ?? 200, 'Your account', body);
}

/** The account page, the organization picker and creating an organization. */
export function accountPages(deps: WebDeps) {
  return (app: App) => {
    app.get('/account', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!session.user) return seeOther(reply, `/signin?return_to=${encodeURIComponent('/account')}`);
      const query = request.query as Form;
      const done = Object.keys(NOTICES).find((name) => query[name] === '1');
      return sendAccountPage(deps, reply, session, { notice: done && NOTICES[done] });
    });

    app.post('/account/organization', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      if (!session.user) return seeOther(reply, '/signin');
      const memberships = await deps.users.memberships(session.user.id);
      const chosen = memberships.find((m) => m.organization_id === text(form, 'organization_id'));
      if (!chosen) return sendPage(reply, 400, 'Your account', errorBox('Pick one of your organizations.'));
      await deps.sessions.selectOrganization(session, chosen.organization_id);
      return seeOther(reply, '/account?saved=1');
    });

    app.post('/account/organizations', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      if (!session.user) return seeOther(reply, '/signin');
      try {
        const organization = await deps.accounts.createOrganization(session.user.id, text(form, 'name'));
        await deps.sessions.selectOrganization(session, organization.id);
      } catch (error) {
        const { status, message } = statusAndMessage(error);
        return sendAccountPage(deps, reply, session, { status, error: message });
      }
      return seeOther(reply, '/account?created=1');
    });
  };
}
