import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app.js';
import type { AuthorizeRequest } from '../oauth/index.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage } from './html.js';
import type { WebSession } from './sessions.js';

const AuthorizeQuery = Type.Object({
  response_type: Type.Optional(Type.String({ description: 'Must be `code`.' })),
  client_id: Type.Optional(Type.String({ description: 'The OAuth app\'s client id.' })),
  redirect_uri: Type.Optional(Type.String({ description: 'Must exactly match a registered redirect URI.' })),
  state: Type.Optional(Type.String({ description: 'Opaque; returned unchanged.' })),
  code_challenge: Type.Optional(Type.String({ description: 'BASE64URL(SHA256(code_verifier)); required.' })),
  code_challenge_method: Type.Optional(Type.String({ description: 'S256 (default); `plain` and anything else are rejected.' })),
}, { additionalProperties: true }); // RFC 6749 section 3.1: unknown parameters are ignored

/** The authorization endpoint (RFC 6749 section 4.1.1) and its consent screen. */
export function consentPages(deps: WebDeps) {
  return (app: App) => {
    const showProblem = (reply: FastifyReply, status: number, message: string) =>
      sendPage(reply, status, 'Authorization problem', html`${errorBox(message)}<p>The application that sent you here made an invalid request. You have not been redirected back to it.</p>`);

    async function consentScreen(reply: FastifyReply, session: WebSession, request: AuthorizeRequest, error?: string) {
      const orgs = await deps.authorize.connectableOrganizations(session.user!.id);
      const preferred = orgs.find((o) => o.organization_id === session.user!.selectedOrganizationId)?.organization_id ?? orgs[0]?.organization_id;
      const params: Record<string, string | undefined> = {
        response_type: 'code',
        client_id: request.client.id,
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      };
      const body = html`
${errorBox(error)}
<p><strong>${request.client.name}</strong> asks for full access to one of your organizations: it will be able to read and change its billing data (production environment) through the API, as an API key could.</p>
<p>Signed in as ${session.user!.email}.</p>
<form method="post" action="/api/v1/oauth/authorize">
${csrfField(deps, session)}
${Object.entries(params).filter(([, v]) => v !== undefined).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${orgs.length === 0
  ? html`<p role="alert">You administer no organization that could be connected.</p>`
  : html`<label for="organization_id">Organization to connect</label>
<select id="organization_id" name="organization_id" required>
${orgs.map((o) => html`<option value="${o.organization_id}"${o.organization_id === preferred ? html` selected` : ''}>${o.name}</option>`)}
</select>`}
<button type="submit" name="decision" value="approve"${orgs.length === 0 ? html` disabled` : ''}>Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
      return sendPage(reply, error ? 400 : 200, `Connect ${request.client.name}`, body);
    }

    app.get('/api/v1/oauth/authorize', {
      config: { public: true },
      attachValidation: true,
      schema: {
        tags: ['OAuth'],
        operationId: 'oauth_authorize',
        description: 'Browser redirect (RFC 6749 section 4.1.1, PKCE S256 mandatory). Shows sign-in, then the consent screen; redirects to redirect_uri with `code` and `state`, or `error`.',
        querystring: AuthorizeQuery,
        security: [],
      },
    }, async (request, reply) => {
      const outcome = await deps.authorize.parse(request.query as Form);
      if (outcome.kind === 'page') return showProblem(reply, 400, outcome.message);
      if (outcome.kind === 'redirect') return reply.status(302).header('location', outcome.location).send();
      const session = await deps.sessions.load(request, reply);
      if (!session.user) return reply.status(302).header('location', `/signin?return_to=${encodeURIComponent(request.url)}`).send();
      return consentScreen(reply, session, outcome.request);
    });

    app.post('/api/v1/oauth/authorize', { config: { public: true, acceptsForm: true }, schema: { hide: true } }, async (request, reply) => {
      const session = await deps.sessions.load(request, reply);
      const form = request.body as Form;
      if (!deps.sessions.csrfValid(session, form?._csrf)) return sendCsrfFailure(reply);
      const outcome = await deps.authorize.parse(form);
      if (outcome.kind === 'page') return showProblem(reply, 400, outcome.message);
      if (outcome.kind === 'redirect') return seeOther(reply, outcome.location);
      if (!session.user) return seeOther(reply, '/signin');
      if (text(form, 'decision') === 'deny') return seeOther(reply, deps.authorize.deny(outcome.request));
      if (text(form, 'decision') !== 'approve') return consentScreen(reply, session, outcome.request, 'Choose Allow or Deny.');
      try {
        return seeOther(reply, await deps.authorize.approve(session.user.id, outcome.request, text(form, 'organization_id')));
      } catch (error) {
        return consentScreen(reply, session, outcome.request, statusAndMessage(error).message);
      }
    });
  };
}
