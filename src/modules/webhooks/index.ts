export { createWebhooksModule } from './module.js';
export type { EndpointsService } from './endpoints-service.js';
export { DELIVER_DUE_TASK, eventEnvelope } from './delivery-service.js';
export type { DeliveryService } from './delivery-service.js';
export { createDeliveryService } from './delivery-service.js';
export { createSigningSecretBox } from './secrets.js';
export { EVENT_TYPES, TEST_EVENT_TYPE } from '../../kernel/event-types.js';
export { RETRY_DELAYS_MS, MAX_ATTEMPTS, DISABLE_AFTER_FAILING_MS } from './retry-policy.js';
