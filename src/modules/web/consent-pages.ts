import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app.js';
import type { AuthorizeRequest } from '../oauth/index.js';
import { csrfField, sendCsrfFailure, statusAndMessage, text, type Form, type WebDeps } from './deps.js';
import { errorBox, html, seeOther, sendPage } from './html.js';
import type { WebSession } from './sessions.js';

const AuthorizeQuery = Type.Object({
  response_type: Type.Optional(Type.String({ description: 'Must be `code`.', examples: ['code'] })),
  client_id: Type.Optional(Type.String({ description: 'The OAuth app\'s client id.', examples: ['app_01KKRNW4G0J9M0T97HSMTTZGH4'] })),
  redirect_uri: Type.Optional(Type.String({ description: 'Must exactly match a registered redirect URI.', examples: ['https://platform.example.com/oauth/callback'] })),
  state: Type.Optional(Type.String({ description: 'Opaque; returned unchanged.', examples: ['af0ifjsldkj'] })),
  code_challenge: Type.Optional(Type.String({ description: 'BASE64URL(SHA256(code_verifier)); required.', examples: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'] })),
  code_challenge_method: Type.Optional(Type.String({ description: 'S256 (default); `plain` and anything else are rejected.', examples: ['S256'] })),
}, { additionalProperties: true }); // RFC 6749 section 3.1: unknown parameters are ignored

/** An HTML page answer of the authorization endpoint, for the OpenAPI document. */
const htmlPage = (description: string, example: string) => ({ description, content: { 'text/html': { schema: Type.String({ contentMediaType: 'text/html', examples: [example] }) } } });
const AuthorizeResponses = {
  200: htmlPage(
    'The consent screen (the user is signed in): the app\'s name, the organizations the user administers, Allow and Deny',
    '<!doctype html><html lang="en"><head><title>Connect Acme Platform</title></head><body><main><h1>Connect Acme Platform</h1>' +
      '<form method="post" action="/api/v1/oauth/authorize">...<button type="submit" name="decision" value="approve">Allow</button>' +
      '<button type="submit" name="decision" value="deny">Deny</button></form></main></body></html>',
  ),
  // No body at all: the handler calls `send()`, which a reply typed `unknown` allows.
  302: Type.Unsafe<unknown>({
    type: 'null',
    description:
      'A redirect (`Location` header): to `/signin?return_to=...` when the user is not signed in; or, for a protocol error once the client and redirect URI are known, ' +
      'to `redirect_uri?error=...&error_description=...&state=...`',
  }),
  400: htmlPage(
    'An error page on this site, never a redirect: unknown or missing `client_id`, or a `redirect_uri` that is missing or not registered for the app',
    '<!doctype html><html lang="en"><head><title>Authorization problem</title></head><body><main><h1>Authorization problem</h1>' +
      '<div class="error" role="alert"><p>redirect_uri is not registered for this application</p></div></main></body></html>',
  ),
};

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
        summary: 'Authorization endpoint (browser)',
        description:
          'Where a platform sends the merchant\'s browser (RFC 6749 section 4.1.1, PKCE S256 mandatory); not called with an API key. An unknown client or an unregistered ' +
          '`redirect_uri` shows an error page here (400). Other protocol errors redirect to `redirect_uri` with `error` and `state`: a `response_type` other than `code` ' +
          '(`unsupported_response_type`; missing: `invalid_request`), a missing or malformed `code_challenge` or a method other than S256 (`invalid_request`). ' +
          'A user who is not signed in is sent to sign in (or sign up) and comes back. The consent screen then names the app and lists the organizations the user administers; ' +
          'Allow answers `303 redirect_uri?code=oac_...&state=...` (the code lives 10 minutes; exchange it at `POST /api/v1/oauth/token`), Deny ' +
          '`303 redirect_uri?error=access_denied&state=...`. Approving opens (or reuses) the standard connected account between the app\'s tenant and the organization.',
        querystring: AuthorizeQuery,
        security: [],
        response: AuthorizeResponses,
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
