// What other modules and the composition root may use from credits.
export { createCreditsModule } from './module.js';
export type { Credits } from './module.js';
export type { CreditsService, CreditBalance, ProjectedCreditBalance, AccruedUsage } from './service.js';
export { AUTO_TOP_UP_TASK } from './ledger.js';
export { accruedUsageOf } from './accrued.js';
/** A test clock's deletion removes its customers' grants, ledgers and top-up settings. */
export { deleteCreditsOfCustomers } from './repository.js';
