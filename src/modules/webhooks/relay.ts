import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { readOutboxEvents, settledOutboxSeq, type OutboxConsumer } from '../../db/outbox.js';

const BATCH_SIZE = 200;

/**
 * Fans every new outbox event out to each consumer exactly once. Each consumer has a durable
 * cursor; its row is locked while a batch is handled, so two processes take turns and the second
 * starts from where the first committed. Returns the number of events handled per consumer.
 */
export async function relayOutbox(pool: Pool, consumers: OutboxConsumer[]): Promise<Record<string, number>> {
  const handled: Record<string, number> = {};
  const upTo = await settledOutboxSeq(pool);
  if (upTo === null) return handled;
  for (const consumer of consumers) {
    handled[consumer.name] = 0;
    for (;;) {
      const count = await withTx(pool, async (tx) => {
        // Cross-tenant by design: the relay serves every tenant; consumers scope their own writes.
        await tx.query(`INSERT INTO outbox_cursors (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING`, [consumer.name]);
        const cursor = await tx.query<{ last_seq: bigint }>(`SELECT last_seq FROM outbox_cursors WHERE consumer = $1 FOR UPDATE`, [consumer.name]);
        const lastSeq = cursor.rows[0]!.last_seq;
        const events = await readOutboxEvents(tx, lastSeq, upTo, BATCH_SIZE);
        for (const event of events) await consumer.handle(tx, event);
        const last = events.at(-1);
        if (last) await tx.query(`UPDATE outbox_cursors SET last_seq = $2 WHERE consumer = $1`, [consumer.name, last.seq]);
        return events.length;
      });
      handled[consumer.name]! += count;
      if (count < BATCH_SIZE) break;
    }
  }
  return handled;
}
