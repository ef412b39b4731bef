export { createAccountsService, hashPassword, insertOrganizationWithTenants, validateCredentials, validateOrganizationName, verifyPassword } from './service.js';
export type { AccountsService, BootstrapResult, Environment, TenantRow } from './service.js';
export { createAccountsModule } from './module.js';
// Users, organizations and tenants for the modules that sign users up, act for a tenant or name
// it (oauth, web, invoices, e-mails, webhooks, usage): the accounts module owns those tables.
export {
  insertUser, findUserByEmail, findUserById, insertOrganization, insertTenant, listMemberships, listAdministeredOrganizations,
  findProductionTenant, findTenantProfile, tenantKeySql,
} from './repository.js';
export type { MembershipRow, TenantProfile } from './repository.js';
