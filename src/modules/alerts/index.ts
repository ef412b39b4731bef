// What the composition root may use from alerts.
export { createAlertsModule } from './module.js';
export type { AlertsApi } from './module.js';
export { schedulePeriodBoundaries, PERIOD_BOUNDARIES_TASK } from './jobs.js';
export type { AccruedSpend, ProjectedCreditBalance, MeasurePorts } from './measure.js';
export type { StoredEventKey } from './trigger.js';
