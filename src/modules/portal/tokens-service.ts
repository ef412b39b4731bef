import type { Clock } from '../../kernel/clock.js';
import { MS_PER_SECOND } from '../../kernel/clock.js';
import { badRequest, notFound, unauthorized } from '../../kernel/errors.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { findCustomer } from '../customers/index.js';
import * as repo from './repository.js';

/** Lifetime bounds of a portal token (the reference's documented values; its code never expires them). */
export const DEFAULT_EXPIRES_IN_SECONDS = 86_400;
export const MIN_EXPIRES_IN_SECONDS = 60;
export const MAX_EXPIRES_IN_SECONDS = 2_592_000;
/** Prefix that makes a leaked portal token recognisable (secret scanners, logs). */
const TOKEN_PREFIX = 'pt_';

export interface IssuedPortalToken {
  token: string;
  portalUrl: string;
  expiresAt: Date;
}

/** Who a valid portal token acts for. */
export interface PortalPrincipal {
  tenantId: string;
  customerId: string;
}

export function createPortalTokensService(deps: { pool: Pool; clock: Clock; publicBaseUrl: string | undefined }) {
  const { pool, clock } = deps;
  // Same rule as onboarding links: the configured public URL, else the origin the API was called on.
  const baseUrlFor = (requestOrigin: string) => (deps.publicBaseUrl ?? requestOrigin).replace(/\/+$/, '');

  async function issue(tenantId: string, idOrAlias: string, body: { expires_in_seconds?: number } | undefined, requestOrigin: string): Promise<IssuedPortalToken> {
    const seconds = body?.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS;
    if (!Number.isInteger(seconds) || seconds < MIN_EXPIRES_IN_SECONDS || seconds > MAX_EXPIRES_IN_SECONDS) {
      throw badRequest(`expires_in_seconds must be an integer from ${MIN_EXPIRES_IN_SECONDS} to ${MAX_EXPIRES_IN_SECONDS}`);
    }
    const token = TOKEN_PREFIX + randomToken(40);
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + seconds * MS_PER_SECOND);
    await withTx(pool, async (tx) => {
      const customer = await findCustomer(tx, tenantId, idOrAlias);
      if (!customer) throw notFound('customer');
      await repo.insertToken(tx, { token_hash: hashSecret(token), tenant_id: tenantId, customer_id: customer.id, created_at: now, expires_at: expiresAt });
    });
    return { token, portalUrl: `${baseUrlFor(requestOrigin)}/portal/customer?token=${encodeURIComponent(token)}`, expiresAt };
  }

  async function revokeAll(tenantId: string, idOrAlias: string): Promise<number> {
    return withTx(pool, async (tx) => {
      const customer = await findCustomer(tx, tenantId, idOrAlias);
      if (!customer) throw notFound('customer');
      return repo.revokeCustomerTokens(tx, tenantId, customer.id, clock.now());
    });
  }

  /** The customer a presented token opens, or 401: unknown, expired and revoked look the same. */
  async function authenticate(token: string | undefined): Promise<PortalPrincipal> {
    if (!token) throw unauthorized('missing portal token; send the x-portal-token header or the token query parameter');
    const row = token.startsWith(TOKEN_PREFIX) ? await repo.findTokenByHash(pool, hashSecret(token)) : undefined;
    if (!row || row.revoked_at !== null || clock.now().getTime() >= row.expires_at.getTime()) {
      throw unauthorized('invalid, expired or revoked portal token; ask the merchant for a new portal link');
    }
    return { tenantId: row.tenant_id, customerId: row.customer_id };
  }

  return { issue, revokeAll, authenticate };
}

export type PortalTokensService = ReturnType<typeof createPortalTokensService>;
