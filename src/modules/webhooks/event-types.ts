/** Event kinds an endpoint can subscribe to: the reference's `webhooks` section plus ours. */
export const EVENT_TYPES = [
  'metric.created', 'metric.updated', 'metric.archived',
  'customer.created',
  'subscription.created',
  'invoice.created', 'invoice.finalized', 'invoice.paid', 'invoice.voided', 'invoice.consolidated',
  'invoice.accounting_pdf_generated',
  'quote.accepted', 'quote.converted',
  'credit_note.created', 'credit_note.finalized', 'credit_note.voided',
  'plan.created', 'plan.published', 'plan.archived',
  'product.created', 'product.updated', 'product.archived',
  'coupon.created', 'coupon.updated', 'coupon.archived',
  'addon.created', 'addon.updated', 'addon.archived',
  // ours: an endpoint was disabled after failing for days (sent to the tenant's other endpoints)
  'webhook_endpoint.disabled',
] as const;

/** The kind of the event sent by "send a test event"; not subscribable, always delivered. */
export const TEST_EVENT_TYPE = 'webhook.test';
