import type { FastifyRequest } from 'fastify';
import { MS_PER_DAY, type Clock } from '../../kernel/clock.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { pageRequest, paginationMeta, type Page } from '../../kernel/paging.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { AuthContext } from '../../http/auth.js';
import * as repo from './connect-repository.js';
import type { AccountStatus, AccountType, ConnectedAccountRow } from './connect-repository.js';
import { insertOrganization, insertTenant, listAdministeredOrganizations } from '../accounts/index.js';
import { insertDefaultEntity } from '../invoices/index.js';
import { validateReturnUrl, withQuery } from './redirect-uris.js';
import { revokeGrantsOfAccount } from './tokens-repository.js';

export type { ConnectedAccountRow, AccountStatus, AccountType };

/** The business an express account onboards: it becomes the tenant's default invoicing entity. */
export interface BusinessDetails {
  legalName: string;
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  zipCode: string;
  country: string;
  vatNumber: string | null;
}

export const ONBOARDING_LINK_TTL_MS = 7 * MS_PER_DAY;
const LINK_PREFIX = 'onb_';
const COUNTRY = /^[A-Z]{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const CONNECTED_ACCOUNT_HEADER = 'x-connected-account';

export interface OnboardingLink {
  url: string;
  expires_at: Date;
}

export interface ExpressAccountInput {
  email: string;
  organization_name: string;
  country?: string;
  metadata?: Record<string, string>;
  return_url: string;
}

function validateMetadata(metadata: unknown): Record<string, string> {
  if (metadata === undefined) return {};
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > 50) throw badRequest('metadata must have at most 50 keys');
  for (const [key, value] of entries) {
    if (key.length > 40) throw badRequest(`metadata key '${key.slice(0, 40)}...' must be at most 40 characters`);
    if (typeof value !== 'string' || value.length > 500) throw badRequest(`metadata.${key} must be a string of at most 500 characters`);
  }
  return metadata as Record<string, string>;
}

export interface ConnectDeps {
  pool: Pool;
  clock: Clock;
  /** Base of onboarding links; when unset, the origin of the API request that asked for the link. */
  publicBaseUrl: string | undefined;
  /** The platform's own API key authenticator (accounts module). */
  authenticateApiKey: (token: string) => Promise<AuthContext | null>;
}

export function createConnectService(deps: ConnectDeps) {
  const { pool, clock } = deps;

  async function connectionsOfUser(userId: string): Promise<repo.UserConnectionRow[]> {
    return repo.listConnectionsOfOrganizations(pool, await listAdministeredOrganizations(pool, userId));
  }

  const baseUrlFor = (requestOrigin: string) => (deps.publicBaseUrl ?? requestOrigin).replace(/\/+$/, '');

  async function list(tenantId: string, query: { type?: AccountType; status?: AccountStatus; page?: number; per_page?: number }): Promise<Page<ConnectedAccountRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await repo.listAccounts(pool, tenantId, { type: query.type, status: query.status }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function get(tenantId: string, accountId: string): Promise<ConnectedAccountRow> {
    const account = await repo.findAccount(pool, tenantId, accountId);
    if (!account) throw notFound(`connected account ${accountId}`);
    return account;
  }

  /** Disconnect: the account becomes REVOKED and every token of the connection dies in the same transaction. */
  async function disconnectIn(db: Queryable, tenantId: string, accountId: string): Promise<ConnectedAccountRow> {
    const account = await repo.findAccount(db, tenantId, accountId, true);
    if (!account) throw notFound(`connected account ${accountId}`);
    if (account.status === 'REVOKED') return account;
    const now = clock.now();
    await revokeGrantsOfAccount(db, tenantId, accountId, now);
    await repo.invalidateLinks(db, tenantId, accountId, now);
    return (await repo.setStatus(db, tenantId, accountId, 'REVOKED', now))!;
  }

  const disconnect = (tenantId: string, accountId: string) => withTx(pool, (tx) => disconnectIn(tx, tenantId, accountId));

  /** Express accounts only: SUSPENDED refuses API calls made for the account until it is reactivated. */
  async function changeExpressStatus(tenantId: string, accountId: string, from: AccountStatus, to: AccountStatus): Promise<ConnectedAccountRow> {
    return withTx(pool, async (tx) => {
      const account = await repo.findAccount(tx, tenantId, accountId, true);
      if (!account) throw notFound(`connected account ${accountId}`);
      if (account.type !== 'express') throw conflict('only express accounts can be suspended or reactivated; disconnect a standard account instead');
      if (account.status === to) return account;
      if (account.status !== from) throw conflict(`connected account ${accountId} is ${account.status}; it must be ${from}`);
      return (await repo.setStatus(tx, tenantId, accountId, to, clock.now()))!;
    });
  }

  async function issueLink(db: Queryable, tenantId: string, accountId: string, returnUrl: string, requestOrigin: string): Promise<OnboardingLink> {
    const now = clock.now();
    const token = `${LINK_PREFIX}${randomToken(40)}`;
    const expiresAt = new Date(now.getTime() + ONBOARDING_LINK_TTL_MS);
    await repo.invalidateLinks(db, tenantId, accountId, now);
    await repo.insertLink(db, { token_hash: hashSecret(token), tenant_id: tenantId, connected_account_id: accountId, return_url: returnUrl, created_at: now, expires_at: expiresAt, used_at: null, invalidated_at: null });
    return { url: `${baseUrlFor(requestOrigin)}/connect/onboarding/${token}`, expires_at: expiresAt };
  }

  async function createExpress(tenantId: string, input: ExpressAccountInput, requestOrigin: string): Promise<{ account: ConnectedAccountRow; link: OnboardingLink }> {
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw badRequest('email must be a valid e-mail address');
    const name = input.organization_name.trim();
    if (!name || name.length > 200) throw badRequest('organization_name must be 1 to 200 characters');
    if (input.country !== undefined && !COUNTRY.test(input.country)) throw badRequest('country must be an ISO 3166-1 alpha-2 code in upper case, e.g. FR');
    const metadata = validateMetadata(input.metadata);
    const returnUrl = validateReturnUrl(input.return_url);
    return withTx(pool, async (tx) => {
      const now = clock.now();
      const account: ConnectedAccountRow = {
        id: newId('connectedAccount', now.getTime()),
        tenant_id: tenantId,
        type: 'express',
        status: 'PENDING',
        oauth_app_id: null,
        organization_id: null,
        connected_tenant_id: null,
        connected_by_user_id: null,
        email,
        organization_name: name,
        country: input.country ?? null,
        metadata,
        return_url: returnUrl,
        legal_name: null,
        vat_number: null,
        created_at: now,
        activated_at: null,
        revoked_at: null,
      };
      await repo.insertAccount(tx, account);
      return { account, link: await issueLink(tx, tenantId, account.id, returnUrl, requestOrigin) };
    });
  }

  /** A new link for a PENDING express account; older unused links stop working. */
  async function createOnboardingLink(tenantId: string, accountId: string, body: { return_url?: string }, requestOrigin: string): Promise<OnboardingLink> {
    const returnUrl = body.return_url === undefined || body.return_url === null ? undefined : validateReturnUrl(body.return_url);
    return withTx(pool, async (tx) => {
      const account = await repo.findAccount(tx, tenantId, accountId, true);
      if (!account) throw notFound(`connected account ${accountId}`);
      if (account.type !== 'express') throw conflict('onboarding links exist only for express accounts');
      if (account.status !== 'PENDING') throw conflict(`connected account ${accountId} is ${account.status}; onboarding links are for PENDING accounts`);
      return issueLink(tx, tenantId, accountId, returnUrl ?? account.return_url!, requestOrigin);
    });
  }

  function checkLink(link: repo.LinkRow | undefined): repo.LinkRow {
    const gone = (message: string) => new AppError('NOT_FOUND', message, 410);
    if (!link) throw notFound('onboarding link');
    if (link.used_at) throw gone('this onboarding link was already used');
    if (link.invalidated_at) throw gone('this onboarding link was replaced by a newer one; ask the platform for a new link');
    if (link.expires_at.getTime() <= clock.now().getTime()) throw gone('this onboarding link has expired; ask the platform for a new link');
    return link;
  }

  /** What the onboarding page shows, or an error explaining why the link cannot be used. */
  async function openOnboarding(token: string): Promise<ConnectedAccountRow> {
    const link = checkLink(await repo.findLinkByHash(pool, hashSecret(token)));
    const account = await repo.findAccount(pool, link.tenant_id, link.connected_account_id);
    if (!account || account.status !== 'PENDING') throw new AppError('CONFLICT', 'this account is not waiting for onboarding any more', 409);
    return account;
  }

  /**
   * Completes express onboarding in one transaction: organization (the user as ADMIN), its
   * production tenant and default invoicing entity, the account ACTIVE, the link used.
   * Returns where to send the browser: the platform's return URL.
   */
  async function completeOnboarding(token: string, userId: string, details: BusinessDetails & { organizationName: string }): Promise<string> {
    if (!COUNTRY.test(details.country)) throw badRequest('country must be a two-letter ISO code such as FR');
    return withTx(pool, async (tx) => {
      const link = checkLink(await repo.findLinkByHash(tx, hashSecret(token), true));
      const account = await repo.findAccount(tx, link.tenant_id, link.connected_account_id, true);
      if (!account || account.status !== 'PENDING') throw conflict('this account is not waiting for onboarding any more');
      const now = clock.now();
      const orgId = newId('organization', now.getTime());
      await insertOrganization(tx, { id: orgId, name: details.organizationName, createdAt: now }, userId);
      const tenantId = newId('tenant', now.getTime());
      await insertTenant(tx, { id: tenantId, organization_id: orgId, name: 'production', environment: 'production', created_at: now });
      const entity = {
        legal_name: details.legalName,
        address_line1: details.addressLine1,
        address_line2: details.addressLine2,
        city: details.city,
        zip_code: details.zipCode,
        country: details.country,
        vat_number: details.vatNumber,
      };
      await insertDefaultEntity(tx, tenantId, { id: newId('invoicingEntity', now.getTime()), details: entity, at: now });
      await repo.activateExpress(tx, link.tenant_id, account.id, {
        organization_id: orgId,
        connected_tenant_id: tenantId,
        user_id: userId,
        organization_name: details.organizationName,
        country: details.country,
        legal_name: details.legalName,
        vat_number: details.vatNumber,
        at: now,
      });
      await repo.markLinkUsed(tx, link.tenant_id, link.token_hash, now);
      return withQuery(link.return_url, { connected_account_id: account.id });
    });
  }

  /** The end user's side of a standard connection: disconnecting from their own page. */
  async function disconnectByUser(userId: string, accountId: string): Promise<void> {
    const mine = (await connectionsOfUser(userId)).find((c) => c.id === accountId);
    if (!mine) throw notFound(`connection ${accountId}`);
    await disconnect(mine.tenant_id, accountId);
  }

  /**
   * `Authorization: Bearer <platform API key>` plus `x-connected-account: cacc_...` acts on the
   * express account's production tenant. An account of another platform answers 404.
   */
  async function authenticateConnectedAccount(token: string, request: FastifyRequest): Promise<AuthContext | null> {
    const header = request.headers[CONNECTED_ACCOUNT_HEADER];
    if (header === undefined) return null;
    if (typeof header !== 'string' || header === '') throw badRequest(`${CONNECTED_ACCOUNT_HEADER} header must name one connected account`);
    const platform = await deps.authenticateApiKey(token);
    if (!platform) throw unauthorized(`${CONNECTED_ACCOUNT_HEADER} needs the platform's own API key in Authorization`);
    const account = await repo.findAccount(pool, platform.tenantId, header);
    if (!account) throw notFound(`connected account ${header}`);
    if (account.type !== 'express') throw forbidden('standard connected accounts are reached with their OAuth access token, not with x-connected-account');
    if (account.status !== 'ACTIVE' || !account.connected_tenant_id || !account.organization_id) {
      throw forbidden(`connected account ${header} is ${account.status}; only ACTIVE accounts can be acted for`);
    }
    return { tenantId: account.connected_tenant_id, organizationId: account.organization_id, environment: 'production', principalId: `${platform.principalId}:${account.id}`, via: 'api_key' };
  }

  return {
    list,
    get,
    disconnect,
    suspend: (tenantId: string, accountId: string) => changeExpressStatus(tenantId, accountId, 'ACTIVE', 'SUSPENDED'),
    reactivate: (tenantId: string, accountId: string) => changeExpressStatus(tenantId, accountId, 'SUSPENDED', 'ACTIVE'),
    createExpress,
    createOnboardingLink,
    openOnboarding,
    completeOnboarding,
    userConnections: (userId: string) => connectionsOfUser(userId),
    disconnectByUser,
    authenticateConnectedAccount,
  };
}

export type ConnectService = ReturnType<typeof createConnectService>;
