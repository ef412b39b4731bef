import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Clock } from '../kernel/clock.js';
import type { Pool } from '../db/pool.js';
import { registerErrorHandling } from './errors.js';
import { registerAuth, type Authenticator } from './auth.js';
import { registerRateLimit, type RateLimitConfig } from './rate-limit.js';
import { registerIdempotency } from './idempotency.js';
import { registerObservability, requestIdFrom } from './observability.js';
import { registerOpenApi } from './openapi.js';
import { registerTextGuard } from './text-guard.js';
import { validatorCompiler } from './validation.js';

/** The app with TypeBox inference: route handlers see typed `body`, `query` and `params`. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
/** A module's HTTP surface: registers its routes on the app. */
export type RouteModule = (app: App) => void | Promise<void>;

export interface AppOptions {
  pool: Pool;
  clock: Clock;
  logLevel: string;
  bodyLimitBytes: number;
  rateLimit: RateLimitConfig;
  idempotencyKeyTtlHours: number;
  authenticators: Authenticator[];
  routes: RouteModule[];
}

const REDACTED_HEADERS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'];

export async function buildApp(options: AppOptions): Promise<App> {
  const app = Fastify({
    logger: { level: options.logLevel, redact: REDACTED_HEADERS },
    bodyLimit: options.bodyLimitBytes,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    ajv: { customOptions: { coerceTypes: false } },
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing (a URL that does not decode) get the contract's body too.
    frameworkErrors: (error, request, reply) => {
      void (reply as FastifyReply).status(400).type('application/json').send({ code: 'BAD_REQUEST', message: error.message });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // The API speaks JSON (and forms for OAuth); a text/plain body is a wrong content type, not a string.
  app.removeContentTypeParser('text/plain');
  // Form bodies (OAuth token endpoints) are parsed into plain objects.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  registerErrorHandling(app);
  registerTextGuard(app);
  await registerOpenApi(app);
  registerObservability(app, async () => {
    await options.pool.query('SELECT 1');
  });
  registerAuth(app, options.authenticators);
  registerRateLimit(app, options.rateLimit, options.clock);
  registerIdempotency(app, options.pool, options.clock, options.idempotencyKeyTtlHours);
  for (const register of options.routes) await register(app);
  return app;
}
