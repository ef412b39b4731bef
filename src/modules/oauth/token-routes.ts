import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { documented } from '../../http/schemas.js';
import { AppError } from '../../kernel/errors.js';
import type { OAuthClientRow } from './apps-repository.js';
import { parseBasicAuth } from './client-auth.js';
import { OAuthError, sendOAuthError } from './oauth-errors.js';
import type { TokenService } from './token-service.js';
import * as ex from './examples.js';

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
/** RFC 6749 section 5.2 errors, as these endpoints answer them (never our `{code, message}`). */
const OAuthBadRequest = documented(
  OAuthErrorBody,
  'RFC 6749 error: `invalid_request` (a required field is missing, the body is not form-encoded), `invalid_grant` (code or refresh token unknown, issued to ' +
    'another client, expired, used or revoked; redirect URI or PKCE verifier mismatch), `unsupported_grant_type`',
  { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge (PKCE S256)' },
);
const OAuthUnauthorized = documented(
  OAuthErrorBody,
  'RFC 6749 `invalid_client`, with `WWW-Authenticate: Basic`: no or malformed HTTP Basic credentials, unknown client, wrong or rotated secret, or a body `client_id` that differs',
  { error: 'invalid_client', error_description: 'client authentication failed: unknown client_id or wrong client_secret' },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.String({ description: 'Always Bearer' }),
  expires_in: Type.Integer({ description: 'Seconds; access tokens live 1 hour' }),
  refresh_token: Type.String({ description: 'Lives 30 days; rotated on every use' }),
});

const IntrospectionResponse = Type.Object({
  active: Type.Boolean(),
  client_id: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String({ description: '`Bearer` for access tokens, `refresh_token` for refresh tokens' })),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  sub: Type.Optional(Type.String({ description: 'The user who consented' })),
  organization_id: Type.Optional(Type.String()),
  tenant_id: Type.Optional(Type.String({ description: 'The tenant the token acts on' })),
  connected_account_id: Type.Optional(Type.String()),
});

const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'authorization_code or refresh_token' })),
  code: Type.Optional(Type.String()),
  redirect_uri: Type.Optional(Type.String()),
  code_verifier: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
});

const TokenOnlyRequest = Type.Object({
  token: Type.Optional(Type.String()),
  token_type_hint: Type.Optional(Type.String({ description: 'access_token or refresh_token; optional, the token is found either way' })),
});

const FORM = 'application/x-www-form-urlencoded';

/** Everything that goes wrong on these routes is answered as RFC 6749 JSON, framework errors included. */
function oauthErrorHandler(error: Error & { statusCode?: number }, _request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OAuthError) return sendOAuthError(reply, error);
  // The app's own refusals (the text guard's NUL or unpaired surrogate, a charset other than
  // UTF-8, the rate limit) are client mistakes: RFC 6749 `invalid_request`, keeping 413 and 429.
  if (error instanceof AppError && error.status < 500) {
    return sendOAuthError(reply, new OAuthError('invalid_request', error.message, error.status === 413 || error.status === 429 ? error.status : 400));
  }
  if (error.statusCode && error.statusCode < 500) return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
  reply.log.error({ err: error }, 'oauth endpoint failed');
  return sendOAuthError(reply, new OAuthError('server_error', 'internal error; quote the x-request-id header to support', 500));
}

export function oauthTokenRoutes(service: TokenService) {
  return (app: App) => {
    const tags = ['OAuth'];
    const options = (operationId: string, summary: string, description: string, body: typeof TokenRequest | typeof TokenOnlyRequest, response: Record<number, unknown>) => ({
      config: { public: true, acceptsForm: true },
      attachValidation: true,
      errorHandler: oauthErrorHandler,
      schema: {
        tags, operationId, summary, description, consumes: [FORM], security: [], body,
        response: { ...response, 400: OAuthBadRequest, 401: OAuthUnauthorized },
      },
    });

    /** Form body and HTTP Basic client credentials, the common preamble of the three endpoints. */
    async function authenticate(request: FastifyRequest): Promise<{ client: OAuthClientRow; body: Record<string, unknown> }> {
      const credentials = parseBasicAuth(request.headers.authorization);
      const contentType = String(request.headers['content-type'] ?? '');
      if (!contentType.toLowerCase().startsWith(FORM)) throw new OAuthError('invalid_request', `the body must be ${FORM}`);
      if (request.validationError) throw new OAuthError('invalid_request', request.validationError.message);
      const client = await service.authenticateClient(credentials);
      return { client, body: (request.body ?? {}) as Record<string, unknown> };
    }

    const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

    app.post('/api/v1/oauth/token', options(
      'oauth_token',
      'Exchange an authorization code or a refresh token for tokens',
      'RFC 6749 token endpoint, form-encoded body, client authentication by HTTP Basic `client_id:client_secret` only. ' +
        '`grant_type=authorization_code` with `code`, `redirect_uri` (equal to the authorization request\'s) and `code_verifier` (PKCE S256): a code lives 10 minutes and is ' +
        'spent by the first attempt whatever its outcome; presenting a used code again revokes every token of its grant. `grant_type=refresh_token` with `refresh_token`: ' +
        'answers a new pair and spends the old refresh token (rotation); presenting a spent one again revokes the whole grant. Access tokens live 1 hour, refresh tokens 30 days; ' +
        'there are no scopes (a token acts like an API key of the connected organization\'s production tenant). Answers carry `Cache-Control: no-store`.',
      documented(TokenRequest, 'Form fields of one of the two grants', ex.authorizationCodeExample, ex.refreshTokenExample),
      { 200: documented(TokenResponse, 'A new access token and refresh token', ex.tokenExample) },
    ), async (request, reply) => {
      const { client, body } = await authenticate(request);
      return noStore(reply).send(await service.token(client, body));
    });

    app.post('/api/v1/oauth/introspect', options(
      'oauth_introspect',
      'Introspect an access or refresh token',
      'RFC 7662, form-encoded body, HTTP Basic client authentication. A usable token issued to the calling client answers `active: true` with its client, type ' +
        '(`Bearer` or `refresh_token`), expiry and issue time (Unix seconds), the user who consented, the organization, tenant and connected account. Anything else ' +
        '(unknown, expired, revoked, spent, disconnected, or issued to another client) answers only `active: false`. `token_type_hint` is accepted and not needed.',
      documented(TokenOnlyRequest, 'The token to describe', ex.introspectRequestExample),
      { 200: documented(IntrospectionResponse, 'What the token is, or `active: false`', ex.activeTokenExample, { active: false }) },
    ), async (request, reply) => {
      const { client, body } = await authenticate(request);
      return noStore(reply).send(await service.introspect(client, body));
    });

    app.post('/api/v1/oauth/revoke', options(
      'oauth_revoke',
      'Revoke an access or refresh token',
      'RFC 7009, form-encoded body, HTTP Basic client authentication: always 200 with an empty body for an authenticated client, whether or not the token existed. ' +
        'An access token is revoked alone; a refresh token revokes its whole grant, access tokens included. A token of another client is left untouched.',
      documented(TokenOnlyRequest, 'The token to revoke', ex.revokeRequestExample),
      { 200: Type.Null({ description: 'Revoked (or nothing to revoke); the body is empty' }) },
    ), async (request, reply) => {
      const { client, body } = await authenticate(request);
      await service.revoke(client, body);
      return noStore(reply).status(200).send();
    });
  };
}
