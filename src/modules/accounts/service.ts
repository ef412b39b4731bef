import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Clock } from '../../kernel/clock.js';
import { MS_PER_MINUTE } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import type { AuthContext } from '../../http/auth.js';
import * as repo from './repository.js';
import { ApiKeyCache, REVOKED_CHANNEL } from './key-cache.js';
import type { ApiKeyRow, Environment, TenantRow } from './repository.js';

export type { ApiKeyRow, Environment, TenantRow };

const KEY_PREFIX: Record<Environment, string> = { production: 'sk_prod_', sandbox: 'sk_sandbox_' };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** last_used_at is written at most this often per key, so authentication is not a write per request. */
const TOUCH_INTERVAL_MS = MS_PER_MINUTE;

export interface BootstrapInput {
  email: string;
  password: string;
  organization: string;
}

export interface BootstrapResult {
  user: { id: string; email: string };
  organization: { id: string; name: string };
  tenants: { id: string; environment: Environment; api_key: string }[];
}

export interface CreatedApiKey extends ApiKeyRow {
  /** The full secret: returned once, at creation, and never stored. */
  key: string;
}

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return argon2Verify(passwordHash, password).catch(() => false);
}

export function validateCredentials(email: string, password: string): void {
  if (!EMAIL.test(email)) throw badRequest('email must be a valid e-mail address');
  if (password.length < 8) throw badRequest('password must be at least 8 characters');
}

/** The trimmed organization name, 1 to 200 characters. */
export function validateOrganizationName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest('organization name must not be empty, e.g. "Acme Ltd"');
  if (trimmed.length > 200) throw badRequest('organization name must be at most 200 characters');
  return trimmed;
}

/**
 * An organization administered by `ownerUserId`, with a `production` and a `sandbox` tenant: what
 * bootstrap, sign-up and the account page create. Runs on the caller's transaction.
 */
export async function insertOrganizationWithTenants(db: Queryable, input: { ownerUserId: string; name: string; at: Date }) {
  const organization = { id: newId('organization', input.at.getTime()), name: input.name, createdAt: input.at };
  await repo.insertOrganization(db, organization, input.ownerUserId);
  const tenants: { id: string; environment: Environment }[] = [];
  for (const environment of ['production', 'sandbox'] as const) {
    const tenant = { id: newId('tenant', input.at.getTime()), organization_id: organization.id, name: environment, environment, created_at: input.at };
    await repo.insertTenant(db, tenant);
    tenants.push({ id: tenant.id, environment });
  }
  return { organization: { id: organization.id, name: organization.name }, tenants };
}

export function createAccountsService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;
  const lastTouchMs = new Map<string, number>();
  const keyCache = new ApiKeyCache(pool);

  async function createApiKeyIn(db: Queryable, tenant: { id: string; environment: Environment }, name: string): Promise<CreatedApiKey> {
    const key = `${KEY_PREFIX[tenant.environment]}${randomToken(32)}`;
    const row: ApiKeyRow = {
      id: newId('apiKey', clock.now().getTime()),
      tenant_id: tenant.id,
      name,
      hint: `${key.slice(0, KEY_PREFIX[tenant.environment].length + 4)}...${key.slice(-4)}`,
      created_at: clock.now(),
      last_used_at: null,
      revoked_at: null,
    };
    await repo.insertApiKey(db, { ...row, secret_hash: hashSecret(key) });
    return { ...row, key };
  }

  /** Creates a user, an organization with a production and a sandbox tenant, and a key for each. */
  async function bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
    validateCredentials(input.email, input.password);
    const organizationName = validateOrganizationName(input.organization);
    const passwordHash = await hashPassword(input.password);
    try {
      return await withTx(pool, async (tx) => {
        const now = clock.now();
        const user = { id: newId('user', now.getTime()), email: input.email, passwordHash, createdAt: now };
        await repo.insertUser(tx, user);
        const { organization, tenants } = await insertOrganizationWithTenants(tx, { ownerUserId: user.id, name: organizationName, at: now });
        const keyed: BootstrapResult['tenants'] = [];
        for (const tenant of tenants) keyed.push({ ...tenant, api_key: (await createApiKeyIn(tx, tenant, 'default')).key });
        return { user: { id: user.id, email: user.email }, organization, tenants: keyed };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw conflict(`a user with email ${input.email} already exists`);
      throw error;
    }
  }

  async function getTenant(tenantId: string): Promise<TenantRow> {
    const tenant = await repo.findTenant(pool, tenantId);
    if (!tenant) throw notFound('tenant');
    return tenant;
  }

  async function createApiKey(tenantId: string, name: string): Promise<CreatedApiKey> {
    const tenant = await getTenant(tenantId);
    return createApiKeyIn(pool, tenant, name);
  }

  async function revokeApiKey(tenantId: string, keyId: string): Promise<ApiKeyRow> {
    const revoked = await repo.revokeApiKey(pool, tenantId, keyId, clock.now(), REVOKED_CHANNEL);
    if (!revoked) throw notFound('api key');
    const { secret_hash: secretHash, ...row } = revoked;
    keyCache.evict(secretHash);
    return row;
  }

  /** Resolves `sk_...` keys, from the revocation-aware cache (key-cache.ts) or the database. */
  async function authenticateApiKey(token: string): Promise<AuthContext | null> {
    if (!token.startsWith('sk_')) return null;
    const secretHash = hashSecret(token);
    let context = keyCache.get(secretHash);
    if (!context) {
      const readAtGeneration = keyCache.generation;
      const found = await repo.findActiveKeyByHash(pool, secretHash);
      if (!found) return null;
      context = {
        tenantId: found.tenant_id,
        organizationId: found.organization_id,
        environment: found.environment,
        principalId: found.key_id,
        via: 'api_key',
      };
      keyCache.set(secretHash, context, readAtGeneration);
    }
    const nowMs = clock.now().getTime();
    if (nowMs - (lastTouchMs.get(context.principalId) ?? 0) >= TOUCH_INTERVAL_MS) {
      lastTouchMs.set(context.principalId, nowMs);
      await repo.touchApiKey(pool, context.principalId, clock.now());
    }
    return context;
  }

  /** A further organization (production and sandbox tenants) for an existing user, who administers it. */
  async function createOrganization(userId: string, name: string): Promise<{ id: string; name: string }> {
    const organizationName = validateOrganizationName(name);
    return withTx(pool, async (tx) => (await insertOrganizationWithTenants(tx, { ownerUserId: userId, name: organizationName, at: clock.now() })).organization);
  }

  return {
    bootstrap,
    createOrganization,
    getTenant,
    tenantsOfOrganization: (organizationId: string) => repo.listTenantsOfOrganization(pool, organizationId),
    /** The tenant when the user belongs to its organization; undefined otherwise, exactly as for an unknown id. */
    tenantOfMember: (userId: string, tenantId: string) => repo.findTenantOfMember(pool, tenantId, userId),
    updateTenantSettings: async (tenantId: string, settings: { disable_emails?: boolean }) => {
      await repo.updateTenantSettings(pool, tenantId, settings);
      return getTenant(tenantId);
    },
    createApiKey,
    listApiKeys: (tenantId: string) => repo.listApiKeys(pool, tenantId),
    revokeApiKey,
    authenticateApiKey,
    /** Starts listening for revocations (until then every request reads the database). */
    startKeyCache: () => keyCache.start(),
    stopKeyCache: () => keyCache.close(),
    hasAnyOrganization: async () => (await repo.countOrganizations(pool)) > 0,
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
