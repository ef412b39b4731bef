// What the composition root and tests may use from payments.
export { createPaymentsModule, scheduleReconciliation } from './module.js';
export type { Payments, PaymentsAtTestClock } from './module.js';
export { CHARGE_TASK, RECONCILE_TASK, idempotencyKeyOf } from './charging.js';
export { DUNNING_TASK } from './dunning.js';
export { REFUND_TASK, refundIdempotencyKeyOf } from './refunds.js';
export { deletePaymentsOfCustomers } from './repository.js';
export { CHECKOUT_FINISH_TASK } from './checkout-payments.js';
export { settledByProviderPayment } from './receipts.js';
export { methodLabel, sandboxCardFields } from './pay-page.js';
export type { PaymentsService } from './service.js';
export type { PageCsrf } from './page-csrf.js';
export type { PaymentMethodRow } from './repository.js';
export { checkedPaymentMethodId, elementsForm, elementsKeyOf, newNonce, pageCsp } from './stripe-elements.js';
