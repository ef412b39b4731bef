import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { MS_PER_MINUTE, type Clock } from '../kernel/clock.js';
import type { Pool } from '../db/pool.js';

/** What this process knows of one key's current fixed window. */
interface WindowCount {
  windowStartMs: number;
  windowMs: number;
  /** Hits of all processes in the shared table, as of this process's last sync. */
  sharedHits: number;
  /** Hits counted here and not yet sent to the table. */
  pendingHits: number;
  /** Hits of the sync under way: sent, not yet confirmed. */
  sendingHits: number;
}

export interface RateLimitCount {
  /** Hits in the current window, this one included (for `incr`). */
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

const CLEANUP_EVERY_MS = MS_PER_MINUTE;

/**
 * Fixed-window counters that several server processes share through `rate_limit_windows`
 * (src/db/migrations/0760_rate_limits.sql) without a database round trip per request.
 *
 * A request is counted in memory and answered at once. Every `syncIntervalMs` one statement adds
 * each key's new hits to its row and reads back the total of all processes. A process therefore
 * sees the others' hits at most one sync interval (plus the statement's time) late: across N
 * processes a limit can be passed by what the other N-1 processes admit in that time, never
 * within one process. Windows are aligned to the epoch (`now - now % window`) so every process
 * puts a hit in the same row without agreeing on anything. Time is the injected clock.
 */
export class SharedWindowCounters {
  private readonly windows = new Map<string, WindowCount>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private lastCleanupMs: number;
  private failing = false;

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
    private readonly syncIntervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    this.lastCleanupMs = clock.now().getTime();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.syncIntervalMs);
    // A pending sync must never keep a finished test or a shutting-down server alive.
    this.timer.unref();
  }

  /** Stops the timer and waits for a sync under way, so nothing queries a pool about to end. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.syncing;
  }

  incr(key: string, timeWindowMs: number): RateLimitCount {
    const nowMs = this.clock.now().getTime();
    const window = this.windowOf(key, timeWindowMs, nowMs, true)!;
    window.pendingHits += 1;
    return { current: hitsOf(window), ttl: window.windowStartMs + timeWindowMs - nowMs };
  }

  /** The count without adding a hit (the library's `{ increment: false }`). */
  read(key: string, timeWindowMs: number): RateLimitCount {
    const nowMs = this.clock.now().getTime();
    const window = this.windowOf(key, timeWindowMs, nowMs, false);
    return window ? { current: hitsOf(window), ttl: window.windowStartMs + timeWindowMs - nowMs } : { current: 0, ttl: 0 };
  }

  /** Sends the hits counted since the last sync and reads every live window's shared total. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private windowOf(key: string, timeWindowMs: number, nowMs: number, create: boolean): WindowCount | undefined {
    const windowStartMs = nowMs - (nowMs % timeWindowMs);
    let window = this.windows.get(key);
    if (window && window.windowStartMs === windowStartMs && window.windowMs === timeWindowMs) return window;
    if (!create) return undefined;
    // A new window: the old one's unsent hits no longer matter to anyone.
    window = { windowStartMs, windowMs: timeWindowMs, sharedHits: 0, pendingHits: 0, sendingHits: 0 };
    this.windows.set(key, window);
    return window;
  }

  private async syncOnce(): Promise<void> {
    const nowMs = this.clock.now().getTime();
    const batch: [string, WindowCount][] = [];
    for (const [key, window] of this.windows) {
      if (window.windowStartMs + window.windowMs <= nowMs) {
        this.windows.delete(key);
        continue;
      }
      window.sendingHits = window.pendingHits;
      window.pendingHits = 0;
      batch.push([key, window]);
    }
    try {
      if (batch.length > 0) await this.exchange(batch);
      if (nowMs - this.lastCleanupMs >= CLEANUP_EVERY_MS) {
        this.lastCleanupMs = nowMs;
        await this.pool.query('DELETE FROM rate_limit_windows WHERE expires_at <= $1', [new Date(nowMs)]);
      }
      if (this.failing) this.log.info('rate-limit counters are shared again');
      this.failing = false;
    } catch (error) {
      // Unsent hits go out with the next sync; meanwhile each process still limits on its own.
      for (const [, window] of batch) {
        window.pendingHits += window.sendingHits;
        window.sendingHits = 0;
      }
      if (!this.failing) this.log.warn({ err: error }, 'rate-limit counters could not be shared; limiting per process until the database answers');
      this.failing = true;
    }
  }

  /** One statement: adds the unsent hits (one upsert per key) and returns every batch key's total. */
  private async exchange(batch: [string, WindowCount][]): Promise<void> {
    const { rows } = await this.pool.query<{ key: string; window_start: Date; hits: bigint }>(
      `WITH batch AS (
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::int8[]) AS b(key, window_start, expires_at, hits)
       ), added AS (
         INSERT INTO rate_limit_windows AS w (key, window_start, expires_at, hits)
         SELECT key, window_start, expires_at, hits FROM batch WHERE hits > 0
         ON CONFLICT (key, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
         RETURNING w.key, w.window_start, w.hits
       )
       SELECT key, window_start, hits FROM added
       UNION ALL
       SELECT w.key, w.window_start, w.hits FROM rate_limit_windows w JOIN batch b USING (key, window_start) WHERE b.hits = 0`,
      [
        batch.map(([key]) => key),
        batch.map(([, w]) => new Date(w.windowStartMs).toISOString()),
        batch.map(([, w]) => new Date(w.windowStartMs + w.windowMs).toISOString()),
        batch.map(([, w]) => String(w.sendingHits)),
      ],
    );
    const totals = new Map(rows.map((row) => [`${row.key}\n${row.window_start.getTime()}`, Number(row.hits)]));
    for (const [key, window] of batch) {
      // The key may have moved to a new window meanwhile; that window starts from its own count.
      if (this.windows.get(key) !== window) continue;
      window.sharedHits = totals.get(`${key}\n${window.windowStartMs}`) ?? window.sharedHits;
      window.sendingHits = 0;
    }
  }
}

function hitsOf(window: WindowCount): number {
  return window.sharedHits + window.sendingHits + window.pendingHits;
}

/**
 * The class @fastify/rate-limit instantiates (`store` option). Every limiter of the app gets the
 * same counters (keys carry their class), so `child` hands back an adapter over them too; window
 * length and limit arrive with each call.
 */
export function storeClassOf(counters: SharedWindowCounters): FastifyRateLimitStoreCtor {
  return class SharedWindowStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: RateLimitCount) => void, timeWindowMs: number): void {
      callback(null, counters.incr(key, timeWindowMs));
    }

    read(key: string, callback: (error: Error | null, result?: RateLimitCount) => void, timeWindowMs: number): void {
      callback(null, counters.read(key, timeWindowMs));
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
