import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { pageRequest, paginationMeta, type Page } from '../../kernel/paging.js';
import { hashSecret, randomToken } from '../../kernel/secrets.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import * as apps from './apps-repository.js';
import type { OAuthAppRow } from './apps-repository.js';
import { revokeAccountsOfApp } from './connect-repository.js';
import { validateRedirectUris } from './redirect-uris.js';
import { revokeGrantsOfAccount } from './tokens-repository.js';

export type { OAuthAppRow };

export interface AppWithSecret {
  app: OAuthAppRow;
  /** Shown once, at creation and rotation; only its hash is kept. */
  clientSecret: string;
}

const SECRET_PREFIX = 'cs_';

function newSecret(): { secret: string; hash: string; hint: string } {
  const secret = `${SECRET_PREFIX}${randomToken(40)}`;
  return { secret, hash: hashSecret(secret), hint: `${secret.slice(0, 7)}...${secret.slice(-4)}` };
}

function validateName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.length > 200) throw badRequest('name must be a string of 1 to 200 characters');
  return name.trim();
}

export function createOAuthAppsService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function create(tenantId: string, body: { name: string; redirect_uris: string[] }): Promise<AppWithSecret> {
    const name = validateName(body.name);
    const redirectUris = validateRedirectUris(body.redirect_uris);
    const now = clock.now();
    const { secret, hash, hint } = newSecret();
    const app: OAuthAppRow = { id: newId('oauthApp', now.getTime()), tenant_id: tenantId, name, redirect_uris: redirectUris, secret_hint: hint, created_at: now, updated_at: now };
    await apps.insertApp(pool, { ...app, secret_hash: hash });
    return { app, clientSecret: secret };
  }

  async function list(tenantId: string, query: { page?: number; per_page?: number }): Promise<Page<OAuthAppRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await apps.listApps(pool, tenantId, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function get(tenantId: string, appId: string): Promise<OAuthAppRow> {
    const app = await apps.findApp(pool, tenantId, appId);
    if (!app) throw notFound(`oauth app ${appId}`);
    return app;
  }

  async function update(tenantId: string, appId: string, patch: { name?: string; redirect_uris?: string[] }): Promise<OAuthAppRow> {
    const values = {
      name: patch.name === undefined ? undefined : validateName(patch.name),
      redirect_uris: patch.redirect_uris === undefined ? undefined : validateRedirectUris(patch.redirect_uris),
      updated_at: clock.now(),
    };
    const app = await apps.updateApp(pool, tenantId, appId, values);
    if (!app) throw notFound(`oauth app ${appId}`);
    return app;
  }

  /** The old secret stops working as soon as this commits: only the new hash is stored. */
  async function rotateSecret(tenantId: string, appId: string): Promise<AppWithSecret> {
    const { secret, hash, hint } = newSecret();
    const app = await apps.replaceSecret(pool, tenantId, appId, { hash, hint, at: clock.now() });
    if (!app) throw notFound(`oauth app ${appId}`);
    return { app, clientSecret: secret };
  }

  /** Deleting an app disconnects every organization connected through it. */
  async function remove(tenantId: string, appId: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const now = clock.now();
      if (!(await apps.markAppDeleted(tx, tenantId, appId, now))) throw notFound(`oauth app ${appId}`);
      for (const accountId of await revokeAccountsOfApp(tx, tenantId, appId, now)) await revokeGrantsOfAccount(tx, tenantId, accountId, now);
    });
  }

  return { create, list, get, update, rotateSecret, remove };
}

export type OAuthAppsService = ReturnType<typeof createOAuthAppsService>;
