import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';
export type DeliveryTrigger = 'EVENT' | 'REDELIVERY' | 'TEST';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  object_id: string | null;
  event_seq: bigint | null;
  trigger: DeliveryTrigger;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  created_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt_number: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  succeeded: boolean;
  /** The job worker that made the attempt (hostname:pid:random/slot); kept in the database, not shown in the API. */
  worker_id?: string | null;
}

const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, object_id, event_seq, trigger, payload, status, attempt_count,
  next_attempt_at, last_attempt_at, last_status_code, created_at`;

/** An EVENT delivery is held back while an earlier event of its object is pending for its endpoint. */
const NOT_HELD_BACK = `NOT (d.trigger = 'EVENT' AND d.object_id IS NOT NULL AND EXISTS (
         SELECT 1 FROM webhook_deliveries p
         WHERE p.tenant_id = d.tenant_id AND p.endpoint_id = d.endpoint_id AND p.object_id = d.object_id
           AND p.trigger = 'EVENT' AND p.status = 'PENDING' AND p.event_seq < d.event_seq))`;

/** Inserts a delivery; an EVENT delivery that already exists for (endpoint, event) is left alone. */
export async function insertDelivery(db: Queryable, tenantId: string, row: DeliveryRow): Promise<boolean> {
  const rows = await scoped(db, tenantId).query(
    `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, object_id, event_seq, trigger, payload, status,
       attempt_count, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11, $12)
     ON CONFLICT (tenant_id, endpoint_id, event_id) WHERE trigger = 'EVENT' DO NOTHING RETURNING id`,
    [row.id, row.endpoint_id, row.event_id, row.event_type, row.object_id, row.event_seq, row.trigger, JSON.stringify(row.payload), row.status, row.next_attempt_at, row.created_at],
  );
  return rows.length > 0;
}

export async function findDelivery(db: Queryable, tenantId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return scoped(db, tenantId).one<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3`,
    [endpointId, deliveryId],
  );
}

export async function listDeliveries(
  db: Queryable,
  tenantId: string,
  endpointId: string,
  filter: { status?: DeliveryStatus; eventId?: string },
  page: PageRequest,
  direction: 'ASC' | 'DESC',
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = `tenant_id = $1 AND endpoint_id = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR event_id = $4)`;
  const params = [endpointId, filter.status ?? null, filter.eventId ?? null];
  return scoped(db, tenantId).page<DeliveryRow>({ columns: DELIVERY_COLUMNS, from: 'webhook_deliveries', where, orderBy: `created_at ${direction}, id ${direction}` }, params, page);
}

export async function attemptsOf(db: Queryable, tenantId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return scoped(db, tenantId).query<AttemptRow>(
    `SELECT delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_excerpt, error, succeeded
     FROM webhook_attempts WHERE tenant_id = $1 AND delivery_id = ANY($2) ORDER BY delivery_id, attempt_number`,
    [deliveryIds],
  );
}

/**
 * Tenants with a delivery due now: the one cross-tenant read of the delivery worker, which then
 * works tenant by tenant through the scoped queries below.
 */
export async function tenantsWithDueDeliveries(db: Queryable, now: Date): Promise<string[]> {
  const result = await db.query<{ tenant_id: string }>(
    `SELECT DISTINCT tenant_id FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= $1`,
    [now],
  );
  return result.rows.map((r) => r.tenant_id);
}

/**
 * When the earliest pending delivery of an enabled endpoint falls due, for the next wake-up
 * (cross-tenant, like the above). Held-back deliveries do not count: they wait for another one.
 */
export async function earliestPendingAt(db: Queryable): Promise<Date | null> {
  const result = await db.query<{ at: Date | null }>(`SELECT min(d.next_attempt_at) AS at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.status = 'PENDING' AND e.enabled AND ${NOT_HELD_BACK}`);
  return result.rows[0]?.at ?? null;
}

export interface ClaimedDelivery extends DeliveryRow {
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Locks one due delivery for the caller's transaction, skipping rows another process holds.
 * An EVENT delivery waits while an earlier event of the same object is still pending for the
 * same endpoint, so one object's events arrive in the order they were created.
 */
export async function claimDueDelivery(db: Queryable, tenantId: string, now: Date): Promise<ClaimedDelivery | undefined> {
  return scoped(db, tenantId).one<ClaimedDelivery>(
    `SELECT ${DELIVERY_COLUMNS.split(',').map((c) => `d.${c.trim()}`).join(', ')}, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
     FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.tenant_id = d.tenant_id
     WHERE d.tenant_id = $1 AND d.status = 'PENDING' AND d.next_attempt_at <= $2 AND e.enabled

       AND ${NOT_HELD_BACK}
     ORDER BY d.next_attempt_at, d.event_seq NULLS LAST, d.id
     LIMIT 1
     FOR UPDATE OF d SKIP LOCKED`,
    [now],
  );
}

export async function recordAttempt(db: Queryable, tenantId: string, attempt: AttemptRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO webhook_attempts (tenant_id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, response_excerpt, error, succeeded, worker_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [attempt.delivery_id, attempt.attempt_number, attempt.attempted_at, attempt.status_code, attempt.duration_ms, attempt.response_excerpt, attempt.error, attempt.succeeded, attempt.worker_id ?? null],
  );
}

export async function updateDeliveryAfterAttempt(
  db: Queryable,
  tenantId: string,
  deliveryId: string,
  change: { status: DeliveryStatus; attemptCount: number; nextAttemptAt: Date | null; attemptedAt: Date; statusCode: number | null },
): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE webhook_deliveries SET status = $3, attempt_count = $4, next_attempt_at = $5, last_attempt_at = $6, last_status_code = $7
     WHERE tenant_id = $1 AND id = $2`,
    [deliveryId, change.status, change.attemptCount, change.nextAttemptAt, change.attemptedAt, change.statusCode],
  );
}
