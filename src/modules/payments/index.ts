// What the composition root and tests may use from payments.
export { createPaymentsModule, scheduleReconciliation } from './module.js';
export type { Payments } from './module.js';
export { CHARGE_TASK, RECONCILE_TASK, idempotencyKeyOf } from './charging.js';
export { deletePaymentsOfCustomers } from './repository.js';
