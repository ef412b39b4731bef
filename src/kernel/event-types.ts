// The one catalogue of outbound event names. Every event written to the outbox is typed with
// EventType (src/db/outbox.ts), so an emitter cannot use a name missing here; webhook endpoints
// subscribe by these names (src/modules/webhooks/endpoints-service.ts);
// test/architecture/event-types.test.ts checks that every event name in the code is listed.

/** Events the service emits, by resource. */
export const EMITTED_EVENT_TYPES = [
  'metric.created', 'metric.updated', 'metric.archived',
  'product.created', 'product.updated', 'product.archived',
  'coupon.created', 'coupon.updated', 'coupon.archived',
  'plan.created', 'plan.published', 'plan.archived',
  // ours: plan metadata (name, description, rank, custom properties) changed without publishing a version (docs/custom-properties.md)
  'plan.updated',
  'addon.created', 'addon.updated', 'addon.archived',
  'customer.created', 'customer.updated', 'customer.archived', 'customer.unarchived',
  // ours: a customer-level entitlement override was set or removed (docs/credits-and-alerts.md)
  'customer.entitlements_updated',
  'subscription.created', 'subscription.updated',
  'subscription.trial_started', 'subscription.trial_ended', 'subscription.activated', 'subscription.cancelled', 'subscription.completed',
  'subscription.cancellation_scheduled', 'subscription.plan_changed', 'subscription.plan_change_scheduled', 'subscription.slots_changed',
  'subscription.past_due',
  'subscription.add_on_added', 'subscription.add_on_changed', 'subscription.add_on_removed', 'subscription.entitlements_updated',
  'invoice.created', 'invoice.finalized', 'invoice.paid', 'invoice.voided', 'invoice.accounting_pdf_generated',
  'invoice.payment_failed', 'invoice.overdue',
  // ours: an invoice's custom property values changed (the only change a finalized invoice takes; docs/custom-properties.md)
  'invoice.updated',
  'payment.succeeded', 'payment.failed',
  'credit_note.created', 'credit_note.finalized', 'credit_note.voided',
  // ours: a credit note's custom property values changed (docs/custom-properties.md)
  'credit_note.updated',
  // ours: prepaid credit grants (docs/credits-and-alerts.md); activated = usable (a paid grant once its invoice is paid)
  'credit_grant.created', 'credit_grant.activated', 'credit_grant.voided',
  // ours: usage alerts (docs/credits-and-alerts.md), once per crossing of a threshold and once when it is over
  'alert.triggered', 'alert.resolved',
  // ours: test clocks of sandbox tenants (docs/test-clocks.md), named as Stripe's without its test_helpers prefix
  'test_clock.created', 'test_clock.advancing', 'test_clock.ready', 'test_clock.deleted',
  // ours: an endpoint was disabled after failing for days (sent to the tenant's other endpoints)
  'webhook_endpoint.disabled',
  // ours: a data export run wrote its files (docs/export.md)
  'export.completed',
] as const;

/** Kinds of the reference's `webhooks` section this service does not emit (yet); endpoints may subscribe to them. */
export const RESERVED_EVENT_TYPES = ['invoice.consolidated', 'quote.accepted', 'quote.converted'] as const;

/** Event kinds an endpoint can subscribe to. */
export const EVENT_TYPES = [...EMITTED_EVENT_TYPES, ...RESERVED_EVENT_TYPES] as const;

export type EventType = (typeof EMITTED_EVENT_TYPES)[number];
export type SubscribableEventType = (typeof EVENT_TYPES)[number];

const SUBSCRIBABLE = new Set<string>(EVENT_TYPES);

export function isSubscribableEventType(name: string): name is SubscribableEventType {
  return SUBSCRIBABLE.has(name);
}

/** The kind of the event sent by "send a test event"; not subscribable, always delivered, never in the outbox. */
export const TEST_EVENT_TYPE = 'webhook.test';
