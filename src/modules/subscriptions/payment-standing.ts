// Whether a subscription is paid up, as the payments module's dunning tells it (docs/payments.md,
// "Dunning"). The stored status stays the clock's (subscription-lifecycle.ts); `past_due_since`
// makes a running subscription show PAST_DUE (shownSubscriptionStatus), so the clock moving the
// status and dunning marking it never overwrite each other.
import { today, type Clock } from '../../kernel/clock.js';
import type { Queryable } from '../../db/pool.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { compareDates, isLive } from '../../domain/index.js';
import * as repo from './repository.js';
import type { SubscriptionView } from './repository.js';
import { subscriptionEventData } from './events.js';
import { advanceOne } from './service.js';

/**
 * Marks the subscription past due (an invoice of it is overdue) or paid up again, in the caller's
 * tx. Events: `subscription.past_due` when it becomes past due, `subscription.updated` when it
 * recovers. Nothing changes (and nothing is emitted) when it already is so, or has stopped.
 */
export async function setPastDue(tx: Queryable, clock: Clock, tenantId: string, subscriptionId: string, pastDue: boolean): Promise<SubscriptionView | undefined> {
  const sub = await repo.findSubscription(tx, tenantId, subscriptionId, true);
  if (!sub || (sub.past_due_since !== null) === pastDue) return sub;
  if (pastDue && !isLive(sub.status)) return sub;
  const now = clock.now();
  const next: SubscriptionView = { ...sub, past_due_since: pastDue ? now : null, updated_at: now };
  await repo.updateSubscription(tx, tenantId, next);
  await writeOutboxEvent(scoped(tx, tenantId), clock, {
    type: pastDue ? 'subscription.past_due' : 'subscription.updated', objectId: sub.id, data: subscriptionEventData(next),
  });
  return next;
}

/** Dunning's final action: cancels now (effective today), reason `payment_failed`, in the caller's tx. */
export async function cancelForNonPayment(tx: Queryable, clock: Clock, tenantId: string, subscriptionId: string): Promise<SubscriptionView | undefined> {
  const sub = await repo.findSubscription(tx, tenantId, subscriptionId, true);
  if (!sub || !isLive(sub.status)) return sub;
  const todayDate = today(clock);
  const effective = sub.cancel_effective_date && compareDates(sub.cancel_effective_date, todayDate) < 0 ? sub.cancel_effective_date : todayDate;
  const now = clock.now();
  const next: SubscriptionView = { ...sub, cancel_requested_at: now, cancel_effective_date: effective, cancellation_reason: 'payment_failed', past_due_since: null, updated_at: now };
  await repo.updateSubscription(tx, tenantId, next);
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.cancellation_scheduled', objectId: sub.id, data: { ...subscriptionEventData(next), cancel_effective_date: effective, reason: 'payment_failed' } });
  return advanceOne(tx, clock, tenantId, next, todayDate);
}
