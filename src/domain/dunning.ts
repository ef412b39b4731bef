// Dunning: when a failed automatic payment is tried again, as a pure function of the first
// failure's time and the tenant's schedule, so the retry job (reading `clock.now()`) runs the same
// on the service clock, a ManualClock or a test clock.
import { MS_PER_DAY } from '../kernel/clock.js';
import type { SubscriptionStatus } from './subscription-lifecycle.js';

/** What happens after the last retry failed. */
export const DUNNING_FINAL_ACTIONS = ['MARK_UNCOLLECTIBLE', 'CANCEL_SUBSCRIPTION', 'NONE'] as const;
export type DunningFinalAction = (typeof DUNNING_FINAL_ACTIONS)[number];

export interface DunningSchedule {
  /** Days after the first failure on which the charge is tried again, strictly increasing. */
  retryDays: readonly number[];
  finalAction: DunningFinalAction;
}

export const DEFAULT_DUNNING_SCHEDULE: DunningSchedule = { retryDays: [3, 5, 7], finalAction: 'NONE' };
/** At most this many retries, at most this many days after the failure. */
export const MAX_DUNNING_RETRIES = 10;
export const MAX_DUNNING_DAY = 90;

/** Why a schedule's retry days are refused, or null when they are fine. */
export function retryDaysProblem(days: readonly number[]): string | null {
  if (days.length > MAX_DUNNING_RETRIES) return `at most ${MAX_DUNNING_RETRIES} retries`;
  for (const [i, day] of days.entries()) {
    if (!Number.isInteger(day) || day < 1 || day > MAX_DUNNING_DAY) return `each day must be a whole number from 1 to ${MAX_DUNNING_DAY}, got ${day}`;
    if (i > 0 && day <= days[i - 1]!) return `days must be strictly increasing, got ${days[i - 1]} then ${day}`;
  }
  return null;
}

/** The due time of every retry: the first failure plus each schedule day (24 h days, UTC). */
export function dunningRetryTimes(failedAt: Date, retryDays: readonly number[]): Date[] {
  return retryDays.map((day) => new Date(failedAt.getTime() + day * MS_PER_DAY));
}

/**
 * What comes after retry number `retriesDone` failed (0: the first, automatic charge failed):
 * the next retry and its due time, or the final action when the schedule is used up.
 */
export function nextDunningStep(failedAt: Date, schedule: DunningSchedule, retriesDone: number): { retry: number; dueAt: Date } | { finalAction: DunningFinalAction } {
  const times = dunningRetryTimes(failedAt, schedule.retryDays);
  const dueAt = times[retriesDone];
  return dueAt ? { retry: retriesDone + 1, dueAt } : { finalAction: schedule.finalAction };
}

/** The status a subscription shows: PAST_DUE while it runs with an overdue invoice. */
export function shownSubscriptionStatus(status: SubscriptionStatus, pastDue: boolean): SubscriptionStatus | 'PAST_DUE' {
  return pastDue && (status === 'ACTIVE' || status === 'TRIAL_ACTIVE') ? 'PAST_DUE' : status;
}
