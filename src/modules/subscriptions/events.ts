import { formatMinor } from '../../kernel/money.js';
import { shownSubscriptionStatus } from '../../domain/index.js';
import type { SubscriptionView } from './repository.js';

/** `data` of subscription.* events, in the reference's SubscriptionEventData shape (MRR as a decimal string). */
export function subscriptionEventData(sub: SubscriptionView): Record<string, unknown> {
  return {
    subscription_id: sub.id,
    customer_id: sub.customer_id,
    customer_name: sub.customer_name,
    customer_alias: sub.customer_alias,
    billing_day_anchor: sub.billing_day_anchor,
    currency: sub.currency,
    start_date: sub.start_date,
    end_date: sub.end_date,
    billing_start_date: sub.billing_start_date,
    plan_name: sub.plan_name,
    version: sub.plan_version,
    created_at: sub.created_at.toISOString(),
    activated_at: sub.activated_at ? sub.activated_at.toISOString() : null,
    net_terms: sub.net_terms,
    invoice_memo: sub.invoice_memo,
    invoice_threshold: null,
    mrr: formatMinor(sub.mrr_minor, sub.currency),
    period: sub.period,
    status: shownSubscriptionStatus(sub.status, sub.past_due_since !== null),
    trial_duration: sub.trial_duration_days,
    custom_properties: sub.custom_properties,
  };
}
