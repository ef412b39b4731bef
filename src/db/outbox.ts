import { newId } from '../kernel/ids.js';
import type { Clock } from '../kernel/clock.js';
import type { TenantScope } from './tenant-scope.js';

export interface OutboxEvent {
  /** Event kind in the reference's spelling, e.g. `product.created`. */
  type: string;
  /** The object the event is about; events of one object are delivered in this order. */
  objectId: string;
  /** The event's `data`, already in wire shape. */
  data: Record<string, unknown>;
}

/**
 * Writes an event in the caller's transaction, so it exists if and only if the change that
 * caused it committed. Returns the stable event id receivers use to dedupe.
 */
export async function writeOutboxEvent(db: TenantScope, clock: Clock, event: OutboxEvent): Promise<string> {
  const id = newId('outboxEvent', clock.now().getTime());
  await db.query(
    `INSERT INTO outbox_events (tenant_id, id, event_type, object_id, payload, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, event.type, event.objectId, JSON.stringify(event.data), clock.now()],
  );
  // Wake the consumers now rather than at their next poll; the job commits with the event.
  await db.query(`SELECT graphile_worker.add_job('outbox.dispatch', json_build_object('tenant_id', $1::text), job_key := 'outbox.dispatch')`);
  return id;
}
