import { hash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { Clock } from '../../kernel/clock.js';
import { isIdOf } from '../../kernel/ids.js';
import { canonicalPayload, checkEvent, MAX_CUSTOMER_REF_CHARS, type CheckedEvent, type RawEvent } from '../../domain/usage/index.js';
import { isStorableText } from '../../kernel/text.js';
import { resolveCustomerRefs, type TestClockTime } from '../customers/index.js';
import type { IngestFailure } from './errors.js';
import type { UsageMetricSource } from './metrics.js';
import { createGroupCommitter, type SingleOutcome } from './group-commit.js';
import { allStoredAlready, ensurePartition, eventBatch, findPayloadHashes, insertAllNewEvents, insertEvents, type EventBatch, type EventRow } from './repository.js';

/** Largest batch of POST /api/v1/events/ingest (the reference allows 100). */
export const MAX_BATCH_EVENTS = 10_000;
/** Positive customer and code look-ups are reused this long (a hot path for single events). */
const LOOKUP_CACHE_MS = 30_000;
const ROLLUP_WAKEUP_EVERY_MS = 1_000;
const ROLLUP_TRAILING_MARGIN_MS = 200;
/**
 * Group commit of single events: statements in flight at once, and events per statement. Fewer
 * statements in flight make larger groups; measured at 50 connections here: 4 in flight
 * ~9,400 req/s, 2 ~9,900-10,900 req/s, 1 ~10,400 req/s, with p99 17-19 ms throughout.
 */
const SINGLE_MAX_IN_FLIGHT = 2;
const SINGLE_MAX_GROUP = 1_000;
/**
 * A large batch is checked and hashed in slices of this many events, letting the event loop run
 * in between: other requests (and this batch's own database round trips) are not held up for the
 * whole batch (a 2,000-event slice takes about 12 ms here).
 */
const EVENTS_PER_SLICE = 2_000;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type { IngestFailure };

export interface IngestOptions {
  allowBackfilling: boolean;
  allowPartialFailures: boolean;
  /** Refuse events whose code no billable metric reads. */
  strict: boolean;
}

export interface IngestResult {
  /** Events stored by this call. */
  ingested: number;
  duplicates: number;
  /** Of the stored events, those inside a period an invoice has already billed: billed later as late usage. */
  inFinalizedPeriods: number;
  /** Of the stored events, those naming a customer reference (alias) no customer has yet. */
  unknownCustomers: number;
  /** The distinct unknown references of those. */
  unknownCustomerRefs: string[];
  failures: IngestFailure[];
  /** False when a bad event made the whole batch refused (nothing stored). */
  accepted: boolean;
}

function cache<V>() {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    /** `nowMs`: performance.now(), read once by a caller looking up many keys. */
    get(key: string, nowMs = performance.now()): V | undefined {
      const hit = entries.get(key);
      if (!hit || hit.until < nowMs) return undefined;
      return hit.value;
    },
    set(key: string, value: V) {
      if (entries.size > 100_000) entries.clear();
      entries.set(key, { value, until: performance.now() + LOOKUP_CACHE_MS });
    },
  };
}

/** A customer reference resolved: the stored id, and the test clock it runs on (never changes, so it is cached with it). */
interface ResolvedCustomer {
  id: string;
  testClockId: string | null;
}

/**
 * A reaction of another module to committed usage (usage alerts, spend thresholds), passed in by
 * the composition root. One semantics for every subscriber (docs/credits-and-alerts.md, "The ingest hook"):
 * - It is called after the statement that stored the events has committed, with the rows of
 *   the batch (on the batch path also rows already stored before: a repeat is harmless).
 * - All subscribers start together and the request's answer waits for all of them to settle. A
 *   subscriber whose work must not delay the answer returns at once and does it later (alerts
 *   only mark alerts to evaluate); one that returns a promise is awaited (thresholds queue their
 *   check job, which is therefore queued by the time the 2xx is sent).
 * - A failure (a throw or a rejection) never fails the request: the events are stored and stay
 *   stored (a retry would only find duplicates). The failure is reported to `onError` (logged)
 *   and the subscriber's own mechanism catches up: the billing run re-checks every threshold,
 *   and alerts are evaluated again by the next event or the period-boundary job.
 */
export interface UsageSubscriber {
  /** Names the subscriber in the log. */
  name: string;
  stored(tenantId: string, events: readonly EventRow[]): void | Promise<void>;
}

/** The customer ids of stored rows (events kept under an alias no customer has yet name none). */
export function storedCustomerIds(rows: readonly EventRow[]): string[] {
  const ids = new Set<string>();
  for (const row of rows) if (!row.unresolved) ids.add(row.customerRef);
  return [...ids];
}

export interface IngestDeps {
  pool: Pool;
  clock: Clock;
  metrics: UsageMetricSource;
  /** `testClockTime` (test-clocks): events of a customer on a test clock are checked against the clock's time. */
  testClockTime?: TestClockTime;
  /** Told of committed usage, see UsageSubscriber. */
  subscribers?: readonly UsageSubscriber[];
  /** A subscriber failed (the events are stored regardless). */
  onError?: (error: unknown, subscriber: string) => void;
}

export function createIngestService(deps: IngestDeps) {
  const { pool, clock, metrics } = deps;
  const subscribers = deps.subscribers ?? [];
  /** After the commit: every subscriber, awaited together; a failure is reported, never thrown. */
  const afterCommit = async (tenantId: string, rows: readonly EventRow[]): Promise<void> => {
    if (rows.length === 0 || subscribers.length === 0) return;
    await Promise.all(subscribers.map(async (subscriber) => {
      try {
        await subscriber.stored(tenantId, rows);
      } catch (error) {
        deps.onError?.(error, subscriber.name);
      }
    }));
  };
  const customerRefs = cache<ResolvedCustomer>();
  const knownCodes = cache<true>();
  const knownMonths = new Set<number>(); // year * 12 + month (UTC)
  const lastWakeup = new Map<string, number>();
  /** Tenants whose wake-up for the end of the current second is queued. */
  const trailingWakeup = new Set<string>();

  /**
   * Look-ups under way, by cache key: concurrent batches naming the same references (every batch
   * of a busy tenant once the cache has expired) share one statement instead of each sending its own.
   */
  const pendingRefs = new Map<string, Promise<ResolvedCustomer | undefined>>();

  /**
   * The stored reference and test clock of each customer id or alias (undefined when no customer
   * has it): cached ones at once, the others in one statement for the whole batch. One statement
   * per reference made a 1,000-customer batch send 1,000 statements each time the cache expired.
   */
  async function resolveCustomers(tenantId: string, refs: readonly string[]): Promise<Map<string, ResolvedCustomer | undefined>> {
    const resolved = new Map<string, ResolvedCustomer | undefined>();
    const waiting: Promise<void>[] = [];
    const missing: string[] = [];
    const nowMs = performance.now();
    for (const ref of refs) {
      const cacheKey = `${tenantId}\u0000${ref}`;
      const hit = customerRefs.get(cacheKey, nowMs);
      if (hit) resolved.set(ref, hit);
      else {
        const pending = pendingRefs.get(cacheKey);
        if (pending) waiting.push(pending.then((customer) => void resolved.set(ref, customer)));
        else missing.push(ref);
      }
    }
    if (missing.length > 0) {
      const lookup = resolveCustomerRefs(pool, tenantId, missing).then((rows) => new Map(rows.map((r) => [r.ref, { id: r.id, testClockId: r.test_clock_id }])));
      for (const ref of missing) {
        const cacheKey = `${tenantId}\u0000${ref}`;
        const one = lookup.then((found) => found.get(ref));
        pendingRefs.set(cacheKey, one);
        waiting.push(one.then((customer) => {
          resolved.set(ref, customer);
          if (customer) customerRefs.set(cacheKey, customer);
        }));
      }
      void lookup.catch(() => undefined).finally(() => {
        for (const ref of missing) pendingRefs.delete(`${tenantId}\u0000${ref}`);
      });
    }
    await Promise.all(waiting);
    return resolved;
  }

  /**
   * Events of customers on a test clock are checked against the clock's frozen time instead of
   * `now` (docs/test-clocks.md): their window check is run again with it, which may accept an
   * event refused at `now` or refuse one accepted. Only when such a customer is among `refs`.
   */
  async function recheckOnTestClocks(
    tenantId: string, raws: readonly RawEvent[], allowBackfilling: boolean, refs: Map<string, ResolvedCustomer | undefined>,
    outcome: { checked: CheckedEvent[]; checkedIndexes: number[]; failures: IngestFailure[] },
  ): Promise<void> {
    const clockIds = new Set([...refs.values()].flatMap((c) => (c?.testClockId ? [c.testClockId] : [])));
    if (clockIds.size === 0 || !deps.testClockTime) return;
    const times = new Map<string, Date>();
    for (const id of clockIds) {
      const at = await deps.testClockTime(pool, tenantId, id);
      if (at) times.set(id, at);
    }
    const clockNow = (index: number): Date | undefined => {
      const ref = raws[index]!.customer_id;
      const clockId = typeof ref === 'string' ? refs.get(ref)?.testClockId : undefined;
      return clockId ? times.get(clockId) : undefined;
    };
    const byIndex = new Map<number, { event: CheckedEvent } | { failure: IngestFailure }>();
    outcome.checked.forEach((event, i) => byIndex.set(outcome.checkedIndexes[i]!, { event }));
    for (const failure of outcome.failures) byIndex.set(failure.index, { failure });
    outcome.checked.length = 0;
    outcome.checkedIndexes.length = 0;
    outcome.failures.length = 0;
    for (const [index, previous] of [...byIndex].sort((a, b) => a[0] - b[0])) {
      const at = clockNow(index);
      const raw = raws[index]!;
      const result = at ? checkEvent(raw, at, allowBackfilling) : 'event' in previous ? { ok: true as const, event: previous.event } : undefined;
      if (result?.ok) {
        outcome.checked.push(result.event);
        outcome.checkedIndexes.push(index);
      } else {
        outcome.failures.push(result ? { index, event_id: typeof raw.event_id === 'string' ? raw.event_id : '', reason: result.reason, kind: 'INVALID_EVENT' } : (previous as { failure: IngestFailure }).failure);
      }
    }
  }

  async function codeExists(tenantId: string, code: string): Promise<boolean> {
    const cacheKey = `${tenantId}\u0000${code}`;
    if (knownCodes.get(cacheKey)) return true;
    const exists = await metrics.codeExists(tenantId, code);
    if (exists) knownCodes.set(cacheKey, true);
    return exists;
  }

  async function ensurePartitions(events: readonly { timestamp: Date }[]): Promise<void> {
    for (const event of events) {
      const month = event.timestamp.getUTCFullYear() * 12 + event.timestamp.getUTCMonth();
      if (knownMonths.has(month)) continue;
      await ensurePartition(pool, event.timestamp);
      knownMonths.add(month);
    }
  }

  /**
   * Wakes the rollup worker for this tenant at most once a second (it is idempotent): at once
   * when the last wake-up is a second old, else once more at the end of that second, so events
   * stored meanwhile are folded too. The fold is what flags late usage for billing (docs/usage.md,
   * "Late usage"), so no batch may be left waiting for the tenant's next one.
   */
  async function wakeRollups(tenantId: string): Promise<void> {
    const nowMs = performance.now();
    const last = lastWakeup.get(tenantId) ?? -Infinity;
    // Outside the ingest transaction on purpose: the wake-up is not state, and one shared job
    // row updated by every ingest transaction would serialise them.
    const enqueue = (runAt?: Date) => enqueueJob(pool, 'usage.rollup', { tenant_id: tenantId }, { jobKey: `usage.rollup:${tenantId}`, ...(runAt ? { runAt } : {}) });
    if (nowMs - last >= ROLLUP_WAKEUP_EVERY_MS) {
      lastWakeup.set(tenantId, nowMs);
      trailingWakeup.delete(tenantId);
      await enqueue().catch(() => lastWakeup.delete(tenantId));
      return;
    }
    if (trailingWakeup.has(tenantId)) return;
    trailingWakeup.add(tenantId);
    // A margin past the second, so a job clock slightly ahead of ours does not fold before this batch's commit.
    const runAt = new Date(Date.now() + (last + ROLLUP_WAKEUP_EVERY_MS - nowMs) + ROLLUP_TRAILING_MARGIN_MS);
    await enqueue(runAt).catch(() => trailingWakeup.delete(tenantId));
  }

  /**
   * Checks fields, resolves customers (and codes when strict), hashes payloads and drops repeats
   * inside the request. What is left are the rows to write, each with a distinct id, and the
   * index in the request of each (parallel arrays: a batch's per-event objects are what its
   * garbage collection costs).
   */
  async function prepare(tenantId: string, raws: readonly RawEvent[], options: IngestOptions, now: Date) {
    const failures: IngestFailure[] = [];
    const checked: CheckedEvent[] = [];
    const checkedIndexes: number[] = [];
    for (let index = 0; index < raws.length; index++) {
      if (index % EVENTS_PER_SLICE === EVENTS_PER_SLICE - 1) await yieldToEventLoop();
      const raw = raws[index]!;
      const result = checkEvent(raw, now, options.allowBackfilling);
      if (result.ok) {
        checked.push(result.event);
        checkedIndexes.push(index);
      } else {
        failures.push({ index, event_id: typeof raw.event_id === 'string' ? raw.event_id : '', reason: result.reason, kind: 'INVALID_EVENT' });
      }
    }

    // refused events' customers too: one on a test clock may be in the window of its clock's time
    const refusedRefs = failures.map((f) => raws[f.index]!.customer_id).filter((ref): ref is string => typeof ref === 'string' && ref !== '' && ref.length <= MAX_CUSTOMER_REF_CHARS && isStorableText(ref));
    const distinctRefs = new Set<string>(refusedRefs);
    for (const event of checked) distinctRefs.add(event.customerRef);
    const refs = await resolveCustomers(tenantId, [...distinctRefs]);
    await recheckOnTestClocks(tenantId, raws, options.allowBackfilling, refs, { checked, checkedIndexes, failures });
    const codes = new Map<string, boolean>();
    if (options.strict) {
      await Promise.all([...new Set(checked.map((e) => e.code))].map(async (code) => codes.set(code, await codeExists(tenantId, code))));
    }

    const rows: EventRow[] = [];
    const indexes: number[] = [];
    const positionById = new Map<string, number>();
    let duplicates = 0;
    let unresolvedRows = 0;
    const fail = (index: number, event: CheckedEvent, reason: string) => failures.push({ index, event_id: event.eventId, reason, kind: 'INVALID_EVENT' });
    for (let i = 0; i < checked.length; i++) {
      if (i % EVENTS_PER_SLICE === EVENTS_PER_SLICE - 1) await yieldToEventLoop();
      const event = checked[i]!;
      const index = checkedIndexes[i]!;
      let customerRef = refs.get(event.customerRef)?.id;
      let unresolved = false;
      if (customerRef === undefined) {
        // Events may arrive before their customer (a migration, a signup processed later): an
        // alias (anything not shaped like one of our customer ids) is kept and counts once a
        // customer takes it. An unknown id of our shape is a mistake: no customer can get it.
        if (isIdOf('customer', event.customerRef)) {
          fail(index, event, `customer '${event.customerRef}' not found (customer_id takes a customer id or alias; an unknown alias is kept, an unknown id is refused)`);
          continue;
        }
        customerRef = event.customerRef;
        unresolved = true;
      }
      if (options.strict && !codes.get(event.code)) {
        fail(index, event, `code '${event.code}' is not the code of any billable metric`);
        continue;
      }
      // One-shot hash to hex: no Hash object and no Buffer per event (half the cost of a Buffer digest).
      const payloadHash = hash('sha256', canonicalPayload(event, customerRef), 'hex');
      const earlier = positionById.get(event.eventId);
      if (earlier !== undefined) {
        if (rows[earlier]!.payloadHash === payloadHash) duplicates += 1;
        else fail(index, event, `event_id '${event.eventId}' appears earlier in this batch (index ${indexes[earlier]}) with a different payload`);
        continue;
      }
      positionById.set(event.eventId, rows.length);
      rows.push({ eventId: event.eventId, code: event.code, customerRef, timestamp: event.timestamp, properties: event.properties, payloadHash, ...(unresolved ? { unresolved } : {}) });
      indexes.push(index);
      if (unresolved) unresolvedRows += 1;
    }
    failures.sort((a, b) => a.index - b.index);
    return { failures, rows, indexes, duplicates, unresolvedRows };
  }

  /**
   * Writes rows with distinct ids in one statement (atomic on its own) and tells, for each id,
   * whether it was stored (and then whether in a billed period), a duplicate (same payload
   * already stored) or a conflict.
   */
  async function writeRows(db: Queryable, tenantId: string, batch: EventBatch): Promise<Map<string, SingleOutcome>> {
    const outcomes = new Map<string, SingleOutcome>();
    const { stored, differing, unseen } = await insertEvents(db, tenantId, batch);
    const conflicting = new Set(differing);
    if (unseen.length > 0) {
      const hashes = await findPayloadHashes(db, tenantId, unseen);
      const unseenIds = new Set(unseen);
      for (const row of batch.rows) if (unseenIds.has(row.eventId) && hashes.get(row.eventId) !== row.payloadHash) conflicting.add(row.eventId);
    }
    for (const row of batch.rows) {
      const written = stored.get(row.eventId);
      if (written) outcomes.set(row.eventId, { kind: 'stored', late: written.late });
      else if (conflicting.has(row.eventId)) outcomes.set(row.eventId, { kind: 'conflict', reason: `event_id '${row.eventId}' was already ingested with a different payload` });
      else outcomes.set(row.eventId, { kind: 'duplicate' });
    }
    return outcomes;
  }

  /**
   * The two cheap cases, in autocommit statements (a failed one would abort a transaction): every
   * id new (one insert; the ids of late events), or every event stored before with the same
   * payload (a re-sent batch, told by a read). 'mixed' leaves the batch to `writeRows`.
   */
  async function writeNewOrResent(tenantId: string, batch: EventBatch): Promise<{ late: string[] } | 'resent' | 'mixed'> {
    const fast = await insertAllNewEvents(pool, tenantId, batch);
    if (fast) return fast;
    return (await allStoredAlready(pool, tenantId, batch)) ? 'resent' : 'mixed';
  }

  /** Each row's outcome: the cheap cases first, else the statement that sorts out seen ids. */
  async function writeAll(tenantId: string, rows: readonly EventRow[], now: Date): Promise<Map<string, SingleOutcome>> {
    const batch = eventBatch(rows, now);
    const written = await writeNewOrResent(tenantId, batch);
    if (written === 'mixed') return writeRows(pool, tenantId, batch);
    if (written === 'resent') return new Map(rows.map((row) => [row.eventId, { kind: 'duplicate' }]));
    const late = new Set(written.late);
    return new Map(rows.map((row) => [row.eventId, { kind: 'stored', late: late.has(row.eventId) }]));
  }

  const singles = createGroupCommitter(
    async (tenantId, rows) => {
      await ensurePartitions(rows);
      // outside a transaction: a failed statement would abort it
      const outcomes = await writeAll(tenantId, rows, clock.now());
      if ([...outcomes.values()].some((o) => o.kind === 'stored')) {
        // subscribers first: afterCommit calls them before its first await
        await Promise.all([afterCommit(tenantId, rows.filter((row) => outcomes.get(row.eventId)?.kind === 'stored')), wakeRollups(tenantId)]);
      }
      return outcomes;
    },
    { maxInFlight: SINGLE_MAX_IN_FLIGHT, maxGroup: SINGLE_MAX_GROUP },
  );

  const refusedResult = (failures: IngestFailure[]): IngestResult => ({ ingested: 0, duplicates: 0, inFinalizedPeriods: 0, unknownCustomers: 0, unknownCustomerRefs: [], failures, accepted: false });

  /**
   * Checks, resolves and stores a batch. Without partial failures, one bad event refuses the
   * batch and nothing is stored; with them, good events are stored and the bad ones listed.
   * Duplicates of stored events are counted as such and change nothing.
   */
  async function ingest(tenantId: string, raws: readonly RawEvent[], options: IngestOptions): Promise<IngestResult> {
    const now = clock.now();
    const prepared = await prepare(tenantId, raws, options, now);
    const { failures, rows, indexes } = prepared;
    let duplicates = prepared.duplicates;
    if (failures.length > 0 && !options.allowPartialFailures) return refusedResult(failures);
    let stored = 0;
    let inFinalizedPeriods = 0;
    const unknown = new Set<string>();
    let unknownCustomers = 0;
    const conflicts: IngestFailure[] = [];
    const resolve = (outcomes: Map<string, SingleOutcome>) => {
      rows.forEach((row, i) => {
        const outcome = outcomes.get(row.eventId)!;
        if (outcome.kind === 'stored') {
          stored += 1;
          if (outcome.late) inFinalizedPeriods += 1;
          if (row.unresolved) {
            unknownCustomers += 1;
            unknown.add(row.customerRef);
          }
        } else if (outcome.kind === 'duplicate') duplicates += 1;
        else conflicts.push({ index: indexes[i]!, event_id: row.eventId, reason: outcome.reason, kind: 'PAYLOAD_CONFLICT' });
      });
    };
    if (rows.length > 0) {
      await ensurePartitions(rows);
      const batch = eventBatch(rows, now);
      const written = await writeNewOrResent(tenantId, batch);
      if (written === 'resent') {
        duplicates += rows.length;
      } else if (written !== 'mixed') {
        // every row stored: the usual case, counted without a per-row outcome
        stored = rows.length;
        inFinalizedPeriods = written.late.length;
        for (const row of prepared.unresolvedRows > 0 ? rows : []) {
          if (!row.unresolved) continue;
          unknownCustomers += 1;
          unknown.add(row.customerRef);
        }
      } else if (options.allowPartialFailures) {
        // One statement is atomic on its own; conflicting ids were simply not inserted.
        resolve(await writeRows(pool, tenantId, batch));
      } else {
        // Some ids were seen: a conflict among them refuses the batch, so write in a transaction.
        const refused = new Error('refused');
        try {
          await withTx(pool, async (tx) => {
            resolve(await writeRows(tx, tenantId, batch));
            if (conflicts.length > 0) throw refused;
          });
        } catch (error) {
          if (error !== refused) throw error;
          return refusedResult(conflicts);
        }
      }
      if (stored > 0) {
        // every row of the batch, stored now or before (a duplicate only makes a repeated, idempotent reaction);
        // subscribers first: afterCommit calls them before its first await
        await Promise.all([afterCommit(tenantId, rows), wakeRollups(tenantId)]);
      }
    }
    const all = [...failures, ...conflicts].sort((a, b) => a.index - b.index);
    return { ingested: stored, duplicates, inFinalizedPeriods, unknownCustomers, unknownCustomerRefs: [...unknown], failures: all, accepted: true };
  }

  /**
   * One real-time event (POST /api/v1/events): same checks as a batch of one, written through
   * the group committer together with concurrent single events.
   */
  async function ingestOne(tenantId: string, raw: RawEvent): Promise<IngestResult> {
    const options = { allowBackfilling: false, allowPartialFailures: false, strict: false };
    const { failures, rows } = await prepare(tenantId, [raw], options, clock.now());
    const row = rows[0];
    if (!row) return refusedResult(failures);
    const outcome = await singles.submit(tenantId, row);
    if (outcome.kind === 'conflict') return refusedResult([{ index: 0, event_id: row.eventId, reason: outcome.reason, kind: 'PAYLOAD_CONFLICT' }]);
    const storedNow = outcome.kind === 'stored';
    const unknownCustomers = storedNow && row.unresolved ? 1 : 0;
    return {
      ingested: storedNow ? 1 : 0,
      duplicates: outcome.kind === 'duplicate' ? 1 : 0,
      inFinalizedPeriods: storedNow && outcome.late ? 1 : 0,
      unknownCustomers,
      unknownCustomerRefs: unknownCustomers ? [row.customerRef] : [],
      failures: [],
      accepted: true,
    };
  }

  return { ingest, ingestOne };
}

export type IngestService = ReturnType<typeof createIngestService>;
