import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest, conflict } from '../kernel/errors.js';
import { MS_PER_HOUR, type Clock } from '../kernel/clock.js';
import type { Pool } from '../db/pool.js';
import { scoped } from '../db/tenant-scope.js';

interface StoredKey {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 25;
/** A key whose first request has held it this long without answering is taken to have crashed. */
const ABANDONED_AFTER_MS = 60_000;

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on POST, with Stripe's semantics: the first request claims the key by
 * inserting its row; a later request with the same key and body gets the stored response
 * replayed; with another body, 409. A concurrent duplicate waits for the first to finish and
 * then replays it, so the operation runs once. 5xx answers release the key so a retry can run.
 */
export function registerIdempotency(app: FastifyInstance, pool: Pool, clock: Clock, ttlHours: number): void {
  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.auth) return;
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw badRequest('Idempotency-Key header must be 1 to 255 characters');
    }
    const db = scoped(pool, request.auth.tenantId);
    const hash = requestHash(request);
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const now = clock.now();
      await db.query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND expires_at <= $3`, [key, now]);
      const claimed = await db.query(
        `INSERT INTO idempotency_keys (tenant_id, key, method, path, request_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, now(), $6) ON CONFLICT DO NOTHING RETURNING key`,
        [key, request.method, request.url, hash, new Date(now.getTime() + ttlHours * MS_PER_HOUR)],
      );
      if (claimed.length === 1) {
        request.idempotencyKey = key;
        return;
      }
      const stored = await db.one<StoredKey>(
        `SELECT request_hash, response_status, response_body, response_content_type, created_at
         FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`,
        [key],
      );
      if (!stored) continue;
      if (stored.request_hash !== hash) {
        throw conflict('Idempotency-Key was already used with a different request; use a new key');
      }
      if (stored.response_status !== null) return replay(reply, stored);
      if (Date.now() - stored.created_at.getTime() > ABANDONED_AFTER_MS) {
        await db.query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND response_status IS NULL`, [key]);
        continue;
      }
      if (Date.now() > deadline) throw conflict('a request with this Idempotency-Key is still in progress; retry later');
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (!key || !request.auth) return payload;
    const db = scoped(pool, request.auth.tenantId);
    if (reply.statusCode >= 500) {
      await db.query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`, [key]);
    } else {
      await db.query(
        `UPDATE idempotency_keys SET response_status = $3, response_body = $4, response_content_type = $5
         WHERE tenant_id = $1 AND key = $2`,
        [key, reply.statusCode, typeof payload === 'string' ? payload : payload === null ? '' : String(payload), String(reply.getHeader('content-type') ?? 'application/json')],
      );
    }
    return payload;
  });
}

function replay(reply: FastifyReply, stored: StoredKey): FastifyReply {
  if (stored.response_status === null) throw new AppError('INTERNAL_SERVER_ERROR', 'idempotent replay without a response');
  reply.header('idempotent-replayed', 'true');
  return reply
    .status(stored.response_status)
    .type(stored.response_content_type ?? 'application/json')
    .send(stored.response_body ?? '');
}
