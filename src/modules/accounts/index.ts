export { createAccountsService, hashPassword, insertOrganizationWithTenants, validateCredentials, validateOrganizationName, verifyPassword } from './service.js';
export type { AccountsService, BootstrapResult, Environment, TenantRow } from './service.js';
export { accountsRoutes } from './routes.js';
