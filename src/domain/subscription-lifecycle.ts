// A subscription's lifecycle and schedule rules, as pure functions of its dates and `today`.
// Statuses move only with the clock (start, trial end, cancellation date, end date) or with an
// explicit immediate cancellation; nothing else changes them.
//
//   PENDING_ACTIVATION --start_date--> TRIAL_ACTIVE --trial_end_date--> ACTIVE
//   PENDING_ACTIVATION --start_date--> ACTIVE (no trial)
//   any live status --cancel_effective_date--> CANCELLED   (terminal)
//   any live status --end_date-->              COMPLETED   (terminal)
// A cancellation dated on or before the end date wins over completion.
//
// The subscriptions module applies these to its stored rows; the billing engine
// (src/domain/billing) takes the stop date, the fee ranges in force and the shortest term from
// here too, so the status, the periods shown and the invoices cannot disagree about them. The
// next invoice date is the engine's (`nextOccasion`), because only the engine knows which
// occasions have something to bill.
import type { EventType } from '../kernel/event-types.js';
import { addDays, compareDates, earliestDate, type LocalDate } from './dates.js';
import { periodContaining, TERM_MONTHS, type BillingPeriod, type BillingTerm } from './periods.js';

export const SUBSCRIPTION_STATUSES = ['PENDING_ACTIVATION', 'TRIAL_ACTIVE', 'ACTIVE', 'CANCELLED', 'COMPLETED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const LIVE_STATUSES: readonly SubscriptionStatus[] = ['PENDING_ACTIVATION', 'TRIAL_ACTIVE', 'ACTIVE'];

export interface LifecycleDates {
  startDate: LocalDate;
  /** Exclusive end of the trial, or null without trial. */
  trialEndDate: LocalDate | null;
  /** Exclusive end of the contract, or null when open-ended. */
  endDate: LocalDate | null;
  /** Exclusive end set by a cancellation, or null. */
  cancelEffectiveDate: LocalDate | null;
}

export function isLive(status: SubscriptionStatus): boolean {
  return LIVE_STATUSES.includes(status);
}

/** The exclusive date service and billing stop: the earlier of the cancellation and the end date, or null. */
export function stopDate(dates: Pick<LifecycleDates, 'endDate' | 'cancelEffectiveDate'>): LocalDate | null {
  return earliestDate(dates.cancelEffectiveDate, dates.endDate);
}

/** The status on `today`. */
export function statusOn(dates: LifecycleDates, today: LocalDate): SubscriptionStatus {
  const reached = (date: LocalDate | null) => date !== null && compareDates(today, date) >= 0;
  const cancelFirst = dates.cancelEffectiveDate !== null && (dates.endDate === null || compareDates(dates.cancelEffectiveDate, dates.endDate) <= 0);
  if (cancelFirst && reached(dates.cancelEffectiveDate)) return 'CANCELLED';
  if (reached(dates.endDate)) return 'COMPLETED';
  if (compareDates(today, dates.startDate) < 0) return 'PENDING_ACTIVATION';
  if (dates.trialEndDate !== null && compareDates(today, dates.trialEndDate) < 0) return 'TRIAL_ACTIVE';
  return 'ACTIVE';
}

/** The first date after `today` on which the status will change, or null when it never will. */
export function nextTransitionOn(dates: LifecycleDates, today: LocalDate): LocalDate | null {
  const current = statusOn(dates, today);
  if (!isLive(current)) return null;
  const candidates = [dates.startDate, dates.trialEndDate, dates.endDate, dates.cancelEffectiveDate]
    .filter((date): date is LocalDate => date !== null && compareDates(date, today) > 0)
    .sort(compareDates);
  return candidates.find((date) => statusOn(dates, date) !== current) ?? null;
}

/**
 * The day the clock next has something to do to a live subscription (stored as its
 * `next_transition_on`): its next status change, or a plan change scheduled for a period end
 * when that comes first. Null once it has stopped.
 */
export function nextClockEventOn(dates: LifecycleDates, today: LocalDate, scheduledChangeOn: LocalDate | null | undefined): LocalDate | null {
  return earliestDate(nextTransitionOn(dates, today), isLive(statusOn(dates, today)) ? scheduledChangeOn : null);
}

/** The outbox event kind for a move between two statuses (null when nothing moved). */
export function transitionEvent(from: SubscriptionStatus, to: SubscriptionStatus): EventType | null {
  if (from === to) return null;
  switch (to) {
    case 'TRIAL_ACTIVE':
      return 'subscription.trial_started';
    case 'ACTIVE':
      return from === 'TRIAL_ACTIVE' ? 'subscription.trial_ended' : 'subscription.activated';
    case 'CANCELLED':
      return 'subscription.cancelled';
    case 'COMPLETED':
      return 'subscription.completed';
    default:
      return null;
  }
}

/** True when a fee row effective over [from, to) (to exclusive, null = open) is in force on `date`. */
export function isInForce(from: LocalDate, to: LocalDate | null | undefined, date: LocalDate): boolean {
  return compareDates(from, date) <= 0 && (to == null || compareDates(date, to) < 0);
}

/**
 * The subscription's term: the shortest recurring term among its fees (one-time fees have none;
 * MONTHLY when no fee recurs). Every fee's boundary is then also a subscription boundary, since
 * 1, 3, 6 and 12 months divide each other upwards.
 */
export function shortestTerm(terms: Iterable<BillingTerm | 'ONE_TIME'>): BillingTerm {
  let shortest: BillingTerm | null = null;
  for (const term of terms) {
    if (term !== 'ONE_TIME' && (shortest === null || TERM_MONTHS[term] < TERM_MONTHS[shortest])) shortest = term;
  }
  return shortest ?? 'MONTHLY';
}

export interface PeriodView {
  start: LocalDate;
  /** Exclusive end; null once the subscription has stopped. */
  end: LocalDate | null;
}

/**
 * The period shown as "current": before the start, [start_date, billing start); during a free
 * trial, the trial; then the billing period containing today; after the end, the last period.
 */
export function currentPeriod(
  sub: LifecycleDates & { billingStartDate: LocalDate; anchorDay: number; term: BillingTerm; status: SubscriptionStatus },
  today: LocalDate,
): PeriodView {
  const stop = stopDate(sub);
  let probe = stop !== null && compareDates(today, stop) >= 0 ? addDays(stop, -1) : today;
  if (compareDates(probe, sub.billingStartDate) < 0) {
    // Not billing yet: a free trial (or a delayed billing start) is its own period; a pending
    // subscription without one shows its first billing period.
    if (sub.billingStartDate !== sub.startDate) return { start: sub.startDate, end: isLive(sub.status) ? sub.billingStartDate : null };
    probe = sub.billingStartDate;
  }
  const schedule = { startDate: sub.billingStartDate, anchorDay: sub.anchorDay, term: sub.term, endDate: stop };
  const period: BillingPeriod | null = periodContaining(schedule, probe);
  if (!period) return { start: sub.billingStartDate, end: null };
  return { start: period.start, end: isLive(sub.status) ? period.end : null };
}
