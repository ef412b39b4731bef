import { BinaryArrayWriter, ELEMENT_OID } from '../../db/binary-array.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { UsageMetric } from '../../domain/usage/index.js';
import { tenantKeySql } from '../accounts/index.js';

/** One event ready to store: the customer is resolved to its stored reference. */
export interface EventRow {
  eventId: string;
  code: string;
  customerRef: string;
  timestamp: Date;
  properties: Record<string, string>;
  /** SHA-256 of the canonical payload, hex. */
  payloadHash: string;
  /** True when no customer has `customerRef` yet (it is an alias kept for a customer to come). */
  unresolved?: boolean;
}

/**
 * The tenant's compact key, which the per-event tables store instead of its id (see migration
 * 0302), from the id bound as $1. An uncorrelated subquery: evaluated once per statement.
 */
export const TENANT_KEY = tenantKeySql('$1');

/** Every table of rollups folded from the events (hourly, daily, distinct values): what a rebuild or an erasure deletes. */
export const ROLLUP_TABLES = ['usage_rollups', 'usage_rollups_daily', 'usage_rollup_distinct'] as const;

/** Whether any event of the tenant is still above a metric's rollup watermark (not folded yet: reads take it raw). */
export async function eventsLeftUnfolded(db: Queryable, tenantId: string): Promise<boolean> {
  const [tail] = await scoped(db, tenantId).query<{ left: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM usage_events WHERE tenant_key = ${TENANT_KEY}
       AND xid >= (SELECT min(watermark) FROM usage_rollup_state WHERE tenant_id = $1)) AS left`,
  );
  return tail?.left === true;
}

/** The rows of `eventArrays` ($2..$7) as a table, and its column names. */
const EVENT_ARRAYS = 'unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[], $7::bytea[])';
const EVENT_COLUMNS = 'event_id, code, customer_ref, ts, properties, payload_hash';

/**
 * SQL true for an event row `e` (customer_ref, code, ts) inside a period an invoice has billed
 * (usage_billed_periods): a late event. The tenant's latest billed end is read once per statement
 * (an uncorrelated subquery), so events after it, every real-time event among them, cost one
 * comparison; only older ones are looked up, by index.
 */
function inBilledPeriod(e: string): string {
  return `(${e}.ts < (SELECT max(ends_at) FROM usage_billed_periods WHERE tenant_id = $1)
    AND EXISTS (SELECT 1 FROM usage_billed_periods p WHERE p.tenant_id = $1 AND p.customer_id = ${e}.customer_ref COLLATE "C" AND p.code = ${e}.code COLLATE "C"
      AND p.starts_at <= ${e}.ts AND p.ends_at > ${e}.ts))`;
}

/**
 * A CTE counting the events of `source` stored under a customer reference no customer has yet
 * ($9, the batch's unresolved references), per reference. Only batches holding such events carry
 * it. Its rows are locked in reference order, and after every ledger row of the statement
 * (`afterLedger`: a condition that makes the ledger insert run to its end first), the lock
 * order of docs/usage.md ("Lock order"), so concurrent batches wait instead of deadlocking.
 */
function countUnresolved(source: string, afterLedger = 'true'): string {
  return `, unresolved AS (
    INSERT INTO usage_unresolved_customers AS u (tenant_id, customer_ref, event_count, first_event_at, last_event_at, last_ingested_at)
    SELECT $1, customer_ref, count(*), min(ts), max(ts), $8::timestamptz FROM ${source} WHERE customer_ref = ANY($9::text[]) AND ${afterLedger}
    GROUP BY customer_ref ORDER BY customer_ref
    ON CONFLICT (tenant_id, customer_ref) DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
      first_event_at = LEAST(u.first_event_at, EXCLUDED.first_event_at), last_event_at = GREATEST(u.last_event_at, EXCLUDED.last_event_at),
      last_ingested_at = EXCLUDED.last_ingested_at)`;
}

/**
 * The rows in event-id order (UTF-16 code units: any fixed total order will do). Both insert
 * statements write the ledger in this order, whatever order the client, or the group committer
 * merging several requests, put them in: PostgreSQL locks rows in the order it inserts them, so
 * two statements sharing ids wait for each other instead of deadlocking.
 */
function inEventIdOrder(rows: readonly EventRow[]): EventRow[] {
  return [...rows].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
}

/** The customer references of rows stored without a known customer, or none. */
function unresolvedRefsOf(rows: readonly EventRow[]): string[] {
  const refs = new Set<string>();
  for (const row of rows) if (row.unresolved) refs.add(row.customerRef);
  return [...refs];
}

/**
 * A batch ready for its statements: its rows in event-id order and their parameters, built once
 * for all of them (a batch holding seen ids goes through two or three: the fast path, which fails,
 * `allStoredAlready`, and for new or changed events among seen ones `insertEvents`).
 */
export interface EventBatch {
  /** The rows in event-id order (see `inEventIdOrder`). */
  rows: readonly EventRow[];
  /** $2..$8 (`eventArrays`), then $9, the unresolved references, when there are any. */
  params: unknown[];
  /** Two of those arrays on their own: the ids and the payload hashes (`allStoredAlready`). */
  ids: Buffer;
  payloadHashes: Buffer;
  /** Whether the batch holds rows without a known customer, whose references the statements count. */
  countsUnresolved: boolean;
}

export function eventBatch(rows: readonly EventRow[], ingestedAt: Date): EventBatch {
  const sorted = inEventIdOrder(rows);
  const unresolved = unresolvedRefsOf(rows);
  const countsUnresolved = unresolved.length > 0;
  const arrays = eventArrays(sorted, ingestedAt);
  return { rows: sorted, params: [...arrays, ...(countsUnresolved ? [unresolved] : [])], ids: arrays[0], payloadHashes: arrays[5], countsUnresolved };
}

/**
 * Whether every row of the batch is already stored with the same payload: a re-sent batch, the
 * usual reason the fast path fails. A read of the ledger's ids and hashes alone: it writes
 * nothing and needs no transaction, where `insertEvents` tries to insert every row again inside
 * one (re-sent batches 29-33% faster with this read first; docs/performance.md). Rows of a
 * transaction not committed yet are not seen, so a batch racing its first delivery goes on to
 * `insertEvents`, which waits for it.
 */
export async function allStoredAlready(db: Queryable, tenantId: string, batch: EventBatch): Promise<boolean> {
  const [row] = await scoped(db, tenantId).query<{ all_stored: boolean }>(
    `SELECT count(*) = cardinality($2::text[]) AS all_stored FROM unnest($2::text[], $3::bytea[]) AS i(event_id, payload_hash)
       JOIN usage_event_ids u ON u.tenant_key = ${TENANT_KEY} AND u.event_id = i.event_id AND u.payload_hash = i.payload_hash`,
    [batch.ids, batch.payloadHashes],
  );
  return row?.all_stored === true;
}

/**
 * What `insertEvents` did with a batch's ids. An id in none of these was already stored with
 * the same payload (a duplicate): the statement sends no row for it.
 */
export interface InsertOutcome {
  /** Ids stored by this statement, each with whether it fell into a billed period. */
  stored: Map<string, { late: boolean }>;
  /** Ids already stored with another payload (a conflicting reuse of the id). */
  differing: Set<string>;
  /**
   * Ids neither stored nor visible: a transaction that committed after the statement began
   * stored them (its snapshot does not show them); `findPayloadHashes` tells.
   */
  unseen: string[];
}

/**
 * Stores the events whose id the tenant has not seen, in one statement: the dedup ledger row and
 * the event row commit together, so an id is marked seen only with its event stored. Ids are
 * inserted in event-id order (`ORDER BY n` over the sorted arrays), then the unresolved counters
 * (they count the stored rows); a concurrent duplicate waits for the first writer and then counts as seen.
 * The same statement reads the ledger rows of the ids it did not store and compares their payload
 * hash with the row's (in SQL: no hash travels back): a re-sent batch is told apart from a
 * conflicting one in this one round trip.
 */
export async function insertEvents(db: Queryable, tenantId: string, batch: EventBatch): Promise<InsertOutcome> {
  const result = await scoped(db, tenantId).query<{ event_id: string; outcome: 'stored' | 'late' | 'differing' | 'unseen' }>(
    `WITH input AS (
       SELECT * FROM ${EVENT_ARRAYS} WITH ORDINALITY AS t(${EVENT_COLUMNS}, n)
     ), ids AS (
       INSERT INTO usage_event_ids (tenant_key, event_id, payload_hash)
       SELECT ${TENANT_KEY}, event_id, payload_hash FROM input ORDER BY n
       ON CONFLICT DO NOTHING RETURNING event_id
     ), stored AS (
       INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
       SELECT ${TENANT_KEY}, i.event_id, i.code, i.customer_ref, i.ts, i.properties, $8 FROM input i JOIN ids USING (event_id)
       RETURNING event_id, code, customer_ref, ts
     )${batch.countsUnresolved ? countUnresolved('stored') : ''}
     SELECT s.event_id, CASE WHEN ${inBilledPeriod('s')} THEN 'late' ELSE 'stored' END AS outcome FROM stored s
     UNION ALL
     SELECT i.event_id, CASE WHEN u.event_id IS NULL THEN 'unseen' ELSE 'differing' END FROM input i
       LEFT JOIN usage_event_ids u ON u.tenant_key = ${TENANT_KEY} AND u.event_id = i.event_id
       WHERE u.payload_hash IS DISTINCT FROM i.payload_hash AND i.event_id NOT IN (SELECT event_id FROM stored)`,
    batch.params,
  );
  const outcome: InsertOutcome = { stored: new Map(), differing: new Set(), unseen: [] };
  for (const r of result) {
    if (r.outcome === 'differing') outcome.differing.add(r.event_id);
    else if (r.outcome === 'unseen') outcome.unseen.push(r.event_id);
    else outcome.stored.set(r.event_id, { late: r.outcome === 'late' });
  }
  return outcome;
}

/**
 * Fast path of `insertEvents` for the usual case where no id has been seen: a plain insert into
 * the dedup ledger (no ON CONFLICT speculative insertion, about 40% cheaper per row). Returns
 * the ids of the events that fell into a billed period (usually none), or false, having stored
 * nothing (one statement is atomic), when any id is already in the ledger or being written by a
 * concurrent statement; the caller then runs `insertEvents`, which sorts out duplicates and
 * conflicts. Other errors are thrown.
 *
 * Rows are inserted in event-id order, and both the event rows and the unresolved counters only
 * once the ledger insert has run to its end (`LEDGER_FIRST`: an unreferenced data-modifying CTE
 * otherwise runs after the main query, in no documented order: measured, the counters ran
 * first, and the ledger last, after all the event rows), the lock order of `insertEvents`. With
 * the ledger first, a re-sent batch fails at its first id, before writing any event row (it used
 * to write the whole batch's event rows, index entries and WAL, then roll them back). So
 * two batches sharing ids or counters, fast or slow path, wait for each other and never
 * deadlock. A deadlock (40P01) is still taken as "seen ids" as a safety net, but it is counted in
 * `pg_stat_database.deadlocks`, which test/scenarios/usage-deadlocks.test.ts keeps at zero.
 * (A COPY of the two tables in one transaction is cheaper for PostgreSQL, but its four round
 * trips each wait for the busy event loop: it measured slower here, see docs/usage.md.)
 */
/** A condition that makes the ledger insert (`ids`) run to its end before the writes that test it. */
const LEDGER_FIRST = '(SELECT count(*) FROM ids) >= 0';

export async function insertAllNewEvents(db: Queryable, tenantId: string, batch: EventBatch): Promise<{ late: string[] } | false> {
  const counted = batch.countsUnresolved;
  try {
    const late = await scoped(db, tenantId).query<{ event_id: string }>(
      `WITH input AS (
         SELECT * FROM ${EVENT_ARRAYS} WITH ORDINALITY AS t(${EVENT_COLUMNS}, n)
       ), ids AS (
         INSERT INTO usage_event_ids (tenant_key, event_id, payload_hash) SELECT ${TENANT_KEY}, event_id, payload_hash FROM input ORDER BY n
         RETURNING 1
       ), stored AS (
         INSERT INTO usage_events (tenant_key, event_id, code, customer_ref, ts, properties, ingested_at)
         SELECT ${TENANT_KEY}, event_id, code, customer_ref, ts, properties, $8 FROM input WHERE ${LEDGER_FIRST}
       )${counted ? countUnresolved('input', LEDGER_FIRST) : ''}
       SELECT i.event_id FROM input i WHERE ${inBilledPeriod('i')}`,
      batch.params,
      // Named: parsed once per connection and planned once for all batches (its plan does not depend
      // on the rows). For single events, grouped a few to a statement, planning was about a third
      // of PostgreSQL's CPU per event (117 -> 82 µs per request measured; docs/performance.md).
      { name: counted ? 'usage_insert_new_counted' : 'usage_insert_new' },
    );
    return { late: late.map((r) => r.event_id) };
  } catch (error) {
    const e = error as { code?: string; constraint?: string };
    if ((e.code === '23505' && e.constraint === 'usage_event_ids_pkey') || e.code === '40P01') return false;
    throw error;
  }
}

/**
 * The rows as the array parameters $2..$7 of the insert statements, in PostgreSQL's binary array
 * format, plus $8 = ingestedAt. Binary spares both sides the quoting of array literals and the
 * server the parsing of every timestamp (see docs/usage.md "Write path").
 */
function eventArrays(rows: readonly EventRow[], ingestedAt: Date): [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, string] {
  const ids = new BinaryArrayWriter(ELEMENT_OID.text, rows.length);
  const codes = new BinaryArrayWriter(ELEMENT_OID.text, rows.length);
  const customers = new BinaryArrayWriter(ELEMENT_OID.text, rows.length, 32);
  const timestamps = new BinaryArrayWriter(ELEMENT_OID.timestamptz, rows.length, 8);
  const properties = new BinaryArrayWriter(ELEMENT_OID.jsonb, rows.length, 64);
  const hashes = new BinaryArrayWriter(ELEMENT_OID.bytea, rows.length, 32);
  for (const row of rows) {
    ids.text(row.eventId);
    codes.text(row.code);
    customers.text(row.customerRef);
    timestamps.timestamptz(row.timestamp.getTime());
    properties.jsonb(JSON.stringify(row.properties));
    hashes.byteaFromHex(row.payloadHash);
  }
  return [ids.finish(), codes.finish(), customers.finish(), timestamps.finish(), properties.finish(), hashes.finish(), ingestedAt.toISOString()];
}

/** Payload hashes (hex) of already-seen event ids, to tell retries from conflicting reuse. */
export async function findPayloadHashes(db: Queryable, tenantId: string, eventIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await scoped(db, tenantId).query<{ event_id: string; payload_hash: string }>(
    `SELECT event_id, encode(payload_hash, 'hex') AS payload_hash FROM usage_event_ids WHERE tenant_key = ${TENANT_KEY} AND event_id = ANY($2::text[])`,
    [eventIds],
  );
  return new Map(rows.map((r) => [r.event_id, r.payload_hash]));
}

/** Creates the monthly partition holding `at` (DDL: global, not tenant data). */
export async function ensurePartition(db: Queryable, at: Date): Promise<void> {
  try {
    await db.query('SELECT usage_events_ensure_partition($1)', [at]);
  } catch (error) {
    // Another process created it between our check and our CREATE: that is the goal anyway.
    if ((error as { code?: string }).code !== '42P07') throw error;
  }
}

export interface RollupState {
  definition_hash: string;
  watermark: string;
}

export async function findRollupState(db: Queryable, tenantId: string, metricId: string): Promise<RollupState | undefined> {
  return scoped(db, tenantId).one<RollupState>(
    `SELECT definition_hash, watermark::text AS watermark FROM usage_rollup_state WHERE tenant_id = $1 AND metric_id = $2`,
    [metricId],
  );
}

export interface RollupGroupRow {
  customer_ref: string;
  dimensions: Record<string, string>;
  event_count: bigint;
  value_sum: string;
  value_min: string | null;
  value_max: string | null;
  latest_ts: Date | null;
  latest_event_id: string | null;
  latest_value: string | null;
}

/**
 * What an event contributes to a metric, as SQL over `usage_events e`: the one definition, used by
 * the fold and by the read of events not folded yet. An event counts when every filtered dimension
 * holds an allowed value (a missing property is the empty string) and, for linked dimensions, its
 * second value is allowed for its first; all but COUNT also need the property: non-empty for
 * COUNT_DISTINCT, a plain decimal (the domain's `isPlainDecimal`) for the numeric aggregations. A
 * missing group-by property groups under the empty string. Parameters start at
 * `firstParam`. Group keys only need to be consistent inside the database (a change of their form
 * is a change of `ROLLUP_FORMAT`): readers re-key by the dimensions.
 */
export function contributionSql(metric: UsageMetric, firstParam: number): { where: string; value: string; dimensions: string; groupKey: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${firstParam + params.length - 1}`;
  };
  const prop = (key: string) => `coalesce(e.properties->>${p(key)}, '')`;
  const conditions: string[] = [];
  for (const [key, allowed] of Object.entries(metric.filters ?? {})) {
    if (allowed.length > 0) conditions.push(`${prop(key)} = ANY(${p(allowed)}::text[])`);
  }
  if (metric.linked) {
    conditions.push(`coalesce((${p(JSON.stringify(metric.linked.values))}::jsonb -> ${prop(metric.linked.key1)}) ? ${prop(metric.linked.key2)}, false)`);
  }
  let value = 'NULL::text';
  if (metric.aggregation !== 'COUNT') {
    const raw = `(e.properties->>${p(metric.property ?? '')})`;
    if (metric.aggregation === 'COUNT_DISTINCT') {
      conditions.push(`${raw} <> ''`);
      value = raw;
    } else {
      // The domain's isPlainDecimal. PostgreSQL's regex engine runs bounded repeats like {1,40}
      // about five times slower than +, and any match of 40 characters or fewer is within the
      // bounds, so the bounded form is only evaluated for longer texts.
      conditions.push(`${raw} ~ '^-?[0-9]+(\\.[0-9]+)?$' AND (length(${raw}) <= 40 OR ${raw} ~ '^-?[0-9]{1,40}(\\.[0-9]{1,40})?$')`);
      value = raw;
    }
  }
  const dims = metric.groupBy.map((key) => [p(key), prop(key)] as const);
  return {
    where: conditions.length ? conditions.join(' AND ') : 'true',
    value,
    dimensions: dims.length ? `jsonb_build_object(${dims.map(([k, v]) => `${k}::text, ${v}`).join(', ')})` : `'{}'::jsonb`,
    // One group-by key (the usual case) is its own group key: building a JSON array per event
    // costs as much as the rest of a fold's row.
    groupKey: dims.length === 0 ? `'[]'` : dims.length === 1 ? dims[0]![1] : `jsonb_build_array(${dims.map(([, v]) => v).join(', ')})::text`,
    params,
  };
}

/**
 * An expression that makes PostgreSQL plan the statement holding it without parallel workers.
 * `pg_current_xact_id_if_assigned()` is marked PARALLEL UNSAFE (it reads the transaction's own
 * xid, which a worker does not have), and a statement that names a parallel-unsafe function
 * anywhere, even in a CTE, never gets a Gather (PostgreSQL 15 to 17, "When Can Parallel Query Be
 * Used?"). It has no side effect: it assigns no xid and answers NULL in a read. This is what a
 * `SET LOCAL max_parallel_workers_per_gather = 0` would do, without the transaction and the extra
 * round trips that setting needs (`test/http/usage-query.test.ts` checks the plan).
 */
const SERIAL_PLAN = 'pg_current_xact_id_if_assigned()';

/**
 * The rollup columns of a group of contributing events `e` (alias `e`, any GROUP BY), as the fold
 * writes them and the read path computes them for events not folded yet: one definition, so a
 * group aggregates the same whether it was folded or not. Numeric columns are `numeric`.
 */
export function groupAggregatesSql(metric: UsageMetric, c: { value: string }): string {
  const numeric = metric.aggregation !== 'COUNT' && metric.aggregation !== 'COUNT_DISTINCT';
  // Only LATEST reads the latest event of a group, and its three ordered aggregates sort every
  // group: about a fifth of the fold's cost, which runs beside ingestion (see docs/usage.md).
  const latest = metric.aggregation === 'LATEST';
  const order = `ORDER BY e.ts DESC, e.event_id COLLATE "C" DESC`;
  return [
    `count(*)::int8 AS event_count`,
    `${numeric ? `coalesce(sum((${c.value})::numeric), 0)` : '0::numeric'} AS value_sum`,
    `${numeric ? `min((${c.value})::numeric)` : 'NULL::numeric'} AS value_min`,
    `${numeric ? `max((${c.value})::numeric)` : 'NULL::numeric'} AS value_max`,
    `${latest ? `(array_agg(e.ts ${order}))[1]` : 'NULL::timestamptz'} AS latest_ts`,
    `${latest ? `(array_agg(e.event_id ${order}))[1]` : 'NULL::text'} AS latest_event_id`,
    `${latest ? `(array_agg((${c.value})::numeric ${order}))[1]` : 'NULL::numeric'} AS latest_value`,
  ].join(', ');
}

/**
 * Rollup rows (hourly or daily, any GROUP BY) merged into one, in native types: dimensions,
 * event_count, value_sum, value_min, value_max, latest_ts, latest_event_id, latest_value. The
 * fold merges hours into days with it and reads merge a window's rows with it: one definition.
 */
export function mergedRollupsSql(metric: UsageMetric): string[] {
  // Only LATEST needs the latest row's event; its ordered aggregates sort every group's rows,
  // which the other aggregations need not pay.
  const latestOrder = `ORDER BY latest_ts DESC NULLS LAST, latest_event_id COLLATE "C" DESC NULLS LAST`;
  const latest =
    metric.aggregation === 'LATEST'
      ? [`(array_agg(latest_ts ${latestOrder}))[1]`, `(array_agg(latest_event_id ${latestOrder}))[1]`, `(array_agg(latest_value ${latestOrder}))[1]`]
      : ['NULL::timestamptz', 'NULL::text', 'NULL::numeric'];
  return ['(array_agg(dimensions))[1]', 'sum(event_count)::int8', 'sum(value_sum)', 'min(value_min)', 'max(value_max)', ...latest];
}

/** One row of `readUsageRows`: the state row ('s'), a group's aggregates ('r') or a distinct value ('d'). */
export type UsageReadRow =
  | { kind: 's'; snapshot: string; rollups_valid: boolean }
  | ({ kind: 'r' } & RollupGroupRow)
  | { kind: 'd'; customer_ref: string; dimensions: Record<string, string>; distinct_value: string };

/** The window of a usage read (`usageReadSql`). */
export interface UsageReadWindow {
  metric: UsageMetric;
  definitionHash: string;
  customerRefs: readonly string[] | null;
  from: Date;
  fullFrom: Date;
  dayFrom: Date;
  dayTo: Date;
  fullTo: Date;
  to: Date;
}

/**
 * A window's usage in ONE statement, so in one snapshot and one round trip (docs/usage.md,
 * "Read path"): the statement's snapshot and whether the metric's rollups are valid (their
 * definition hash is `definitionHash(metric)`), the rollups of the whole hours [fullFrom, fullTo)
 * merged per customer reference and group (the whole days [dayFrom, dayTo) inside them from the
 * daily rollups, the hours around them from the hourly ones; pass dayFrom = dayTo = fullTo when
 * they hold no whole day), their distinct values for COUNT_DISTINCT (hourly), and the
 * events not in them, aggregated per customer reference and group the way the fold aggregates
 * (`groupAggregatesSql`): those of the whole hours written at or above the rollup watermark (all of
 * them without valid rollups), and those of the partial hours [from, fullFrom) and [fullTo, to).
 * Pass fullFrom = fullTo = to when the window holds no whole hour. Each branch is gated by whether
 * the rollups are valid, a one-time condition: the branch not taken reads nothing.
 *
 * Those events are aggregated here and not in the service: a usage alert round or a bill run reads
 * thousands of customers at once, and shipping and parsing every event of the tail cost the
 * service's one thread more than the database's aggregation (the alerts bench, docs/performance.md).
 *
 * The tail above the watermark is read through the (tenant_key, xid) index only: its cost is the
 * events written since the last fold, not the events stored. (The planner cannot see the
 * watermark, read in the same statement, and would otherwise scan the customer's whole window:
 * `customer_ref || ''` keeps it off the customer index.) Without valid rollups the whole window is
 * read raw through the customer index.
 *
 * The statement is planned without parallel workers (`SERIAL_PLAN`): the planner cannot see the
 * watermark either when it costs the tail, guesses a third of the tenant's events, and at 10
 * million events chose a Gather of 2 workers whose start-up took ~20 ms of the statement's 21 for
 * a tail of a few buffers.
 */
export async function readUsageRows(db: Queryable, tenantId: string, read: UsageReadWindow): Promise<UsageReadRow[]> {
  const { text, params } = usageReadSql(read, 2);
  return scoped(db, tenantId).query<UsageReadRow>(text, params);
}

/**
 * The rows of `usageReadSql` as one `jsonb` array, for a statement that reads them beside its own
 * (the entitlement check: one round trip instead of two). `usageReadRowsOfJson` gives them back.
 */
export function usageReadJsonSql(read: UsageReadWindow, firstParam: number): { text: string; params: unknown[] } {
  const { text, params } = usageReadSql(read, firstParam);
  return { text: `(SELECT coalesce(jsonb_agg(to_jsonb(u)), '[]'::jsonb) FROM (${text}) u)`, params };
}

type JsonUsageReadRow = Omit<RollupGroupRow, 'event_count' | 'latest_ts'> & { kind: 'r'; event_count: number; latest_ts: string | null };

/** The value of `usageReadJsonSql`, as the rows `readUsageRows` gives (a count is exact up to 2^53 in JSON). */
export function usageReadRowsOfJson(json: unknown): UsageReadRow[] {
  return (json as UsageReadRow[]).map((row) => {
    if (row.kind !== 'r') return row;
    const r = row as unknown as JsonUsageReadRow;
    return { ...r, event_count: BigInt(r.event_count), latest_ts: r.latest_ts === null ? null : new Date(r.latest_ts) };
  });
}

/** The statement of `readUsageRows`: `$1` is the tenant, its other parameters `params` from `$firstParam`. */
function usageReadSql(read: UsageReadWindow, firstParam: number): { text: string; params: unknown[] } {
  const { metric } = read;
  const distinct = metric.aggregation === 'COUNT_DISTINCT';
  // the window's parameters, then the contribution's, then the refs
  const windowParams = [metric.id, read.definitionHash, metric.code, read.from, read.fullFrom, read.fullTo, read.to, read.dayFrom, read.dayTo];
  const [m, hash, code, from, fullFrom, fullTo, to, dayFrom, dayTo] = windowParams.map((_, i) => `$${firstParam + i}`);
  const $ = { metric: m, hash, code, from, fullFrom, fullTo, to, dayFrom, dayTo };
  const c = contributionSql(metric, firstParam + windowParams.length);
  // Two texts, with and without the customers' condition, rather than `($n IS NULL OR ...)`: a
  // plan made once for all values cannot use that as an index condition (planned-once reads,
  // `createPlannedOncePool`).
  const refsParam = `$${firstParam + windowParams.length + c.params.length}::text[]`;
  const refs = read.customerRefs ? `customer_ref = ANY(${refsParam})` : 'true';
  // the tail is read through the xid index; the customer index must not look cheaper to the planner
  const tailRefs = read.customerRefs ? `customer_ref || '' = ANY(${refsParam})` : 'true';
  const rollupsOf = (range: string) => `tenant_id = $1 AND metric_id = ${$.metric} AND ${refs} AND ${range} AND EXISTS (SELECT 1 FROM valid)`;
  const rollupWindow = rollupsOf(`hour >= ${$.fullFrom} AND hour < ${$.fullTo}`);
  // the whole days from the daily rollups, the whole hours around them from the hourly ones
  const rollupColumns = 'customer_ref, group_key, dimensions, event_count, value_sum, value_min, value_max, latest_ts, latest_event_id, latest_value';
  const rollupRows = `SELECT ${rollupColumns} FROM usage_rollups WHERE ${rollupsOf(`hour >= ${$.fullFrom} AND hour < ${$.dayFrom}`)}
       UNION ALL SELECT ${rollupColumns} FROM usage_rollups_daily WHERE ${rollupsOf(`day >= ${$.dayFrom} AND day < ${$.dayTo}`)}
       UNION ALL SELECT ${rollupColumns} FROM usage_rollups WHERE ${rollupsOf(`hour >= ${$.dayTo} AND hour < ${$.fullTo}`)}`;
  const [mDimensions, mCount, mSum, mMin, mMax, mLatestTs, mLatestId, mLatestValue] = mergedRollupsSql(metric);
  // the first branch names and types the columns; later branches fill the ones they lack with NULL
  const rollupCols = ['dimensions jsonb', 'event_count int8', 'value_sum text', 'value_min text', 'value_max text', 'latest_ts timestamptz', 'latest_event_id text', 'latest_value text'];
  const named = (columns: string[]) => columns.map((col) => col.split(' ')).map(([name, type]) => `NULL::${type} AS ${name}`).join(', ');
  const none = (columns: string[]) => columns.map(() => 'NULL').join(', ');
  // A metric without group-by has a constant key, which GROUP BY refuses.
  const byGroup = metric.groupBy.length > 0 ? `, ${c.groupKey}` : '';
  const rawColumns = `SELECT customer_ref, event_id, ts, properties FROM usage_events`;
  const text = `WITH state AS (
       SELECT pg_current_snapshot()::text AS snapshot, s.definition_hash, s.watermark, ${SERIAL_PLAN} AS serial_plan
       FROM (SELECT $1::text AS tenant_id) t LEFT JOIN usage_rollup_state s ON s.tenant_id = t.tenant_id AND s.metric_id = ${$.metric}
     ), valid AS (
       SELECT watermark FROM state WHERE definition_hash = ${$.hash}
     ), unfolded AS (
       ${rawColumns}
       WHERE tenant_key = ${TENANT_KEY} AND xid >= (SELECT watermark FROM valid)
         AND code = ${$.code} AND ${tailRefs} AND ts >= ${$.fullFrom} AND ts < ${$.fullTo}
       UNION ALL
       ${rawColumns}
       WHERE NOT EXISTS (SELECT 1 FROM valid) AND tenant_key = ${TENANT_KEY} AND code = ${$.code} AND ${refs} AND ts >= ${$.fullFrom} AND ts < ${$.fullTo}
       UNION ALL
       ${rawColumns}
       WHERE tenant_key = ${TENANT_KEY} AND code = ${$.code} AND ${refs} AND ((ts >= ${$.from} AND ts < ${$.fullFrom}) OR (ts >= ${$.fullTo} AND ts < ${$.to}))
     ), unfolded_groups AS (
       SELECT e.customer_ref, (array_agg(${c.dimensions}))[1] AS dimensions, ${groupAggregatesSql(metric, c)}
       FROM unfolded e WHERE ${c.where}
       GROUP BY e.customer_ref${byGroup}
     )
     SELECT 's' AS kind, snapshot, EXISTS (SELECT 1 FROM valid) AS rollups_valid, NULL::text AS customer_ref,
       ${named(rollupCols)}, NULL::text AS distinct_value
     FROM state
     UNION ALL
     SELECT 'r', NULL, NULL, customer_ref, ${mDimensions}, ${mCount}, (${mSum})::text, (${mMin})::text, (${mMax})::text,
       ${mLatestTs}, ${mLatestId}, (${mLatestValue})::text, NULL
     FROM (${rollupRows}) rolled
     GROUP BY customer_ref, group_key
     UNION ALL
     SELECT 'r', NULL, NULL, customer_ref, dimensions, event_count, value_sum::text, value_min::text, value_max::text, latest_ts, latest_event_id, latest_value::text, NULL
     FROM unfolded_groups
     ${distinct ? `UNION ALL
     SELECT 'd', NULL, NULL, customer_ref, dimensions, ${none(rollupCols.slice(1))}, distinct_value
     FROM (SELECT DISTINCT ON (customer_ref, group_key, distinct_value) customer_ref, dimensions, distinct_value FROM usage_rollup_distinct WHERE ${rollupWindow}) d
     UNION ALL
     SELECT 'd', NULL, NULL, e.customer_ref, (array_agg(${c.dimensions}))[1], ${none(rollupCols.slice(1))}, ${c.value}
     FROM unfolded e WHERE ${c.where}
     GROUP BY e.customer_ref${byGroup}, ${c.value}` : ''}`;
  return { text, params: [...windowParams, ...c.params, ...(read.customerRefs ? [read.customerRefs] : [])] };
}
