/** Time is an input: services receive a Clock, domain functions receive `now`. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; tests travel in time with it instead of sleeping. */
export class ManualClock implements Clock {
  private currentMs: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.currentMs = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.currentMs);
  }
  set(at: Date | string): void {
    this.currentMs = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.currentMs += ms;
  }
}

/**
 * A clock stopped at one instant: a test clock's frozen time, or one step of its advance. Code
 * given it runs exactly as it would at that time.
 */
export function frozenClock(at: Date): Clock {
  const ms = at.getTime();
  return { now: () => new Date(ms) };
}

/**
 * The clock's current date in UTC, `YYYY-MM-DD`: the "today" every billing rule compares civil
 * dates with (statuses, periods, start dates). The one definition; use it rather than slicing
 * `clock.now()` again.
 */
export function today(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}

export const MS_PER_SECOND = 1000;
export const MS_PER_MINUTE = 60 * MS_PER_SECOND;
export const MS_PER_HOUR = 60 * MS_PER_MINUTE;
export const MS_PER_DAY = 24 * MS_PER_HOUR;
