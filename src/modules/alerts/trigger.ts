// What makes alerts evaluate when usage is committed, cheaply enough to sit on the ingest path.
//
// Ingestion calls `eventsStored` after its statement committed, synchronously and without
// waiting: the request's 2xx never waits for alerts. An in-memory index of each tenant's active
// alerts maps (customer, metric code) to usage alerts and a customer to its spend and balance
// alerts, so a batch touching no alert costs one map look-up per distinct event key. Matching
// alerts are marked dirty; one evaluation per tenant runs at a time and takes every alert
// dirtied so far (coalescing: at 10,000 events/s an alert is evaluated once per round, not once
// per event), and an alert dirtied while a round runs is evaluated in the next one, whose
// reading includes its events.
//
// The fast lane: a usage alert whose next threshold the batch's own events may have reached
// (estimate.ts) is evaluated at once, alone or with the few others that may have crossed, in a
// round of its own that skips the pause between rounds and does not wait for the round of every
// touched alert. Evaluations lock the rows of the alerts they evaluate (evaluate.ts), so a fast
// round and a usual round run side by side unless they share an alert.
import { performance } from 'node:perf_hooks';
import type { Pool } from '../../db/pool.js';
import type { EvaluationReason } from './evaluate.js';
import type { Estimates, WatchedMetric } from './estimate.js';
import { activeAlertKeys } from './repository.js';

/** What ingestion reports of stored events (its EventRow has these fields). */
export interface StoredEventKey {
  /** The stored customer reference: the customer id, or an alias no customer has yet (`unresolved`). */
  customerRef: string;
  code: string;
  unresolved?: boolean;
  properties?: Readonly<Record<string, string>>;
}

/**
 * How long an index is used before it is read again. Alert changes made through this process
 * apply at once (`invalidate`); those made through another process apply within this time.
 */
const INDEX_TTL_MS = 2_000;
/** Evaluation rounds in flight at once, over all tenants (each holds two connections). */
const MAX_ROUNDS_IN_FLIGHT = 2;
/** A failed round's alerts are evaluated again after this. */
const RETRY_AFTER_MS = 1_000;
/**
 * Least time between the starts of two rounds of one tenant. Under steady ingestion a round
 * would otherwise start as soon as the last one ended, re-reading the raw events above the
 * rollup watermark each time (and aggregating them in this process, beside ingestion); with this
 * pause a tenant costs at most two rounds a second, whatever its event rate, and a crossing waits
 * at most this long before its round starts (the bench measured 43% of the ingestion rate with
 * 1,000 alerts at 250 ms; see docs/credits-and-alerts.md).
 */
const MIN_ROUND_INTERVAL_MS = 500;
/** Fast rounds in flight at once, over all tenants (one per tenant), beside the usual ones. */
const MAX_FAST_ROUNDS_IN_FLIGHT = 2;
/** Alerts per fast round: the rest of a storm of crossings waits for the next fast round or the usual one. */
const MAX_FAST_ROUND_ALERTS = 20;
/**
 * How long a held (quiet) alert waits before it is measured anyway. At 1,000 alerts touched by
 * every batch, holding them halves what the usual rounds read (docs/credits-and-alerts.md).
 */
const RECHECK_MS = 1_000;

interface TenantIndex {
  loadedAt: number;
  size: number;
  /** `${customer_id}\0${metric_code}` -> USAGE_UNITS alert ids */
  usage: Map<string, string[]>;
  /** customer_id -> SPEND and CREDIT_BALANCE alert ids (any usage of the customer may move them) */
  anyUsage: Map<string, string[]>;
  /** USAGE_UNITS alert id -> its metric as the fast lane's bound reads it (absent: no fast lane) */
  metrics: Map<string, WatchedMetric>;
}

/** A (customer, code) pair a batch touched, with its events. */
interface TouchedKey {
  customer: string;
  code: string;
  events: StoredEventKey[];
}

function push(map: Map<string, string[]>, key: string, id: string) {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

export interface TriggerDeps {
  pool: Pool;
  evaluate: (tenantId: string, alertIds: string[], reason: EvaluationReason) => Promise<unknown>;
  onError?: (error: unknown) => void;
  /** The fast lane: the estimates the evaluations keep, and the metric of a usage alert (both or neither). */
  fastLane?: { estimates: Estimates; metricOf: (tenantId: string, metricId: string) => Promise<WatchedMetric | undefined> };
}

export function createAlertTrigger(deps: TriggerDeps) {
  const indexes = new Map<string, TenantIndex>();
  const loading = new Map<string, Promise<TenantIndex>>();
  const dirty = new Map<string, Set<string>>();
  const running = new Set<string>();
  const lastRoundAt = new Map<string, number>();
  const delayed = new Set<string>();
  /** Per tenant: alerts that may have crossed, for the fast rounds. */
  const urgent = new Map<string, Set<string>>();
  const fastRunning = new Set<string>();
  /** Per tenant: held alerts, marked dirty together RECHECK_MS after the first of them was held. */
  const held = new Map<string, Set<string>>();
  let idleWaiters: (() => void)[] = [];

  async function load(tenantId: string): Promise<TenantIndex> {
    const pending = loading.get(tenantId);
    if (pending) return pending;
    const promise = (async () => {
      const index: TenantIndex = { loadedAt: performance.now(), size: 0, usage: new Map(), anyUsage: new Map(), metrics: new Map() };
      const rows = await activeAlertKeys(deps.pool, tenantId);
      const metricIds = new Set<string>();
      for (const row of rows) {
        index.size += 1;
        if (row.kind === 'USAGE_UNITS') {
          push(index.usage, `${row.customer_id}\u0000${row.metric_code}`, row.id);
          if (row.metric_id) metricIds.add(row.metric_id);
        } else push(index.anyUsage, row.customer_id, row.id);
      }
      if (deps.fastLane) {
        const metrics = new Map<string, WatchedMetric | undefined>();
        for (const id of metricIds) metrics.set(id, await deps.fastLane.metricOf(tenantId, id));
        for (const row of rows) {
          const metric = row.metric_id ? metrics.get(row.metric_id) : undefined;
          if (row.kind === 'USAGE_UNITS' && metric) index.metrics.set(row.id, metric);
        }
      }
      indexes.set(tenantId, index);
      return index;
    })().finally(() => loading.delete(tenantId));
    loading.set(tenantId, promise);
    return promise;
  }

  const fresh = (index: TenantIndex | undefined): index is TenantIndex => index !== undefined && performance.now() - index.loadedAt < INDEX_TTL_MS;

  function markDirty(tenantId: string, ids: Iterable<string>): void {
    let set = dirty.get(tenantId);
    for (const id of ids) {
      if (!set) dirty.set(tenantId, (set = new Set()));
      set.add(id);
    }
    if (set) pump();
  }

  function hold(tenantId: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    let set = held.get(tenantId);
    if (!set) {
      const waiting = (set = new Set());
      held.set(tenantId, waiting);
      setTimeout(() => {
        held.delete(tenantId);
        markDirty(tenantId, waiting);
      }, RECHECK_MS).unref();
    }
    for (const id of ids) set.add(id);
  }

  function match(tenantId: string, index: TenantIndex, keys: Iterable<TouchedKey>): void {
    const ids: string[] = [];
    const crossing: string[] = [];
    const quiet: string[] = [];
    for (const { customer, code, events } of keys) {
      const usage = index.usage.get(`${customer}\u0000${code}`);
      if (usage) {
        for (const id of usage) {
          const metric = index.metrics.get(id);
          const told = metric && deps.fastLane ? deps.fastLane.estimates.told(id, metric, events) : 'UNKNOWN';
          if (told === 'QUIET') quiet.push(id);
          else ids.push(id);
          if (told === 'MAY_CROSS') crossing.push(id);
        }
      }
      const any = index.anyUsage.get(customer);
      if (any) ids.push(...any);
    }
    if (crossing.length > 0) {
      let set = urgent.get(tenantId);
      if (!set) urgent.set(tenantId, (set = new Set()));
      for (const id of crossing) set.add(id);
    }
    hold(tenantId, quiet);
    markDirty(tenantId, ids);
  }

  const isIdle = () =>
    running.size === 0 && dirty.size === 0 && loading.size === 0 && delayed.size === 0 && urgent.size === 0 && fastRunning.size === 0 && held.size === 0;

  function settle(): void {
    if (!isIdle()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Fast rounds: the alerts that may have crossed, without the pause, beside the usual round. */
  function pumpFast(): void {
    for (const [tenantId, set] of urgent) {
      if (fastRunning.size >= MAX_FAST_ROUNDS_IN_FLIGHT) return;
      if (fastRunning.has(tenantId)) continue;
      const ids = [...set].slice(0, MAX_FAST_ROUND_ALERTS);
      for (const id of ids) set.delete(id);
      if (set.size === 0) urgent.delete(tenantId);
      // the fast round reads after these alerts' events committed: the usual round need not read them again for those events
      const waiting = dirty.get(tenantId);
      if (waiting) {
        for (const id of ids) waiting.delete(id);
        if (waiting.size === 0) dirty.delete(tenantId);
      }
      fastRunning.add(tenantId);
      void deps
        .evaluate(tenantId, ids, 'USAGE_COMMITTED')
        .catch((error: unknown) => {
          deps.onError?.(error);
          setTimeout(() => markDirty(tenantId, ids), RETRY_AFTER_MS).unref();
        })
        .finally(() => {
          fastRunning.delete(tenantId);
          pump();
          settle();
        });
    }
  }

  function pump(): void {
    pumpFast();
    for (const [tenantId, ids] of dirty) {
      if (running.size >= MAX_ROUNDS_IN_FLIGHT) return;
      if (running.has(tenantId) || delayed.has(tenantId)) continue;
      const wait = (lastRoundAt.get(tenantId) ?? -Infinity) + MIN_ROUND_INTERVAL_MS - performance.now();
      if (wait > 0) {
        delayed.add(tenantId);
        setTimeout(() => {
          delayed.delete(tenantId);
          pump();
        }, wait).unref();
        continue;
      }
      dirty.delete(tenantId);
      running.add(tenantId);
      lastRoundAt.set(tenantId, performance.now());
      void deps
        .evaluate(tenantId, [...ids], 'USAGE_COMMITTED')
        .catch((error: unknown) => {
          deps.onError?.(error);
          setTimeout(() => markDirty(tenantId, ids), RETRY_AFTER_MS).unref();
        })
        .finally(() => {
          running.delete(tenantId);
          pump();
          settle();
        });
    }
  }

  return {
    /** Called by ingestion after its events committed; never throws, never waits. */
    eventsStored(tenantId: string, events: readonly StoredEventKey[]): void {
      const index = indexes.get(tenantId);
      if (fresh(index) && index.size === 0) return;
      const keys = new Map<string, TouchedKey>();
      for (const event of events) {
        if (event.unresolved) continue; // no customer has the alias yet, so no alert watches it
        const key = `${event.customerRef}\u0000${event.code}`;
        const touched = keys.get(key);
        if (touched) touched.events.push(event);
        else keys.set(key, { customer: event.customerRef, code: event.code, events: [event] });
      }
      if (keys.size === 0) return;
      if (fresh(index)) return match(tenantId, index, keys.values());
      load(tenantId)
        .then((loaded) => match(tenantId, loaded, keys.values()), (error: unknown) => deps.onError?.(error))
        .finally(settle);
    },
    /** Evaluates these alerts soon (created or changed ones), through the same rounds. */
    evaluateSoon(tenantId: string, alertIds: readonly string[]): void {
      markDirty(tenantId, alertIds);
    },
    /** Alerts of the tenant changed in this process: the next batch reads the index again. */
    invalidate(tenantId: string): void {
      indexes.delete(tenantId);
    },
    /** Resolves once no evaluation is running or waiting (tests, benchmarks). */
    idle(): Promise<void> {
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

export type AlertTrigger = ReturnType<typeof createAlertTrigger>;
