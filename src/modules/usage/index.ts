// What other modules may use from usage.
export { createUsageModule } from './module.js';
export type { UsageApi } from './module.js';
export { MAX_BATCH_EVENTS } from './ingest-service.js';
export type { IngestService } from './ingest-service.js';
export type { IngestFailure, IngestFailureKind } from './errors.js';
export type { UsageQueryService, FindSubscriptionScope, SubscriptionUsageScope, MetricUsageResult } from './query-service.js';
export { customerMetricUsage } from './customer-usage.js';
export { customersMetricUsage } from './bulk-usage.js';
export type { BulkUsageCustomer } from './bulk-usage.js';
export { deleteUsageOfCustomers } from './erase.js';
