// Subscription billing engine: compute a plan of what an occasion bills, then execute it.
export * from './snapshot.js';
export * from './changes.js';
export * from './occasions.js';
export * from './plan.js';
export * from './compute.js';
export * from './late.js';
export * from './threshold-lines.js';
export * from './thresholds.js';
