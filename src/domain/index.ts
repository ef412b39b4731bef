// Public surface of the billing math. Modules import from here, never from the files directly.
export * from './errors.js';
export * from './dates.js';
export * from './periods.js';
export * from './subscription-lifecycle.js';
export * from './timing.js';
export * from './pricing.js';
export * from './proration.js';
export * from './discounts.js';
export * from './tax.js';
export * from './invoice.js';
export * from './credit-notes.js';
export * from './billing/index.js';
export * from './dunning.js';
export * from './credits.js';
