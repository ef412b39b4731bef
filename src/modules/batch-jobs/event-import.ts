import { badRequest } from '../../kernel/errors.js';
import type { CsvItem } from './csv.js';
import type { ImportEvent, IngestEvents } from './ports.js';
import type { ItemFailure } from './repository.js';

/** Rows per chunk of an event import: one ingest call each. */
export const EVENT_CHUNK_SIZE = 500;
const RESERVED = new Set(['event_code', 'customer_id', 'customer_alias', 'event_id', 'timestamp']);

export function checkEventHeader(header: readonly string[]): void {
  if (!header.includes('event_code')) throw badRequest("csv header must have an 'event_code' column");
  if (!header.includes('customer_id') && !header.includes('customer_alias')) throw badRequest("csv header must have a 'customer_id' or 'customer_alias' column");
}

/**
 * The id of the event on row `itemIndex`: its `event_id` column, or one derived from the file's
 * hash and the row. Re-importing the same file then yields the same ids, and the usage ledger
 * counts them as duplicates instead of counting the usage twice.
 */
export function eventIdOf(item: CsvItem, fileSha256: string, itemIndex: number): string {
  const given = 'values' in item ? item.values.event_id : undefined;
  return given ? given : `csv_${fileSha256.slice(0, 32)}_${itemIndex}`;
}

export interface ChunkOutcome {
  status: 'COMPLETED' | 'FAILED';
  processed: number;
  failed: number;
  failures: ItemFailure[];
  /** Bank payment rows: payments this chunk recorded (the others of `processed` were recorded before). */
  matched?: number;
}

/**
 * Ingests one chunk, always with backfilling (an import is history). With `fail_on_error` a bad
 * row fails the whole chunk and nothing of it is stored; otherwise good rows are stored and the
 * bad ones reported.
 */
export async function importEventChunk(
  ingest: IngestEvents,
  tenantId: string,
  chunk: { firstItemIndex: number; items: readonly CsvItem[] },
  job: { fileSha256: string; failOnError: boolean },
): Promise<ChunkOutcome> {
  const failures: ItemFailure[] = [];
  const events: ImportEvent[] = [];
  const itemIndexOf: number[] = [];
  chunk.items.forEach((item, offset) => {
    const itemIndex = chunk.firstItemIndex + offset;
    const eventId = eventIdOf(item, job.fileSha256, itemIndex);
    if ('error' in item) return failures.push({ itemIndex, identifier: eventId, reason: item.error });
    const { values } = item;
    const customer = values.customer_id || values.customer_alias;
    if (!values.event_code) return failures.push({ itemIndex, identifier: eventId, reason: 'event_code is empty' });
    if (!customer) return failures.push({ itemIndex, identifier: eventId, reason: 'customer_id or customer_alias is required' });
    const properties: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) if (!RESERVED.has(key) && value !== '') properties[key] = value;
    events.push({ event_id: eventId, code: values.event_code, customer_id: customer, ...(values.timestamp ? { timestamp: values.timestamp } : {}), properties });
    itemIndexOf.push(itemIndex);
  });

  const total = chunk.items.length;
  if (failures.length > 0 && job.failOnError) return { status: 'FAILED', processed: 0, failed: total, failures };
  if (events.length === 0) return { status: 'COMPLETED', processed: 0, failed: failures.length, failures };

  const result = await ingest(tenantId, events, { allowBackfilling: true, allowPartialFailures: !job.failOnError, strict: false });
  for (const failure of result.failures) {
    failures.push({ itemIndex: itemIndexOf[failure.index]!, identifier: failure.event_id || events[failure.index]!.event_id, reason: failure.reason });
  }
  failures.sort((a, b) => a.itemIndex - b.itemIndex);
  if (!result.accepted) return { status: 'FAILED', processed: 0, failed: total, failures };
  return { status: 'COMPLETED', processed: result.ingested + result.duplicates, failed: failures.length, failures };
}
