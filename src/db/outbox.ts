// The transactional outbox (`outbox_events`): written in the transaction of the change an event
// is about, read in `seq` order by the relay (src/modules/webhooks/relay.ts). This file is the
// only code that names the table.
import { newId } from '../kernel/ids.js';
import { jsonWithBigints } from '../kernel/money.js';
import type { Clock } from '../kernel/clock.js';
import type { EventType } from '../kernel/event-types.js';
import type { Pool, Queryable } from './pool.js';
import { withTx, type Tx } from './tx.js';
import type { TenantScope } from './tenant-scope.js';

/** The job that relays new events to the outbox consumers (src/modules/webhooks/relay.ts). */
export const OUTBOX_DISPATCH_TASK = 'outbox.dispatch';
const WAKE_DISPATCH = `SELECT graphile_worker.add_job('${OUTBOX_DISPATCH_TASK}', json_build_object('tenant_id', $1::text), job_key := '${OUTBOX_DISPATCH_TASK}')`;

export interface OutboxEvent {
  /** Event kind in the reference's spelling, e.g. `product.created`; one of the catalogue (src/kernel/event-types.ts). */
  type: EventType;
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
  await db.query(WAKE_DISPATCH);
  return id;
}

/** Many events of one tenant in one statement, plus one wake-up of the dispatcher (billing runs, batch finalizing). */
export async function writeOutboxEvents(db: TenantScope, clock: Clock, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = clock.now();
  const rows = events.map((event) => ({ id: newId('outboxEvent', now.getTime()), event_type: event.type, object_id: event.objectId, payload: event.data }));
  await db.query(
    `INSERT INTO outbox_events (tenant_id, id, event_type, object_id, payload, created_at)
     SELECT $1, r.id, r.event_type, r.object_id, r.payload, $3 FROM jsonb_to_recordset($2::jsonb) AS r(id text, event_type text, object_id text, payload jsonb)`,
    [jsonWithBigints(rows), now],
  );
  await db.query(WAKE_DISPATCH);
}

/** An outbox event as consumers see it; `payload` is the event's data in wire shape. */
export interface OutboxRecord {
  seq: bigint;
  id: string;
  tenant_id: string;
  event_type: string;
  object_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

/** Turns one outbox event into work (delivery rows, e-mails) in the relay's transaction. */
export interface OutboxConsumer {
  /** Row of `outbox_cursors`. */
  name: string;
  handle(tx: Tx, event: OutboxRecord): Promise<void>;
}

/** How long the relay waits for in-flight writers before giving up until its next run. */
const LOCK_TIMEOUT_MS = 2000;

/**
 * The highest outbox seq below which nothing can still appear. A bigserial hands out seqs
 * before commit, so a transaction holding seq 10 can commit after one holding 11; reading up to
 * 11 and moving the cursor there would lose 10 for good. Taking a SHARE lock waits until every
 * transaction that inserted into the outbox has finished (inserters hold ROW EXCLUSIVE until
 * commit), and is released at once, so writers are held up only for that instant.
 * Returns null when writers did not finish within the lock timeout (the next run catches up).
 */
export async function settledOutboxSeq(pool: Pool): Promise<bigint | null> {
  try {
    return await withTx(pool, async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'`);
      await tx.query('LOCK TABLE outbox_events IN SHARE MODE');
      const result = await tx.query<{ seq: bigint }>('SELECT coalesce(max(seq), 0)::bigint AS seq FROM outbox_events');
      return result.rows[0]!.seq;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return null; // lock_not_available
    throw error;
  }
}

/** Events with `afterSeq < seq <= upToSeq`, in seq order, at most `limit`. Cross-tenant: the relay serves every tenant. */
export async function readOutboxEvents(db: Queryable, afterSeq: bigint, upToSeq: bigint, limit: number): Promise<OutboxRecord[]> {
  const events = await db.query<OutboxRecord>(
    `SELECT seq, id, tenant_id, event_type, object_id, payload, created_at FROM outbox_events
     WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
    [afterSeq, upToSeq, limit],
  );
  return events.rows;
}

/**
 * Deletes the events about these objects (a test clock's deletion removes the clock's objects and
 * their events). Events not relayed yet are never delivered; deliveries already made stay in the
 * webhooks log.
 */
export async function deleteOutboxEventsOf(db: TenantScope, objectIds: readonly string[]): Promise<void> {
  await db.query(`DELETE FROM outbox_events WHERE tenant_id = $1 AND object_id = ANY($2::text[])`, [objectIds]);
}
