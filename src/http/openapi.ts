import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export const API_VERSION = '0.1.0';

/** OpenAPI 3.1 built from the same route schemas that validate requests. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Billing and usage-invoicing API',
        version: API_VERSION,
        description: 'Subscription billing and usage invoicing. Money values are decimal strings.',
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
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get('/api/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
