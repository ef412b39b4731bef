import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '../kernel/errors.js';
import { MS_PER_MINUTE, MS_PER_SECOND, type Clock } from '../kernel/clock.js';
import { hashSecret } from '../kernel/secrets.js';
import type { Config } from '../config/index.js';
import type { Pool } from '../db/pool.js';
import { sendError } from './errors.js';
import { SharedWindowCounters, storeClassOf } from './rate-limit-store.js';

export type RateLimitConfig = Config['rateLimit'];

/** Route classes with their own limit (docs/api.md, "Rate limits"). */
export type RateLimitClass = 'ingest' | 'read' | 'write' | 'signin' | 'oauth_token';

declare module 'fastify' {
  interface FastifyInstance {
    /** The counters behind every limit, shared with the other processes through the database. */
    rateLimitCounters: SharedWindowCounters;
  }
}

const OAUTH_TOKEN_ROUTES = new Set(['/api/v1/oauth/token', '/api/v1/oauth/introspect', '/api/v1/oauth/revoke']);
/** The sign-in and sign-up forms, and any password form (a path segment starting with `password`). */
const SIGNIN_ROUTES = /^\/(?:signin|signup)$|\/password(?:[-/]|$)/;

/**
 * The one place a request's limit is chosen, from its method and route pattern
 * (`request.routeOptions.url`); undefined means not limited.
 */
export function rateLimitClassOf(method: string, routeUrl: string | undefined): RateLimitClass | undefined {
  if (routeUrl === undefined) return undefined;
  if (method === 'POST') {
    if (routeUrl === '/api/v1/events' || routeUrl.startsWith('/api/v1/events/')) return 'ingest';
    if (OAUTH_TOKEN_ROUTES.has(routeUrl)) return 'oauth_token';
    if (SIGNIN_ROUTES.test(routeUrl)) return 'signin';
  }
  if (!routeUrl.startsWith('/api/v1/')) return undefined;
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

interface ClassPolicy {
  max: number;
  windowMs: number;
  /** How the 429 message names the class and what it is counted per. */
  what: string;
  per: string;
}

function policies(config: RateLimitConfig): Record<RateLimitClass, ClassPolicy> {
  const principal = 'API key or OAuth access grant';
  return {
    ingest: { max: config.ingestPerSecond, windowMs: MS_PER_SECOND, what: 'usage ingestion (POST /api/v1/events...)', per: principal },
    read: { max: config.readPerSecond, windowMs: MS_PER_SECOND, what: 'reads (GET, HEAD)', per: principal },
    write: { max: config.writePerSecond, windowMs: MS_PER_SECOND, what: 'writes (POST, PUT, PATCH, DELETE)', per: principal },
    signin: { max: config.signinPerMinute, windowMs: MS_PER_MINUTE, what: 'sign-in, sign-up and password forms', per: 'client IP address and per e-mail address' },
    oauth_token: { max: config.oauthTokenPerSecond, windowMs: MS_PER_SECOND, what: 'OAuth token, introspection and revocation requests', per: 'client_id' },
  };
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
type Counted = Extract<Awaited<ReturnType<Limiter>>, { isAllowed: false }>;

/** HTTP Basic's client_id (RFC 6749 section 2.3.1), not yet verified: enough to count one client's attempts. */
function basicClientId(header: string | undefined): string | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decoded.slice(0, colon) : undefined;
}

function submittedEmail(body: unknown): string | undefined {
  const email = (body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.trim() !== '' ? email.trim().toLowerCase() : undefined;
}

// Client-chosen strings (e-mail, client_id) are stored hashed: no e-mail in the table, and a bounded key length.
const KEYS = {
  principal: (limitClass: RateLimitClass) => (request: FastifyRequest) => `${limitClass}:${request.auth!.principalId}`,
  oauthClient: (request: FastifyRequest) => {
    const clientId = basicClientId(request.headers.authorization);
    return clientId === undefined ? `oauth_token:ip:${normalizeIP(request.ip)}` : `oauth_token:client:${hashSecret(clientId)}`;
  },
  signinIp: (request: FastifyRequest) => `signin:ip:${normalizeIP(request.ip)}`,
  signinEmail: (request: FastifyRequest) => `signin:email:${hashSecret(submittedEmail(request.body)!)}`,
};

function windowName(windowMs: number): string {
  return windowMs === MS_PER_MINUTE ? 'minute' : 'second';
}

/** IETF draft-ietf-httpapi-ratelimit-headers (draft 7) names, as @fastify/rate-limit's `enableDraftSpec`. */
function setHeaders(reply: FastifyReply, counted: Counted): void {
  reply.header('ratelimit-limit', counted.max).header('ratelimit-remaining', counted.remaining).header('ratelimit-reset', counted.ttlInSeconds);
}

function sendTooMany(request: FastifyRequest, reply: FastifyReply, limitClass: RateLimitClass, policy: ClassPolicy, counted: Counted): FastifyReply {
  reply.header('retry-after', counted.ttlInSeconds);
  const message = `too many requests for ${policy.what}: the limit is ${policy.max} requests per ${windowName(policy.windowMs)} per ${policy.per}; retry after ${counted.ttlInSeconds} s (Retry-After header)`;
  if (limitClass === 'oauth_token') {
    // OAuth clients parse RFC 6749's shape; temporarily_unavailable is its code for an overloaded server.
    return reply.status(429).header('cache-control', 'no-store').header('pragma', 'no-cache').type('application/json')
      .send({ error: 'temporarily_unavailable', error_description: message });
  }
  return sendError(request, reply, new AppError('TOO_MANY_REQUESTS', message));
}

/**
 * Limits per route class with @fastify/rate-limit, counted in `rate_limit_windows` so that the
 * limits hold across every process on one database (rate-limit-store.ts). API classes count per
 * authenticated principal and answer before the body is read; sign-in forms count per client IP
 * and per submitted e-mail, so they are checked once the form is parsed. A limit of 0 is off.
 */
export async function registerRateLimit(app: FastifyInstance, config: RateLimitConfig, pool: Pool, clock: Clock): Promise<void> {
  const counters = new SharedWindowCounters(pool, clock, config.syncIntervalMs, app.log);
  await app.register(fastifyRateLimit, { global: false, store: storeClassOf(counters) });
  app.decorate('rateLimitCounters', counters);
  counters.start();
  app.addHook('onClose', () => counters.stop());

  const policy = policies(config);
  const limiter = (limitClass: RateLimitClass, keyGenerator: (request: FastifyRequest) => string): Limiter | undefined =>
    policy[limitClass].max === 0 ? undefined : app.createRateLimit({ max: policy[limitClass].max, timeWindow: policy[limitClass].windowMs, keyGenerator });
  const beforeBody: Partial<Record<RateLimitClass, Limiter>> = {
    ingest: limiter('ingest', KEYS.principal('ingest')),
    read: limiter('read', KEYS.principal('read')),
    write: limiter('write', KEYS.principal('write')),
    oauth_token: limiter('oauth_token', KEYS.oauthClient),
  };
  const signinByIp = limiter('signin', KEYS.signinIp);
  const signinByEmail = limiter('signin', KEYS.signinEmail);

  app.addHook('onRequest', async (request, reply) => {
    const limitClass = rateLimitClassOf(request.method, request.routeOptions.url);
    const limit = limitClass && beforeBody[limitClass];
    // API classes count per principal: public API routes (no principal) are not limited.
    if (!limit || (limitClass !== 'oauth_token' && !request.auth)) return;
    const counted = await limit(request);
    if (counted.isAllowed) return;
    setHeaders(reply, counted);
    if (counted.isExceeded) return sendTooMany(request, reply, limitClass, policy[limitClass], counted);
  });

  if (!signinByIp || !signinByEmail) return;
  app.addHook('preHandler', async (request, reply) => {
    if (rateLimitClassOf(request.method, request.routeOptions.url) !== 'signin') return;
    const results = [await signinByIp(request)];
    if (submittedEmail(request.body) !== undefined) results.push(await signinByEmail(request));
    const counted = results.filter((r): r is Counted => !r.isAllowed);
    // Answer with the tighter of the two counts: the exceeded one, else the one with less left.
    const shown = counted.find((c) => c.isExceeded) ?? counted.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    setHeaders(reply, shown);
    if (shown.isExceeded) return sendTooMany(request, reply, 'signin', policy.signin, shown);
  });
}
