// What every operation of the OpenAPI document shares, added in one place so that routes do not
// repeat it: the error responses the HTTP layer itself answers (validation, authentication,
// idempotency, content type, rate limits), each with a description and an example message the
// service really sends, and the Idempotency-Key header. Used as @fastify/swagger's `transform`:
// it returns a copy for the document; what routes validate and serialize is untouched.
import type { FastifySchema, RouteOptions } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import { Type } from 'typebox';
import type { ErrorCode } from '../kernel/errors.js';
import { rateLimitClassOf, type RateLimitClass } from './rate-limit.js';
import { ErrorBody, MessageBody } from './schemas.js';

type Schema = Record<string, unknown>;

/** RFC 6749's error body, which the OAuth protocol endpoints answer 429 with. */
const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

interface Context {
  route: RouteOptions;
  schema: Schema;
  limitClass: RateLimitClass | undefined;
}

/** Rate limit classes with their default figures (docs/api.md, "Rate limits"), for 429 descriptions and examples. */
const LIMITS: Record<RateLimitClass, { what: string; max: number; per: string; variable: string }> = {
  ingest: { what: 'usage ingestion (POST /api/v1/events...)', max: 20000, per: 'API key or OAuth access grant', variable: 'RATE_LIMIT_INGEST_PER_SECOND' },
  read: { what: 'reads (GET, HEAD)', max: 1000, per: 'API key or OAuth access grant', variable: 'RATE_LIMIT_READ_PER_SECOND' },
  write: { what: 'writes (POST, PUT, PATCH, DELETE)', max: 500, per: 'API key or OAuth access grant', variable: 'RATE_LIMIT_WRITE_PER_SECOND' },
  signin: { what: 'sign-in, sign-up and password forms', max: 10, per: 'client IP address and per e-mail address', variable: 'RATE_LIMIT_SIGNIN_PER_MINUTE' },
  oauth_token: { what: 'OAuth token, introspection and revocation requests', max: 100, per: 'client_id', variable: 'RATE_LIMIT_OAUTH_TOKEN_PER_SECOND' },
};

const windowOf = (limitClass: RateLimitClass) => (limitClass === 'signin' ? 'minute' : 'second');

/** What an error status means on any operation, and a message the service really sends there (none when it varies). */
const STANDARD: Record<string, { code: ErrorCode; description: (c: Context) => string; message: (c: Context) => string | undefined }> = {
  400: {
    code: 'BAD_REQUEST',
    description: () =>
      'Bad request: a path, query, header or body value is missing or invalid, or a query parameter the operation does not list was sent. ' +
      'The message names the field, where it was (body, query, path) and what is expected.',
    message: ({ schema }) => badRequestMessageOf(schema),
  },
  401: {
    code: 'UNAUTHORIZED',
    description: () => 'Unauthorized: the token or credentials are missing, malformed, unknown, expired or revoked. Always `{code, message}`.',
    message: ({ route }) => (route.config?.public ? undefined : 'missing Authorization header; send Authorization: Bearer <api key>'),
  },
  403: { code: 'FORBIDDEN', description: () => 'Forbidden: the caller may not do this.', message: () => undefined },
  404: {
    code: 'NOT_FOUND',
    description: () => "Not found: no such object in the caller's tenant (another tenant's objects answer the same).",
    message: ({ route }) => `${objectNameOf(route.url)} not found`,
  },
  409: {
    code: 'CONFLICT',
    description: () =>
      "Conflict: the request clashes with an existing object or with the object's current state (see the operation's description), " +
      'or (POST) its Idempotency-Key was used with a different request or is still in progress.',
    message: ({ route }) => (route.method === 'POST' ? 'Idempotency-Key was already used with a different request; use a new key' : undefined),
  },
  413: { code: 'BAD_REQUEST', description: () => 'The body is larger than the server accepts (BODY_LIMIT_BYTES).', message: () => 'request body is too large' },
  415: {
    code: 'BAD_REQUEST',
    description: () => 'Unsupported media type: the body is not JSON, or was sent without `Content-Type: application/json` (what `curl -d` does).',
    message: () => "this endpoint takes a JSON body: send the header Content-Type: application/json (curl: -H 'Content-Type: application/json')",
  },
  429: {
    code: 'TOO_MANY_REQUESTS',
    description: ({ limitClass }) => {
      const limit = LIMITS[limitClass ?? 'read'];
      return (
        `Too many requests: this operation counts in the \`${limitClass ?? 'read'}\` rate limit class, ${limit.max} requests per ${windowOf(limitClass ?? 'read')} ` +
        `per ${limit.per} by default (\`${limit.variable}\`). Retry after the \`Retry-After\` header, in seconds.`
      );
    },
    message: ({ limitClass }) => {
      const limit = LIMITS[limitClass ?? 'read'];
      return `too many requests for ${limit.what}: the limit is ${limit.max} requests per ${windowOf(limitClass ?? 'read')} per ${limit.per}; retry after 1 s (Retry-After header)`;
    },
  },
  500: {
    code: 'INTERNAL_SERVER_ERROR',
    description: () => 'Unexpected server error; nothing internal is shown. Quote the x-request-id response header to support.',
    message: () => 'internal server error; quote the x-request-id header to support',
  },
};

/** A 400 message validation really answers for this operation (src/http/validation.ts). */
function badRequestMessageOf(schema: Schema): string {
  const required = (schema.body as Schema | undefined)?.required;
  if (Array.isArray(required) && required.length > 0) return `${String(required[0])} is required (body)`;
  const query = Object.keys(((schema.querystring as Schema | undefined)?.properties as Schema | undefined) ?? {});
  if (query.includes('per_page')) return 'per_page must be <= 100 (query)';
  if (query.length > 0) return `limit is not a known query parameter; known: ${query.join(', ')} (query)`;
  return 'verbose is not a known query parameter; this endpoint takes none (query)';
}

/** `product` from `/api/v1/products/:product_id`, `product family` from `/api/v1/product_families/:id_or_alias`. */
function objectNameOf(url: string): string {
  const segments = url.split('/').filter(Boolean);
  for (let i = segments.length - 1; i > 0; i--) {
    const segment = segments[i]!;
    if (!segment.startsWith(':')) continue;
    const fromParam = segment.slice(1).replace(/_id$/, '').replace(/^id_or_\w+$/, '');
    const name = fromParam || segments[i - 1]!.replace(/ies$/, 'y').replace(/s$/, '');
    return name.replace(/[_-]/g, ' ');
  }
  return 'object';
}

const fieldsOf = (body: Schema) => Object.keys((body.properties as Schema | undefined) ?? {}).sort().join(',');

/** The body an operation answers this status with when its route does not say: the route's error shape, RFC 6749's for OAuth 429s. */
function defaultBody(status: string, c: Context): Schema {
  if (status === '429' && c.limitClass === 'oauth_token') return OAuthErrorBody as unknown as Schema;
  // A 401 always carries its code, even where the other errors are {message} (errors.ts, sendError).
  const messageShape = c.route.config?.errorShape === 'message' && status !== '401';
  return (messageShape ? MessageBody : ErrorBody) as unknown as Schema;
}

/**
 * The operation's own error response if it describes itself, else the standard description and
 * an example in its shape. A 401 declared as `{message}` is shown as `{code, message}`, what is
 * really sent. Bodies of other shapes are left to their route.
 */
function documentedError(status: string, own: Schema | undefined, c: Context): Schema {
  const standard = STANDARD[status];
  let body = own ?? defaultBody(status, c);
  if (status === '401' && fieldsOf(body) === 'message') body = { ...(ErrorBody as unknown as Schema), ...(body.description ? { description: body.description } : {}) };
  const fields = fieldsOf(body);
  if (!standard || typeof body.description === 'string') return body;
  const message = standard.message(c);
  let example: unknown;
  if (message !== undefined && fields === 'code,message') example = { code: standard.code, message };
  else if (message !== undefined && fields === 'message') example = { message };
  else if (message !== undefined && fields === 'error,error_description') example = { error: 'temporarily_unavailable', error_description: message };
  else if (fields !== 'code,message' && fields !== 'message') return body;
  return { ...body, description: standard.description(c), ...(body.examples || example ? { examples: body.examples ?? [example] } : {}) };
}

function withIdempotencyKeyHeader(headers: Schema | undefined): Schema {
  const properties = (headers?.properties as Schema | undefined) ?? {};
  return {
    ...headers,
    type: 'object',
    properties: {
      ...properties,
      'idempotency-key': {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description:
          'Optional. The same key again with the same method, path and body replays the stored response (with `idempotent-replayed: true`) instead of running ' +
          'the operation again; with another request it is a 409. Keys are 1 to 255 characters, per tenant, kept 24 hours (IDEMPOTENCY_KEY_TTL_HOURS); a 5xx answer releases the key.',
        examples: ['5f0c2a7e-9d1b-4c51-8a43-2b7e0d6f1a90'],
      },
    },
  };
}

/**
 * @fastify/swagger `transform`: adds 400 (unknown query parameters) to every JSON API operation,
 * 401 to the authenticated ones, 409 and the Idempotency-Key header to their POSTs, 415 where a
 * JSON body is taken, 429 where a rate limit counts, and a description and example to every
 * error response of the shared shapes that lacks one.
 */
export const withSharedResponses: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema || (schema as Schema).hide) return { schema, url };
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  const jsonApi = url.startsWith('/api/v1/') && !route.config?.acceptsForm;
  const authenticated = url.startsWith('/api/v1/') && !route.config?.public;
  const limitClass = rateLimitClassOf(method, url);
  // API classes count per principal: public API routes are not limited, OAuth's token endpoints are (rate-limit.ts).
  const limited = limitClass !== undefined && (limitClass === 'oauth_token' || authenticated);
  const idempotent = authenticated && method === 'POST';
  const shared = [
    ...(jsonApi ? ['400'] : []),
    ...(authenticated ? ['401'] : []),
    ...(idempotent ? ['409'] : []),
    ...(jsonApi && schema.body ? ['415'] : []),
    ...(limited ? ['429'] : []),
  ];
  const own = (schema.response as Record<string, Schema> | undefined) ?? {};
  const statuses = [...new Set([...Object.keys(own), ...shared])].sort();
  if (statuses.length === 0) return { schema, url };
  const context: Context = { route, schema: schema as Schema, limitClass };
  const responses: Record<string, Schema> = {};
  for (const status of statuses) responses[status] = /^[45]\d\d$/.test(status) ? documentedError(status, own[status], context) : own[status]!;
  const documented: Schema = { ...schema, response: responses };
  if (idempotent) documented.headers = withIdempotencyKeyHeader(schema.headers as Schema | undefined);
  return { schema: documented as FastifySchema, url };
};
