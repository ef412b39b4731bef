import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app.js';
import { ENVIRONMENT_LABEL, sendAccountPage } from './account-pages.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage, utcMinute } from './html.js';

const hidden = { schema: { hide: true } } as const;
const MAX_KEY_NAME_LENGTH = 200;

interface KeyParams {
  tenant_id: string;
  api_key_id: string;
}

/**
 * Creating and revoking API keys from the account page. Every route first finds the tenant among
 * the signed-in user's organizations: another organization's tenant (or key) answers the same
 * not-found page as an unknown id, and nothing changes.
 */
export function apiKeysPages(deps: WebDeps) {
  return (app: App) => {
    const notFoundPage = (reply: FastifyReply) =>
      sendPage(reply, 404, 'Not found', html`${errorBox('No such environment or API key in your organizations.')}<p><a href="/account">Back to your account</a></p>`);

    app.post('/account/tenants/:tenant_id/api-keys', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      if (!session.user) return seeOther(reply, '/signin');
      const tenant = await deps.accounts.tenantOfMember(session.user.id, (request.params as KeyParams).tenant_id);
      if (!tenant) return notFoundPage(reply);
      const name = text(form, 'name').trim();
      if (!name || name.length > MAX_KEY_NAME_LENGTH) {
        const error = `The name of a new ${tenant.environment} key must be 1 to ${MAX_KEY_NAME_LENGTH} characters, e.g. "Checkout server".`;
        return sendAccountPage(deps, reply, session, { status: 400, error });
      }
      const created = await deps.accounts.createApiKey(tenant.id, name);
      // The secret exists only in this response (no-store, never in a URL): the database keeps its hash.
      return sendPage(reply, 200, 'Your new API key', html`
<div class="notice" role="alert"><p><strong>Copy it now; it will not be shown again.</strong> Only a hash of the key is stored. If you lose it, revoke it and create another.</p></div>
<label for="api-key">Key "${created.name}" of ${tenant.organization_name}, ${ENVIRONMENT_LABEL[tenant.environment]} environment</label>
<input id="api-key" class="secret" readonly value="${created.key}" autocomplete="off" spellcheck="false" aria-describedby="api-key-use">
<p id="api-key-use">Send it with every API request in the header <code>Authorization: Bearer &lt;key&gt;</code>. It acts on the ${tenant.environment} environment only. In your list of keys it appears as <code>${created.hint}</code>.</p>
<p><a href="/account#tenant-${tenant.id}">Back to your account</a></p>`);
    });

    app.get('/account/tenants/:tenant_id/api-keys/:api_key_id/revoke', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!session.user) return seeOther(reply, `/signin?return_to=${encodeURIComponent(request.url)}`);
      const params = request.params as KeyParams;
      const tenant = await deps.accounts.tenantOfMember(session.user.id, params.tenant_id);
      const key = tenant && (await deps.accounts.listApiKeys(tenant.id)).find((k) => k.id === params.api_key_id);
      if (!tenant || !key) return notFoundPage(reply);
      const back = html`<p><a href="/account#tenant-${tenant.id}">Back to your account</a></p>`;
      if (key.revoked_at) return sendPage(reply, 200, 'Revoke an API key', html`<p>The key "${key.name}" (<code>${key.hint}</code>) was already revoked on ${utcMinute(key.revoked_at)} UTC.</p>${back}`);
      return sendPage(reply, 200, 'Revoke an API key', html`
<p>Revoke the key "<strong>${key.name}</strong>" (<code>${key.hint}</code>) of ${tenant.organization_name}, ${tenant.environment} environment?</p>
<p>Every request that uses it is refused from the moment you confirm. This cannot be undone.</p>
<form method="post" action="/account/tenants/${tenant.id}/api-keys/${key.id}/revoke">
${csrfField(deps, session)}
<button type="submit">Revoke this key</button>
</form>
<p><a href="/account#tenant-${tenant.id}">Cancel and keep the key</a></p>`);
    });

    app.post('/account/tenants/:tenant_id/api-keys/:api_key_id/revoke', hidden, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      if (!deps.sessions.csrfValid(session, (request.body as Form)?._csrf)) return sendCsrfFailure(reply);
      if (!session.user) return seeOther(reply, '/signin');
      const params = request.params as KeyParams;
      const tenant = await deps.accounts.tenantOfMember(session.user.id, params.tenant_id);
      if (!tenant) return notFoundPage(reply);
      try {
        await deps.accounts.revokeApiKey(tenant.id, params.api_key_id);
      } catch (error) {
        if (statusAndMessage(error).status === 404) return notFoundPage(reply);
        throw error;
      }
      return seeOther(reply, `/account?revoked=1#tenant-${tenant.id}`);
    });
  };
}
