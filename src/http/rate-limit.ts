import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';

export interface RateLimitConfig {
  requestsPerWindow: number;
  windowMs: number;
}

/**
 * Fixed-window limit per authenticated principal (API key or OAuth grant), in process memory:
 * each process enforces the limit on its own share of traffic, documented in docs/api.md.
 */
export function registerRateLimit(app: FastifyInstance, config: RateLimitConfig, clock: Clock): void {
  const windows = new Map<string, { startMs: number; count: number }>();
  app.addHook('preHandler', async (request, reply) => {
    const principal = request.auth?.principalId;
    if (!principal) return;
    const nowMs = clock.now().getTime();
    let window = windows.get(principal);
    if (!window || nowMs - window.startMs >= config.windowMs) {
      window = { startMs: nowMs, count: 0 };
      windows.set(principal, window);
      if (windows.size > 100_000) windows.clear();
    }
    window.count += 1;
    reply.header('x-ratelimit-limit', config.requestsPerWindow);
    reply.header('x-ratelimit-remaining', Math.max(0, config.requestsPerWindow - window.count));
    if (window.count > config.requestsPerWindow) {
      const retryAfterSeconds = Math.max(1, Math.ceil((window.startMs + config.windowMs - nowMs) / 1000));
      reply.header('retry-after', retryAfterSeconds);
      throw new AppError('TOO_MANY_REQUESTS', `rate limit of ${config.requestsPerWindow} requests per ${config.windowMs} ms exceeded; retry after ${retryAfterSeconds} s`);
    }
  });
}
