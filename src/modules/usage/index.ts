// What other modules may use from usage.
export { createUsageModule } from './module.js';
export { MAX_BATCH_EVENTS } from './ingest-service.js';
export { storedCustomerIds } from './ingest-service.js';
export type { IngestService, UsageSubscriber } from './ingest-service.js';
export type { IngestFailure, IngestFailureKind } from './errors.js';
export type { UsageQueryService, FindSubscriptionScope, SubscriptionUsageScope, MetricUsageResult } from './query-service.js';
export { customerMetricUsage, customersMetricUsage, definedMetricUsage, embeddedMetricUsage } from './customer-usage.js';
export type { BulkUsageCustomer, CustomersUsage } from './customer-usage.js';
export { lockUsageForBilling, recordBilledPeriods, latePeriodsOf } from './billed-periods.js';
export type { BilledPeriod, LatePeriod } from './billed-periods.js';
export { deleteUsageOfCustomers } from './erase.js';
export type { DailyUsageReader, DailyUsageRow } from './export-rows.js';
