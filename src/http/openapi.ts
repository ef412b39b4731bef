import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { withSharedResponses } from './openapi-shared.js';

export const API_VERSION = '0.1.0';
/** Where the OpenAPI document is served; the reference page at /docs loads it from here. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** OpenAPI 3.1 built from the same route schemas that validate requests. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Billing and usage-invoicing API',
        version: API_VERSION,
        description:
          'Subscription billing and usage invoicing. Money values are decimal strings ("49.00"), dates `YYYY-MM-DD`, timestamps RFC 3339 in UTC. ' +
          'Errors are `{code, message}`; the few operations that answer `{message}` say so, and the OAuth endpoints answer RFC 6749\'s `{error, error_description}`. ' +
          'Lists take `page` (from 0) and `per_page` (1 to 100, default 10) and answer `{data, pagination_meta}`. Every POST takes an `Idempotency-Key` header.',
      },
      components: {
        securitySchemes: {
          bearer_auth: { type: 'http', scheme: 'bearer' },
          // OAuth token, introspection and revocation endpoints take client credentials.
          basic_auth: { type: 'http', scheme: 'basic' },
        },
      },
      security: [{ bearer_auth: [] }],
    },
    transform: withSharedResponses,
  });
  // The page's own `url` (./json) is ignored when `urls` is set: the UI loads the document the README names.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, urls: [{ url: OPENAPI_PATH, name: OPENAPI_PATH }] } });
  app.get(OPENAPI_PATH, { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
