// Checkout sessions (docs/customers-subscriptions.md#checkout-sessions).
export type { CheckoutService } from './service.js';
export { createCheckoutModule } from './module.js';
export { CHECKOUT_STATUSES, deleteSessionsOfCustomers } from './repository.js';
export type { CheckoutStatus, SessionRow as CheckoutSessionRow } from './repository.js';
