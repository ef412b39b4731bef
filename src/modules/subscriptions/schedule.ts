// The domain's lifecycle rules (src/domain/subscription-lifecycle.ts) applied to a stored subscription.
import { currentPeriod, type LifecycleDates, type LocalDate, type PeriodView } from '../../domain/index.js';
import type { SubscriptionRecord } from './records.js';
import type { SubscriptionRow } from './repository.js';

/** The dates that move a stored subscription's status. */
export function lifecycleDatesOf(sub: SubscriptionRow): LifecycleDates {
  return { startDate: sub.start_date, trialEndDate: sub.trial_end_date, endDate: sub.end_date, cancelEffectiveDate: sub.cancel_effective_date };
}

/** The period shown as current for a stored subscription (see the domain's `currentPeriod`). */
export function currentPeriodOf(sub: SubscriptionRow, today: LocalDate): PeriodView {
  return currentPeriod({ ...lifecycleDatesOf(sub), billingStartDate: sub.billing_start_date, anchorDay: sub.billing_day_anchor, term: sub.period, status: sub.status }, today);
}

/**
 * The date of the subscription's next invoice after `today`, or null when none will come. The
 * billing engine decides it (`nextOccasion`), from the same mapping of the record that the billing
 * run uses; the composition root passes it in (invoices come after subscriptions).
 */
export type NextInvoiceDate = (record: SubscriptionRecord, today: LocalDate) => LocalDate | null;
