// Checkout sessions (docs/customers-subscriptions.md#checkout-sessions).
export { createCheckoutService } from './service.js';
export type { CheckoutService } from './service.js';
export { checkoutRoutes } from './routes.js';
export { CHECKOUT_STATUSES } from './repository.js';
export type { CheckoutStatus } from './repository.js';
