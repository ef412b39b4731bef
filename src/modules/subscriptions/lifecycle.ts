// The subscription status machine, as pure functions of the subscription's dates and `today`.
// Statuses move only with the clock (start, trial end, cancellation date, end date) or with an
// explicit immediate cancellation; nothing else changes them.
//
//   PENDING_ACTIVATION --start_date--> TRIAL_ACTIVE --trial_end_date--> ACTIVE
//   PENDING_ACTIVATION --start_date--> ACTIVE (no trial)
//   any live status --cancel_effective_date--> CANCELLED   (terminal)
//   any live status --end_date-->              COMPLETED   (terminal)
// A cancellation dated on or before the end date wins over completion.
import type { EventType } from '../../kernel/event-types.js';
import { addDays, compareDates, type LocalDate } from '../../domain/dates.js';
import { periodContaining, type BillingPeriod, type BillingTerm } from '../../domain/periods.js';

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

/** The exclusive date service stops: the earlier of the cancellation and the end date. */
export function stopDate(dates: LifecycleDates): LocalDate | null {
  const options = [dates.cancelEffectiveDate, dates.endDate].filter((d): d is LocalDate => d !== null).sort(compareDates);
  return options[0] ?? null;
}
