import type { FastifyReply } from 'fastify';

/** The error codes of RFC 6749 section 5.2 (token endpoint) and 4.1.2.1 (authorization). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'unsupported_token_type';

/**
 * An OAuth protocol error. The OAuth endpoints answer RFC 6749 JSON (`{error, error_description}`)
 * rather than our `{code, message}`, because OAuth client libraries parse that shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
  return reply
    .status(error.status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json')
    .send({ error: error.error, error_description: error.description });
}
