// What other modules and the composition root may use from credits.
export { createCreditsModule } from './module.js';
export type { Credits, BalanceMovedHook } from './module.js';
export type { CreditsService, CreditBalance, ProjectedCreditBalance, AccruedUsage } from './service.js';
export { BALANCE_MOVED_TASK } from './ledger.js';
/** The periodic expiry sweep; serve queues its first run. */
export { EXPIRY_SWEEP_TASK, scheduleExpirySweep } from './expiry.js';
export { accruedUsageOf } from './accrued.js';
/** A test clock's deletion removes its customers' grants, ledgers and top-up settings. */
export { deleteCreditsOfCustomers } from './repository.js';
/** What the customer's grants would pay of an invoice previewed (the checkout page charges the rest). */
export { previewPrepaid } from './ledger.js';
