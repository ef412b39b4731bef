import { MS_PER_MINUTE, type Clock } from '../../kernel/clock.js';
import { forbidden } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { findProductionTenant, listMemberships } from '../accounts/index.js';
import { findClient, type OAuthClientRow } from './apps-repository.js';
import * as connect from './connect-repository.js';
import { isValidS256Challenge } from './pkce.js';
import { withQuery } from './redirect-uris.js';
import * as tokens from './tokens-repository.js';

export const CODE_TTL_MS = 10 * MS_PER_MINUTE;
const CODE_PREFIX = 'oac_';

/** A request whose client and redirect URI are known good. */
export interface AuthorizeRequest {
  client: OAuthClientRow;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
}

/**
 * `page`: client or redirect URI not trustworthy, so the error is shown on our own page and
 * never redirected (RFC 6749 section 4.1.2.1). `redirect`: the error goes back to the client.
 */
export type AuthorizeOutcome =
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'ok'; request: AuthorizeRequest };

type Params = Record<string, unknown>;

/** A parameter sent once; repeated parameters arrive as arrays and are refused (RFC 6749 section 3.1). */
function single(params: Params, name: string): string | undefined | null {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

export function createAuthorizeService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function parse(params: Params): Promise<AuthorizeOutcome> {
    const clientId = single(params, 'client_id');
    if (!clientId) return { kind: 'page', message: clientId === null ? 'client_id was sent more than once.' : 'The request has no client_id.' };
    const client = await findClient(pool, clientId);
    if (!client) return { kind: 'page', message: 'The client_id does not belong to any application.' };
    const redirectUri = single(params, 'redirect_uri');
    if (!redirectUri) return { kind: 'page', message: 'The request has no redirect_uri (or sent it more than once).' };
    if (!client.redirect_uris.includes(redirectUri)) {
      return { kind: 'page', message: 'The redirect_uri is not registered for this application; redirect URIs must match exactly.' };
    }
    const stateValue = single(params, 'state');
    const state = stateValue ?? undefined;
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: withQuery(redirectUri, { error, error_description: description, state }),
    });
    if (stateValue === null) return fail('invalid_request', 'state was sent more than once');
    const responseType = single(params, 'response_type');
    if (!responseType) return fail('invalid_request', 'response_type is required and must be code');
    if (responseType !== 'code') return fail('unsupported_response_type', 'response_type must be code');
    const method = single(params, 'code_challenge_method');
    if (method === null) return fail('invalid_request', 'code_challenge_method was sent more than once');
    if (method !== undefined && method !== 'S256') return fail('invalid_request', `code_challenge_method must be S256; '${method}' is not supported`);
    const codeChallenge = single(params, 'code_challenge');
    if (!codeChallenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256)');
    if (!isValidS256Challenge(codeChallenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
    return { kind: 'ok', request: { client, redirectUri, state, codeChallenge } };
  }

  /** Organizations the user may connect: those where they are an ADMIN. */
  async function connectableOrganizations(userId: string) {
    return (await listMemberships(pool, userId)).filter((m) => m.role === 'ADMIN');
  }

  /** Approve: finds or opens the standard connection, starts a grant and returns the redirect with the code. */
  async function approve(userId: string, request: AuthorizeRequest, organizationId: string): Promise<string> {
    const orgs = await connectableOrganizations(userId);
    const org = orgs.find((o) => o.organization_id === organizationId);
    if (!org) throw forbidden('you are not an administrator of the selected organization');
    const connectedTenantId = await findProductionTenant(pool, organizationId);
    if (!connectedTenantId) throw forbidden('the selected organization has no production tenant to connect');
    const tenantId = request.client.tenant_id;
    const code = `${CODE_PREFIX}${randomToken(40)}`;
    const attempt = () =>
      withTx(pool, async (tx) => {
        const now = clock.now();
        let account = await connect.findLiveStandardAccount(tx, tenantId, request.client.id, organizationId);
        if (!account) {
          account = {
            id: newId('connectedAccount', now.getTime()),
            tenant_id: tenantId,
            type: 'standard',
            status: 'ACTIVE',
            oauth_app_id: request.client.id,
            organization_id: organizationId,
            connected_tenant_id: connectedTenantId,
            connected_by_user_id: userId,
            email: null,
            organization_name: org.name,
            country: null,
            metadata: {},
            return_url: null,
            legal_name: null,
            vat_number: null,
            created_at: now,
            activated_at: now,
            revoked_at: null,
          };
          await connect.insertAccount(tx, account);
        }
        const grantId = newId('oauthGrant', now.getTime());
        await tokens.insertGrant(tx, {
          id: grantId,
          tenant_id: tenantId,
          oauth_app_id: request.client.id,
          connected_account_id: account.id,
          user_id: userId,
          organization_id: organizationId,
          connected_tenant_id: account.connected_tenant_id ?? connectedTenantId,
          created_at: now,
          revoked_at: null,
        });
        await tokens.insertCode(tx, tenantId, {
          code_hash: hashSecret(code),
          grant_id: grantId,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          created_at: now,
          expires_at: new Date(now.getTime() + CODE_TTL_MS),
          used_at: null,
        });
      });
    try {
      await attempt();
    } catch (error) {
      // Two consents for the same organization at once: the second reuses the first's connection.
      if (!isUniqueViolation(error, 'connected_accounts_standard_key')) throw error;
      await attempt();
    }
    return withQuery(request.redirectUri, { code, state: request.state });
  }

  function deny(request: AuthorizeRequest): string {
    return withQuery(request.redirectUri, { error: 'access_denied', error_description: 'the user denied the request', state: request.state });
  }

  return { parse, connectableOrganizations, approve, deny };
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
