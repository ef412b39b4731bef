import Fastify, {
  LogController,
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
import { registerAuth, type Authenticator, type SessionAuthenticator } from './auth.js';
import { registerRateLimit, type RateLimitConfig } from './rate-limit.js';
import { registerIdempotency } from './idempotency.js';
import { REDACTED, redactUrl, registerObservability, requestIdFrom } from './observability.js';
import { registerOpenApi } from './openapi.js';
import { registerTextGuard } from './text-guard.js';
import { registerUnknownQueryCheck, validatorCompiler } from './validation.js';
import { buildSerializer } from './serialization.js';
import { registerContentTypes } from './content-types.js';
import { dashboardServing } from './dashboard.js';

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
  /** The dashboard's sign-in session, for requests without an Authorization header. */
  sessionAuthenticator?: SessionAuthenticator;
  routes: RouteModule[];
}

// Request lines log method, redacted URL and peer only: no headers (API keys, cookies) and no
// bodies (passwords of the sign-in pages). These paths are a second guard should a log call add them.
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]', 'req.headers["x-api-key"]', 'req.headers["x-portal-token"]', 'req.body', 'res.headers["set-cookie"]'];

export async function buildApp(options: AppOptions): Promise<App> {
  const app = Fastify({
    logger: {
      level: options.logLevel,
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remote_address: request.ip }),
      },
    },
    // The README's name for it, on every line of a request. One line per request, written when it
    // is answered (observability.ts), instead of Fastify's two (on arrival and on answer): half the
    // log writes on the hot ingestion path.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    ajv: { customOptions: { coerceTypes: false } },
    // Response serializers compiled at each route's first response (serialization.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing (a URL that does not decode) get the contract's body too.
    frameworkErrors: (error, request, reply) => {
      void (reply as FastifyReply).status(400).type('application/json').send({ code: 'BAD_REQUEST', message: error.message });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // The API speaks JSON; forms only on the OAuth protocol endpoints and the HTML pages.
  registerContentTypes(app);
  registerUnknownQueryCheck(app);

  // The merchant dashboard (docs/dashboard.md): `/`, its assets, and its client routes for browsers.
  const dashboard = dashboardServing();
  registerErrorHandling(app, dashboard.clientRoute);
  registerTextGuard(app);
  await registerOpenApi(app);
  registerObservability(app, async () => {
    await options.pool.query('SELECT 1');
  });
  registerAuth(app, options.authenticators, options.sessionAuthenticator);
  await registerRateLimit(app, options.rateLimit, options.pool, options.clock);
  registerIdempotency(app, options.pool, options.clock, options.idempotencyKeyTtlHours);
  await dashboard.routes(app);
  for (const register of options.routes) await register(app);
  return app;
}
