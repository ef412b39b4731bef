// What the composition root and tests may use from payments.
export { createPaymentsModule, scheduleReconciliation } from './module.js';
export type { Payments, PaymentsAtTestClock } from './module.js';
export { CHARGE_TASK, RECONCILE_TASK, idempotencyKeyOf } from './charging.js';
export { DUNNING_TASK } from './dunning.js';
export { REFUND_TASK, refundIdempotencyKeyOf } from './refunds.js';
export { deletePaymentsOfCustomers } from './repository.js';
export { CHECKOUT_FINISH_TASK } from './checkout-payments.js';
