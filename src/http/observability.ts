import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Type } from 'typebox';
import { documented, ErrorBody } from './schemas.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// Query parameters that carry credentials: portal tokens, OAuth codes and secrets, passwords.
const SECRET_QUERY_NAME = /token|secret|password|code|key|signature|assertion/i;
// Our secrets are 32 or more base62 characters after their prefix (ids are 26): a path segment
// holding one (an onboarding link) is a credential too.
const SECRET_IN_PATH = /(^|\/)([a-z]+_)?[A-Za-z0-9]{32,}(?=\/|$)/g;
export const REDACTED = '[REDACTED]';

/** The URL as it may be logged: credential-bearing query values and path segments replaced. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const pathPart = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(SECRET_IN_PATH, `$1${REDACTED}`);
  if (queryAt < 0) return pathPart;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0] ?? '';
      return pair.includes('=') && SECRET_QUERY_NAME.test(name) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${pathPart}?${query}`;
}

/** Keeps a caller's sane `x-request-id`, otherwise makes one; it is logged with every line. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

export interface ReadinessCheck {
  (): Promise<void>;
}

/** `x-request-id` echo, Prometheus metrics at /metrics, liveness at /health, readiness at /ready (`/` is the dashboard, dashboard.ts). */
export function registerObservability(app: FastifyInstance, isReady: ReadinessCheck): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    // The access line: method, redacted URL and peer (the app's `req` serializer), status and time.
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  const hidden = { hide: true };
  // The probes are in the API document (no token: `security: []`); /metrics is Prometheus text for a scraper, not API.
  const tags = ['Operations'];
  app.get('/health', {
    config: { public: true },
    schema: {
      tags,
      operationId: 'get_health',
      summary: 'Liveness probe',
      description: 'Answers 200 while the process serves HTTP, without touching the database. No token needed, not rate limited.',
      security: [],
      response: { 200: documented(Type.Object({ status: Type.Literal('ok') }), 'The process is alive.', { status: 'ok' }) },
    },
  }, async () => ({ status: 'ok' as const }));
  app.get('/ready', {
    config: { public: true },
    schema: {
      tags,
      operationId: 'get_readiness',
      summary: 'Readiness probe',
      description:
        'Answers 200 when the database answers a query, else 503: keep the instance out of the load balancer until it is ready. No token needed, not rate limited.',
      security: [],
      response: {
        200: documented(Type.Object({ status: Type.Literal('ready') }), 'The database is reachable.', { status: 'ready' }),
        503: documented(ErrorBody, 'The database is unreachable.', { code: 'INTERNAL_SERVER_ERROR', message: 'database unreachable' }),
      },
    },
  }, async (_request, reply) => {
    try {
      await isReady();
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ code: 'INTERNAL_SERVER_ERROR', message: 'database unreachable' });
    }
  });
  app.get('/metrics', { config: { public: true }, schema: hidden }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  return registry;
}
