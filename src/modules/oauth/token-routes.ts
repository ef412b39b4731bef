import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import type { OAuthClientRow } from './apps-repository.js';
import { parseBasicAuth } from './client-auth.js';
import { OAuthError, sendOAuthError } from './oauth-errors.js';
import type { TokenService } from './token-service.js';

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

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
  if (error.statusCode && error.statusCode < 500) return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
  reply.log.error({ err: error }, 'oauth endpoint failed');
  return sendOAuthError(reply, new OAuthError('server_error', 'internal error; quote the x-request-id header to support', 500));
}

export function oauthTokenRoutes(service: TokenService) {
  return (app: App) => {
    const tags = ['OAuth'];
    const options = (operationId: string, description: string, body: typeof TokenRequest | typeof TokenOnlyRequest, response: Record<number, unknown>) => ({
      config: { public: true },
      attachValidation: true,
      errorHandler: oauthErrorHandler,
      schema: { tags, operationId, description, consumes: [FORM], security: [], body, response: { ...response, 400: OAuthErrorBody, 401: OAuthErrorBody } },
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

    app.post('/api/v1/oauth/token', options('oauth_token', 'RFC 6749 token endpoint: grant_type authorization_code (with PKCE code_verifier) or refresh_token.', TokenRequest, { 200: TokenResponse }), async (request, reply) => {
      const { client, body } = await authenticate(request);
      return noStore(reply).send(await service.token(client, body));
    });

    app.post('/api/v1/oauth/introspect', options('oauth_introspect', 'RFC 7662: active true with metadata, or active false alone for any unusable token.', TokenOnlyRequest, { 200: IntrospectionResponse }), async (request, reply) => {
      const { client, body } = await authenticate(request);
      return noStore(reply).send(await service.introspect(client, body));
    });

    app.post('/api/v1/oauth/revoke', options('oauth_revoke', 'RFC 7009: always 200 for an authenticated client, whether or not the token existed. A refresh token revokes its whole grant.', TokenOnlyRequest, {}), async (request, reply) => {
      const { client, body } = await authenticate(request);
      await service.revoke(client, body);
      return noStore(reply).status(200).send();
    });
  };
}
