import type { Pool } from '../../db/pool.js';
import { withTx, type Tx } from '../../db/tx.js';

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

const BATCH_SIZE = 200;
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
async function settledSeq(pool: Pool): Promise<bigint | null> {
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

/**
 * Fans every new outbox event out to each consumer exactly once. Each consumer has a durable
 * cursor; its row is locked while a batch is handled, so two processes take turns and the second
 * starts from where the first committed. Returns the number of events handled per consumer.
 */
export async function relayOutbox(pool: Pool, consumers: OutboxConsumer[]): Promise<Record<string, number>> {
  const handled: Record<string, number> = {};
  const upTo = await settledSeq(pool);
  if (upTo === null) return handled;
  for (const consumer of consumers) {
    handled[consumer.name] = 0;
    for (;;) {
      const count = await withTx(pool, async (tx) => {
        // Cross-tenant by design: the relay serves every tenant; consumers scope their own writes.
        await tx.query(`INSERT INTO outbox_cursors (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING`, [consumer.name]);
        const cursor = await tx.query<{ last_seq: bigint }>(`SELECT last_seq FROM outbox_cursors WHERE consumer = $1 FOR UPDATE`, [consumer.name]);
        const lastSeq = cursor.rows[0]!.last_seq;
        const events = await tx.query<OutboxRecord>(
          `SELECT seq, id, tenant_id, event_type, object_id, payload, created_at FROM outbox_events
           WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
          [lastSeq, upTo, BATCH_SIZE],
        );
        for (const event of events.rows) await consumer.handle(tx, event);
        const last = events.rows.at(-1);
        if (last) await tx.query(`UPDATE outbox_cursors SET last_seq = $2 WHERE consumer = $1`, [consumer.name, last.seq]);
        return events.rows.length;
      });
      handled[consumer.name]! += count;
      if (count < BATCH_SIZE) break;
    }
  }
  return handled;
}
