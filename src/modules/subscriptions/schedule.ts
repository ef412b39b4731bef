import { compareDates, type LocalDate } from '../../domain/dates.js';
import { currentPeriod, isLive, type PeriodView } from './lifecycle.js';
import type { SubscriptionView } from './repository.js';

/** The billing period containing `today` for a stored subscription (see lifecycle.currentPeriod). */
export function currentPeriodOf(sub: SubscriptionView, today: LocalDate): PeriodView {
  return currentPeriod({
    startDate: sub.start_date, trialEndDate: sub.trial_end_date, endDate: sub.end_date, cancelEffectiveDate: sub.cancel_effective_date,
    billingStartDate: sub.billing_start_date, anchorDay: sub.billing_day_anchor, term: sub.period, status: sub.status,
  }, today);
}

/**
 * Advance billing: the next invoice comes when the next billed period starts; before billing
 * starts, on the billing start; none once the subscription has stopped.
 */
export function nextInvoiceDateOf(sub: SubscriptionView, today: LocalDate): LocalDate | null {
  if (!isLive(sub.status)) return null;
  if (compareDates(today, sub.billing_start_date) < 0) return sub.billing_start_date;
  return currentPeriodOf(sub, today).end;
}
