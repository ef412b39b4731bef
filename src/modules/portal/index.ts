// What the composition root (and tests) may use from the customer portal (docs/portal.md).
export { createPortalModule } from './module.js';
export { deleteTokensOfCustomers } from './repository.js';
export { createPortalTokensService, DEFAULT_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS, MAX_EXPIRES_IN_SECONDS } from './tokens-service.js';
export type { PortalTokensService, PortalPrincipal, IssuedPortalToken } from './tokens-service.js';
export type { PortalViewsDeps, SubscriptionUsageReport } from './views-service.js';
