import { timingSafeEqual } from 'node:crypto';
import { MS_PER_DAY, MS_PER_HOUR, type Clock } from '../../kernel/clock.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { AuthContext } from '../../http/auth.js';
import { findClient, type OAuthClientRow } from './apps-repository.js';
import type { ClientCredentials } from './client-auth.js';
import { OAuthError } from './oauth-errors.js';
import { verifierMatches } from './pkce.js';
import * as tokens from './tokens-repository.js';
import type { TokenWithGrant } from './tokens-repository.js';

export const ACCESS_TOKEN_TTL_MS = MS_PER_HOUR;
export const REFRESH_TOKEN_TTL_MS = 30 * MS_PER_DAY;
export const ACCESS_TOKEN_PREFIX = 'oat_';
export const REFRESH_TOKEN_PREFIX = 'ort_';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      client_id: string;
      token_type: 'Bearer' | 'refresh_token';
      exp: number;
      iat: number;
      sub: string;
      organization_id: string;
      tenant_id: string;
      connected_account_id: string;
    };

type FormBody = Record<string, unknown>;

function field(body: FormBody, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

function sameSecret(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createTokenService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function authenticateClient(credentials: ClientCredentials): Promise<OAuthClientRow> {
    const client = await findClient(pool, credentials.clientId);
    if (!client || !sameSecret(credentials.clientSecret, client.secret_hash)) {
      throw new OAuthError('invalid_client', 'client authentication failed: unknown client_id or wrong client_secret');
    }
    return client;
  }

  async function issuePair(db: Queryable, tenantId: string, grantId: string): Promise<TokenResponse> {
    const now = clock.now();
    const access = `${ACCESS_TOKEN_PREFIX}${randomToken(40)}`;
    const refresh = `${REFRESH_TOKEN_PREFIX}${randomToken(40)}`;
    const base = { tenant_id: tenantId, grant_id: grantId, issued_at: now, used_at: null, revoked_at: null };
    await tokens.insertToken(db, { ...base, token_hash: hashSecret(access), kind: 'access', expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS) });
    await tokens.insertToken(db, { ...base, token_hash: hashSecret(refresh), kind: 'refresh', expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS) });
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refresh };
  }

  /**
   * RFC 6749 section 4.1.3 with PKCE (RFC 7636 section 4.6). The code is consumed by the first
   * attempt whatever its outcome; presenting it again is treated as theft (RFC 6749 section
   * 10.5) and revokes every token of its grant. Failures return rather than throw so that the
   * consumption and the revocation commit.
   */
  async function exchangeCode(client: OAuthClientRow, body: FormBody): Promise<TokenResponse> {
    const code = field(body, 'code');
    const redirectUri = field(body, 'redirect_uri');
    const verifier = field(body, 'code_verifier');
    const outcome = await withTx(pool, async (tx): Promise<TokenResponse | OAuthError> => {
      const now = clock.now();
      const row = await tokens.lockCode(tx, client.tenant_id, hashSecret(code));
      if (!row || row.oauth_app_id !== client.id) return new OAuthError('invalid_grant', 'code is invalid or was issued to another client');
      if (row.used_at) {
        await tokens.revokeGrant(tx, client.tenant_id, row.grant_id, now);
        return new OAuthError('invalid_grant', 'code was already used; every token issued from it has been revoked');
      }
      await tokens.markCodeUsed(tx, client.tenant_id, row.code_hash, now);
      if (row.expires_at.getTime() <= now.getTime()) return new OAuthError('invalid_grant', 'code has expired (codes live 10 minutes)');
      if (row.grant_revoked_at) return new OAuthError('invalid_grant', 'code was revoked');
      if (row.redirect_uri !== redirectUri) return new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
      if (!verifierMatches(verifier, row.code_challenge)) return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)');
      return issuePair(tx, client.tenant_id, row.grant_id);
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  /** RFC 6749 section 6 with rotation (RFC 9700 section 4.14.2): reusing a rotated token revokes the grant. */
  async function refresh(client: OAuthClientRow, body: FormBody): Promise<TokenResponse> {
    const presented = field(body, 'refresh_token');
    const outcome = await withTx(pool, async (tx): Promise<TokenResponse | OAuthError> => {
      const now = clock.now();
      const row = await tokens.findToken(tx, client.tenant_id, hashSecret(presented), true);
      if (!row || row.kind !== 'refresh' || row.oauth_app_id !== client.id) return new OAuthError('invalid_grant', 'refresh_token is invalid or was issued to another client');
      if (row.used_at) {
        await tokens.revokeGrant(tx, client.tenant_id, row.grant_id, now);
        return new OAuthError('invalid_grant', 'refresh_token was already used; every token of this grant has been revoked');
      }
      if (row.revoked_at || row.grant_revoked_at || row.account_status !== 'ACTIVE') return new OAuthError('invalid_grant', 'refresh_token has been revoked');
      if (row.expires_at.getTime() <= now.getTime()) return new OAuthError('invalid_grant', 'refresh_token has expired (refresh tokens live 30 days)');
      await tokens.markTokenUsed(tx, client.tenant_id, row.token_hash, now);
      return issuePair(tx, client.tenant_id, row.grant_id);
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  async function token(client: OAuthClientRow, body: FormBody): Promise<TokenResponse> {
    if (body.client_id !== undefined && body.client_id !== client.id) throw new OAuthError('invalid_client', 'client_id in the body differs from the authenticated client');
    const grantType = field(body, 'grant_type');
    if (grantType === 'authorization_code') return exchangeCode(client, body);
    if (grantType === 'refresh_token') return refresh(client, body);
    throw new OAuthError('unsupported_grant_type', `grant_type '${grantType}' is not supported; use authorization_code or refresh_token`);
  }

  function isActive(row: TokenWithGrant | undefined, nowMs: number): row is TokenWithGrant {
    return (
      row !== undefined &&
      !row.revoked_at &&
      !row.grant_revoked_at &&
      row.account_status === 'ACTIVE' &&
      row.expires_at.getTime() > nowMs &&
      !(row.kind === 'refresh' && row.used_at)
    );
  }

  /** RFC 7662: a token this client cannot see, or that is not usable, is just `active: false`. */
  async function introspect(client: OAuthClientRow, body: FormBody): Promise<IntrospectionResponse> {
    const presented = field(body, 'token');
    const row = await tokens.findToken(pool, client.tenant_id, hashSecret(presented));
    if (!isActive(row, clock.now().getTime()) || row.oauth_app_id !== client.id) return { active: false };
    return {
      active: true,
      client_id: client.id,
      token_type: row.kind === 'access' ? 'Bearer' : 'refresh_token',
      exp: seconds(row.expires_at),
      iat: seconds(row.issued_at),
      sub: row.user_id,
      organization_id: row.organization_id,
      tenant_id: row.connected_tenant_id,
      connected_account_id: row.connected_account_id,
    };
  }

  /**
   * RFC 7009: the answer is the same whether or not the token existed. Revoking a refresh token
   * revokes its whole grant, access tokens included (section 2.1).
   */
  async function revoke(client: OAuthClientRow, body: FormBody): Promise<void> {
    const presented = field(body, 'token');
    await withTx(pool, async (tx) => {
      const row = await tokens.findToken(tx, client.tenant_id, hashSecret(presented));
      if (!row || row.oauth_app_id !== client.id) return;
      if (row.kind === 'refresh') await tokens.revokeGrant(tx, client.tenant_id, row.grant_id, clock.now());
      else await tokens.revokeToken(tx, client.tenant_id, row.token_hash, clock.now());
    });
  }

  /** `Authorization: Bearer oat_...` on any /api/v1 route: the connected organization's production tenant. */
  async function authenticateAccessToken(presented: string): Promise<AuthContext | null> {
    if (!presented.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const row = await tokens.findAccessTokenByHash(pool, hashSecret(presented));
    if (!isActive(row, clock.now().getTime())) return null;
    return { tenantId: row.connected_tenant_id, organizationId: row.organization_id, environment: 'production', principalId: row.grant_id, via: 'oauth' };
  }

  return { authenticateClient, token, introspect, revoke, authenticateAccessToken };
}

export type TokenService = ReturnType<typeof createTokenService>;
